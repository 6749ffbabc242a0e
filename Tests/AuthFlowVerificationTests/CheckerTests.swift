import AuthFlowCore
import AuthFlowScenarios
import AuthFlowVerification
import FlowRunKit
import Foundation
import Testing

/// Whether the tests explore the whole space: in an optimized build, or when asked with
/// `AUTHFLOW_FULL_CHECK=1`. A debug build takes minutes for it, so `swift test` explores a
/// bounded part, and `.ci/run` checks the whole space with the release `flowrun check` (and the
/// diagram and coverage with it).
let exploresFullSpace: Bool = {
  #if DEBUG
    return ProcessInfo.processInfo.environment["AUTHFLOW_FULL_CHECK"] == "1"
  #else
    return true
  #endif
}()

/// One exploration, shared by the tests that need it: the whole space, or its first 15,000
/// states.
let fullSpace: ModelChecker.Result = {
  var options = ModelChecker.Options()
  if !exploresFullSpace { options.maxStates = 15_000 }
  return ModelChecker(options: options).run()
}()

/// Why the whole-space tests are skipped, and how to run them.
let fullSpaceSkipReason: Comment =
  "a debug build explores only the first 15,000 states; .ci/model-check checks this with the release flowrun, or run: AUTHFLOW_FULL_CHECK=1 swift test --filter CheckerTests"

let repositoryRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite("Model checking the whole space")
struct CheckerTests {
  @Test("the space is explored with no invariant broken and no way to get stuck")
  func fullSpaceIsSafe() {
    #expect(fullSpace.complete == exploresFullSpace)
    #expect(fullSpace.states > 1_000)
    #expect(fullSpace.violationCount == 0, "\(fullSpace.violations.first?.violations ?? [])")
    #expect(fullSpace.cannotSignOut == 0)
    #expect(fullSpace.deadEnds == 0)
  }

