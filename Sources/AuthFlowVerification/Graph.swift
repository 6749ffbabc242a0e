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

  /// What a scenario did on the diagram: the states it entered and the arrows it took.
  public struct Highlight: Sendable {
    public var states: Set<String> = []
    public var arrows: Set<String> = []  // "from>to"

    public init() {}

    /// The states and arrows of a replayed scenario.
    public init(_ report: ScenarioReport) {
      for t in report.transitions where t.changed {
        states.insert(t.from)
        states.insert(t.to)
        if t.from != t.to { arrows.insert(t.from + ">" + t.to) }
      }
    }
  }

  /// A scenario's own sub-graph: only the states it entered and the arrows it took, each arrow
  /// labelled with the numbers of the times it was taken and the event that took it (a loop
  /// such as refresh, fail, back off, retry shows as an arrow back to the same state).
  public static func path(_ report: ScenarioReport, format: String) -> String {
    var order: [String] = []
    var labels: [String: [String]] = [:]
    var k = 0
    for t in report.transitions where t.changed {
      k += 1
      let key = t.from + ">" + t.to
      if labels[key] == nil { order.append(key) }
      labels[key, default: []].append("\(k) \(ModelChecker.kind(t.event))")
    }
    let first = report.transitions.first?.from ?? "starting"
    if format == "dot" {
      var out = "digraph scenario {\n  rankdir=TB;\n  node [shape=box, style=rounded];\n"
      out += "  \"\(first)\" [style=\"rounded,bold\"];\n"
      for key in order {
        let parts = key.split(separator: ">").map(String.init)
        let label = (labels[key] ?? []).joined(separator: "\\n")
        out +=
          "  \"\(parts[0])\" -> \"\(parts.count > 1 ? parts[1] : parts[0])\" [label=\"\(label)\"];\n"
      }
      return out + "}\n"
    }
    var out = "stateDiagram-v2\n  [*] --> \(first)\n"
    for key in order {
      let parts = key.split(separator: ">").map(String.init)
      let to = parts.count > 1 ? parts[1] : parts[0]
      out += "  \(parts[0]) --> \(to): \((labels[key] ?? []).joined(separator: "; "))\n"
    }
    return out
  }

  /// A Mermaid `stateDiagram-v2`; with a highlight, its states are filled and its arrows drawn
  /// thick and coloured.
  public static func mermaid(_ edges: Set<ModelChecker.Edge>, highlight: Highlight? = nil) -> String
  {
    var out = "stateDiagram-v2\n  [*] --> starting\n"
    for (from, to, events) in arrows(edges) {
      out += "  \(from) --> \(to): \(events.joined(separator: ", "))\n"
    }
    if let highlight {
      out += "  classDef story fill:#fde68a,stroke:#b45309,stroke-width:2px\n"
      for state in Vocabulary.states where highlight.states.contains(state) {
        out += "  class \(state) story\n"
      }
      // State diagrams cannot style an arrow (DOT output colours them); name them instead.
      for arrow in highlight.arrows.sorted() {
        out += "  %% story takes \(arrow.replacingOccurrences(of: ">", with: " --> "))\n"
      }
    }
    return out
  }

  /// A Graphviz `digraph`; with a highlight, its states and arrows are coloured.
  public static func dot(_ edges: Set<ModelChecker.Edge>, highlight: Highlight? = nil) -> String {
    var out = "digraph AuthFlow {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n"
    if let highlight {
      for state in Vocabulary.states where highlight.states.contains(state) {
        out += "  \(state) [style=\"rounded,filled\", fillcolor=\"#fde68a\", color=\"#b45309\"];\n"
      }
    }
    for (from, to, events) in arrows(edges) {
      let style =
        highlight?.arrows.contains(from + ">" + to) == true ? ", color=\"#d97706\", penwidth=3" : ""
      out += "  \(from) -> \(to) [label=\"\(events.joined(separator: "\\n"))\"\(style)];\n"
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
