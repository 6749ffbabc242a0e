import AuthFlowCore
import AuthFlowScenarios

/// The top-level state diagram and transition coverage, both derived from an exploration.
public enum StateGraph {
  /// Edges between different states, each with the event kinds that take it, sorted.
  public static func arrows(_ edges: Set<ModelChecker.Edge>) -> [(
    from: String, to: String, events: [String]
  )] {
    var grouped: [String: [String: Set<String>]] = [:]
    for e in edges where e.from != e.to {
      grouped[e.from, default: [:]][e.to, default: []].insert(e.event)
    }
    var out: [(String, String, [String])] = []
    for from in Vocabulary.states {
      guard let targets = grouped[from] else { continue }
      for to in Vocabulary.states {
        guard let events = targets[to] else { continue }
        out.append((from, to, events.sorted()))
      }
    }
    return out
  }

  /// A Mermaid `stateDiagram-v2`.
  public static func mermaid(_ edges: Set<ModelChecker.Edge>) -> String {
    var out = "stateDiagram-v2\n  [*] --> starting\n"
    for (from, to, events) in arrows(edges) {
      out += "  \(from) --> \(to): \(events.joined(separator: ", "))\n"
    }
    return out
  }

  /// A Graphviz `digraph`.
  public static func dot(_ edges: Set<ModelChecker.Edge>) -> String {
    var out = "digraph AuthFlow {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n"
    for (from, to, events) in arrows(edges) {
      out += "  \(from) -> \(to) [label=\"\(events.joined(separator: "\\n"))\"];\n"
    }
    return out + "}\n"
  }

  /// A transition kind for coverage: a state and an event kind that does something there.
  public struct Pair: Hashable, Sendable, Comparable {
    public var state: String
    public var event: String

    public static func < (a: Pair, b: Pair) -> Bool { (a.state, a.event) < (b.state, b.event) }
  }

  /// Which reachable (state, event kind) pairs the reports exercise: (covered, missed), sorted.
  public static func coverage(reachable: Set<ModelChecker.Edge>, reports: [ScenarioReport])
    -> (covered: [Pair], missed: [Pair])
  {
    let all = Set(reachable.map { Pair(state: $0.from, event: $0.event) })
    var exercised: Set<Pair> = []
    for r in reports {
      for t in r.transitions where t.changed {
        exercised.insert(Pair(state: t.from, event: ModelChecker.kind(t.event)))
      }
    }
    return (all.intersection(exercised).sorted(), all.subtracting(exercised).sorted())
  }
}