  @Test(
    "Docs/StateMachine.md embeds the current diagram",
    .enabled(if: exploresFullSpace, fullSpaceSkipReason))
  func diagramUpToDate() throws {
    let doc = try String(
      contentsOf: repositoryRoot.appendingPathComponent("Docs/StateMachine.md"), encoding: .utf8)
    let begin = "<!-- flowrun graph: begin -->\n```mermaid\n"
    let end = "```\n<!-- flowrun graph: end -->"
    let start = try #require(doc.range(of: begin))
    let stop = try #require(doc.range(of: end))
    let embedded = String(doc[start.upperBound..<stop.lowerBound])
    #expect(
      embedded == StateGraph.mermaid(fullSpace.edges),
      "regenerate with: swift run flowrun graph, and paste between the markers")
  }

  @Test(
    "Scenarios/ exercise at least 90% of the reachable transitions",
    .enabled(if: exploresFullSpace, fullSpaceSkipReason)
  )
  func coverage() throws {
    let files = ScenarioFiles.expand([repositoryRoot.appendingPathComponent("Scenarios").path])
      .files
    let reports = try files.map { ScenarioRunner.run(try Scenario.load(path: $0)) }
    let (covered, missed) = StateGraph.coverage(reachable: fullSpace.edges, reports: reports)
    let ratio = Double(covered.count) / Double(covered.count + missed.count)
    #expect(ratio >= 0.9, "missed: \(missed.map { "\($0.state) + \($0.event)" })")
  }

  @Test("composed per machine, the checker's moves agree with every move applied to whole states")
  func composedMovesAgreeWithWholeMoves() {
    // Deep enough for another process's write followed by the machine's own moves, which is
    // where the checker keys a store again without applying the move to it.
    let depth = 7
    let reference = wholeMoves(reducer: nil, depth: depth)
    var options = ModelChecker.Options()
    options.maxDepth = depth
    let checked = ModelChecker(options: options).run()
    #expect(reference.storesHeldApart > 0)
    #expect(reference.broken == 0)
    #expect(checked.violationCount == 0)
    #expect(checked.states == reference.states)
    #expect(checked.transitions == reference.transitions)
  }

  @Test(
    "with a broken reducer, the checker reports every transition that broke a rule, wherever it leads"
  )
  func everyBrokenTransitionReported() {
    // A transition back to its own state, or to a state another move of the same state reached
    // already, is only counted by the checker unless it broke a rule: then it must be reported,
    // with the state it led to (the checker keeps one counterexample per such state).
    for reducer in [Broken.ignoresTokenRequests, Broken.noSingleFlight, Broken.dropsWaiters] {
      let depth = 5
      let reference = wholeMoves(reducer: reducer, depth: depth)
      var options = ModelChecker.Options()
      options.maxDepth = depth
      options.reducer = reducer
      options.keepViolations = 1_000_000
      let checked = ModelChecker(options: options).run()
      #expect(reference.broken > 0)
      #expect(checked.violationCount == reference.broken)
      #expect(checked.violations.count == reference.brokenTargets)
      #expect(checked.states == reference.states)
      #expect(checked.transitions == reference.transitions)
      for example in checked.violations {
        var w = World(policy: example.policy, reducer: reducer)
        var last: [Violation] = []
        for event in example.events { last = w.apply(event) }
        #expect(!last.isEmpty, "\(example.events) breaks nothing at its last step")
      }
    }
  }

  /// A reference exploration with nothing of the checker's own: abstract states in a set, every
  /// move of the alphabet applied to the whole world (machine, timers, store) with the
  /// invariants, `depth` levels deep. `broken` counts the transitions that broke any rule,
  /// `brokenTargets` the states they led to.
  private func wholeMoves(reducer: World.Reducer?, depth: Int) -> (
    states: Int, transitions: Int, broken: Int, brokenTargets: Int, storesHeldApart: Int
  ) {
    var targets: Set<AbstractState> = []
    var seen: Set<AbstractState> = []
    var frontier = [AbstractState(World(reducer: reducer))]
    seen.insert(frontier[0])
    var transitions = 0
    var broken = 0
    var storesHeldApart = 0
    for _ in 0..<depth {
      var next: [AbstractState] = []
      for state in frontier {
        let start = state.world(reducer: reducer)
        var choices = Alphabet.choices(start)
        for i in Alphabet.conflictAnswers(start) {
          for p in MigrationPolicy.allCases where p != start.machine.policy.migration {
            choices.append(.underMigrationPolicy(p, .answer(.flow, i)))
          }
        }
        for choice in choices {
          var w = start
          guard let event = Alphabet.resolve(choice, in: &w) else { continue }
          transitions += 1
          let violations: [Violation]
          if case .underMigrationPolicy(let p, _) = choice {
            violations = w.apply(event, migration: p)
          } else {
            violations = w.apply(event)
          }
          let after = AbstractState(w)
          if !violations.isEmpty {
            broken += 1
            targets.insert(after)
          }
          if seen.insert(after).inserted {
            next.append(after)
            if case .holds(.some) = after.store, after.machine.user != nil { storesHeldApart += 1 }
          }
        }
      }
      frontier = next
    }
    return (seen.count, transitions, broken, targets.count, storesHeldApart)
  }

  @Test("canonical states ignore token names and absolute time")
  func canonical() {
    func story(_ prefix: String, at start: Double) -> World {
      var w = World(now: Instant(start))
      w.apply(.send(.appLaunched))
      w.apply(.respond(to: "loadSession", with: .loadSession(1, .sessionLoaded(session: nil))))
      w.apply(.send(.signInAnonymouslyTapped))
      let s = Session(
        uid: "anon-1", anonymous: true, idToken: prefix + "-id", refreshToken: prefix + "-rt",
        expiresAt: Instant(start + 3600))
      w.apply(.respond(to: "signUpAnonymously", with: .signUpAnonymously(2, .signedIn(session: s))))
      return w
    }
    #expect(AbstractState(story("a", at: 1000)) == AbstractState(story("b", at: 99_000)))
  }

  @Test("flowrun check: a bounded run prints its figures; json parses; bad options exit 64")
  func command() throws {
    let text = FlowRun.main(["check", "--depth", "4"])
    #expect(text.code == 0)
    #expect(text.stdout.contains("states and"))
    #expect(text.stdout.contains("Invariants: all hold on every transition."))
    #expect(text.stdout.contains("Liveness: not checked"))
    let json = FlowRun.main(["check", "--depth", "3", "--format", "json"])
    let parsed = try JSONValue.parse(json.stdout)
    #expect(parsed["violations"] == .number(0))
    #expect(FlowRun.main(["check", "--depth", "zero"]).code == 64)
    #expect(FlowRun.main(["graph", "--format", "svg"]).code == 64)
  }

  @Test("flowrun check --stats: the reducer's time is a part of the successors', and non-zero")
  func statsSplit() throws {
    let json = FlowRun.main(["check", "--depth", "3", "--stats", "--format", "json"])
    let stats = try #require(try JSONValue.parse(json.stdout)["stats"])
    guard case .number(let reducer) = stats["reducerSeconds"],
      case .number(let successors) = stats["successorSeconds"]
    else {
      Issue.record("no reducerSeconds or successorSeconds in \(json.stdout)")
      return
    }
    #expect(reducer > 0)
    #expect(reducer <= successors)
    let text = FlowRun.main(["check", "--depth", "3", "--stats"]).stdout
    #expect(text.contains("of which the reducer: "))
  }
}
