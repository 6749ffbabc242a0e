import AuthFlowVerification
import Foundation
import Testing

@testable import AuthFlowCore

/// `Invariants.check` judges a step that changed nothing and emitted nothing, on an intent, a
/// timer or a failed write, with the few rules such a step can break (`checkUnchanged`). These
/// tests hold that shortcut to the whole check (`checkStep`) on every such step the model checker
/// takes in a bounded space, and on broken steps of the same shape: the same violations, in the
/// same order.
@Suite("The unchanged-step shortcut agrees with the whole check")
struct UnchangedStepTests {
  /// Where a reducer hook records what the two checks said when they differ.
  final class Findings: @unchecked Sendable {
    private let lock = NSLock()
    private var mismatches: [String] = []
    private var compared = 0
    private var fired = 0

    func record(_ machine: AuthMachine, _ event: Event, _ now: Instant) {
      let fast = Invariants.checkUnchanged(machine, event, now)
      let whole = Invariants.checkStep(
        before: machine, event: event, after: machine, effects: [], now: now)
      lock.lock()
      defer { lock.unlock() }
      compared += 1
      if !whole.isEmpty { fired += 1 }
      if fast != whole, mismatches.count < 5 {
        mismatches.append(
          "\(Invariants.describe(event)) in \(machine.stateName): shortcut \(fast), whole \(whole)")
      }
    }

    var summary: (compared: Int, fired: Int, mismatches: [String]) {
      lock.lock()
      defer { lock.unlock() }
      return (compared, fired, mismatches)
    }
  }

  /// The events the shortcut may judge, for one step the checker took: the event itself when it
  /// is one, and a failed write beside it.
  static func shortcutEvents(_ event: Event) -> [Event] {
    var events: [Event] = [.persistFailed(error: AuthError(code: "NETWORK"))]
    switch event {
    case .intent, .timerFired, .persistFailed: events.append(event)
    case .answer, .storeChanged: break
    }
    return events
  }

  @Test("every intent, timer and failed write the checker meets, taken as a step that did nothing")
  func agreesOnTheCheckersSteps() {
    let findings = Findings()
    let result = runChecker(maxStates: 6_000) { machine, event, now in
      for e in Self.shortcutEvents(event) { findings.record(machine, e, now) }
    }
    #expect(result.violations.isEmpty)
    let (compared, fired, mismatches) = findings.summary
    #expect(compared > 50_000)
    // Steps that did nothing where something was due: the shortcut has rules to fire.
    #expect(fired > 1_000)
    #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
  }

  @Test("a step that ignored what it had to do is caught through the shortcut")
  func ignoredDutiesAreCaught() {
    // A signed-out machine that ignores a token request loses it (it is owed an answer).
    var world = World()
    world.apply(.send(.appLaunched))
    world.apply(.respond(to: "loadSession", with: .loadSession(1, .sessionLoaded(session: nil))))
    let idle = world.machine
    let ask = Event.intent(.idTokenRequested(requestId: 7, forceRefresh: false))
    let violations = Invariants.check(
      before: idle, event: ask, after: idle, effects: [], now: World.epoch)
    #expect(violations.map(\.invariant) == [.oneAnswerPerTokenRequest])
    #expect(
      violations
        == Invariants.checkStep(
          before: idle, event: ask, after: idle, effects: [], now: World.epoch))
  }
}
