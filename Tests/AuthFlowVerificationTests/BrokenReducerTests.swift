import AuthFlowVerification
import Testing

@testable import AuthFlowCore

/// Deliberately broken reducers, each a wrapper around the real one that breaks one rule.
enum Broken {
  /// Starts a second refresh when a token request arrives during a refresh.
  static let noSingleFlight: World.Reducer = { machine, event, now, fx in
    let wasRefreshing = machine.user?.refreshRequest != nil
    machine.handle(event, now: now, into: &fx)
    if wasRefreshing, case .intent(.idTokenRequested) = event, let s = machine.user?.session {
      machine.send(.refreshToken(refreshToken: s.refreshToken), &fx)
    }
  }

  /// Deletes the anonymous account as soon as the user picks merge, before the sign-in.
  static let deleteAnonymousEarly: World.Reducer = { machine, event, now, fx in
    let anonymous = machine.user?.session
    let deciding: Bool
    if case .migrationRequired = machine.phase { deciding = true } else { deciding = false }
    machine.handle(event, now: now, into: &fx)
    if deciding, case .intent(.migrationDecided(.merge)) = event, let anonymous {
      machine.send(.deleteAccount(idToken: anonymous.idToken), &fx)
    }
  }

  /// Signs the user out when a refresh fails with a network error.
  static let signOutOnNetworkError: World.Reducer = { machine, event, now, fx in
    if let a = event.answer, let e = a.error, e.kind == .transient,
      machine.user?.refreshRequest == a.id
    {
      machine.signOut(waiterError: e, notification: .sessionExpired, fx: &fx)
      return
    }
    machine.handle(event, now: now, into: &fx)
  }

  /// Takes any result as the answer to the flow's request, whatever its id.
  static let acceptsStale: World.Reducer = { machine, event, now, fx in
    if let a = event.answer, let pending = machine.phase.pendingRequest,
      a.id != pending, !Invariants.awaited(machine).contains(a.id)
    {
      machine.handle(.answer(a.with(id: pending)), now: now, into: &fx)
      return
    }
    machine.handle(event, now: now, into: &fx)
  }

  /// Lets a reauthentication sign in whoever answered.
  static let reauthSwitchesUsers: World.Reducer = { machine, event, now, fx in
    if case .providerFlow(let flow) = machine.phase, case .reauthenticate = flow.purpose,
      flow.credential != nil, let user = machine.user,
      let a = event.answer, a.id == flow.request, let session = a.signedInSession,
      session.uid != user.session.uid
    {
      machine.begin(session, waiters: [], persist: true, now: now, fx: &fx)
      machine.phase = .resting
      return
    }
    machine.handle(event, now: now, into: &fx)
  }

  /// Sets the refresh timer past the expiry instead of before it.
  static let timerAfterExpiry: World.Reducer = { machine, event, now, fx in
    let start = fx.count
    machine.handle(event, now: now, into: &fx)
    for i in start..<fx.count {
      if case .scheduleTimer(.tokenRefresh, _) = fx[i], let s = machine.user?.session,
        case .fresh? = machine.user?.token
      {
        fx[i] = .scheduleTimer(timer: .tokenRefresh, at: s.expiresAt + machine.policy.refreshMargin)
      }
    }
  }

  /// Retries a failed refresh at the base delay however many times it failed (no doubling).
  static let backoffNeverGrows: World.Reducer = { machine, event, now, fx in
    machine.handle(event, now: now, into: &fx)
    if case .answer = event, case .backingOff(_, let failures)? = machine.user?.token,
      failures > 1
    {
      let until = now + machine.policy.backoffBase
      machine.user?.token = .backingOff(until: until, failures: failures)
      for i in fx.indices {
        if case .scheduleTimer(.tokenRefresh, _) = fx[i] {
          fx[i] = .scheduleTimer(timer: .tokenRefresh, at: until)
        }
      }
    }
  }

  /// A new session for the same user (a reauthentication, a link) drops the pending cleanup.
  static let renewDropsCleanup: World.Reducer = { machine, event, now, fx in
    let owed = machine.user?.session.pendingCleanup
    let awaited = machine.phase.pendingRequest
    machine.handle(event, now: now, into: &fx)
    if owed != nil, let a = event.answer, a.id == awaited, a.signedInSession != nil,
      machine.user?.session.pendingCleanup != nil
    {
      machine.user?.session.pendingCleanup = nil
      for i in fx.indices {
        if case .persistSession(var s) = fx[i] {
          s.pendingCleanup = nil
          fx[i] = .persistSession(session: s)
        }
      }
    }
  }

  /// Ignores every request for the ID token: a step that changes nothing, where something had to
  /// happen (the state it leads to is the one it left).
  static let ignoresTokenRequests: World.Reducer = { machine, event, now, fx in
    if case .intent(.idTokenRequested) = event { return }
    machine.handle(event, now: now, into: &fx)
  }

  /// Forgets the waiters when a refresh succeeds.
  static let dropsWaiters: World.Reducer = { machine, event, now, fx in
    machine.handle(event, now: now, into: &fx)
    if event.answer?.refreshedTokens != nil {
      fx.removeAll { if case .deliverIDToken = $0 { true } else { false } }
    }
  }
}

@Suite("The net catches bugs: broken reducers are caught and shrunk")
struct BrokenReducerTests {
  @Test(
    "each broken reducer breaks the invariant it should, with a short counterexample",
    arguments: [
      ("no single flight", Invariant.singleFlight),
      ("deletes the anonymous account before the sign-in", .anonymousDataKept),
      ("signs out on a network error", .transientNeverSignsOut),
      ("accepts stale results", .staleResultsIgnored),
      ("reauthentication switches users", .reauthenticationKeepsUser),
      ("forgets token waiters", .oneAnswerPerTokenRequest),
      ("refresh timer after the expiry", .refreshOnTime),
      ("backoff that never grows", .backoffOnSchedule),
      ("a new session drops the pending cleanup", .cleanupFinishes),
    ])
  func caught(name: String, invariant: Invariant) {
    let reducer: World.Reducer =
      switch invariant {
      case .singleFlight: Broken.noSingleFlight
      case .anonymousDataKept: Broken.deleteAnonymousEarly
      case .transientNeverSignsOut: Broken.signOutOnNetworkError
      case .staleResultsIgnored: Broken.acceptsStale
      case .reauthenticationKeepsUser: Broken.reauthSwitchesUsers
      case .refreshOnTime: Broken.timerAfterExpiry
      case .backoffOnSchedule: Broken.backoffNeverGrows
      case .cleanupFinishes: Broken.renewDropsCleanup
      default: Broken.dropsWaiters
      }
    var config = PropertyTester.Config()  // a fixed master seed: the figures below are stable
    config.sequences = 80_000
    config.reducer = reducer
    config.codingEvery = 0
    let summary = PropertyTester(config).run()
    guard let failure = summary.failure else {
      Issue.record("\(name): no invariant broken in \(summary.sequences) sequences")
      return
    }
    #expect(failure.violations.contains { $0.invariant == invariant }, "\(failure.violations)")
    #expect(failure.events.count <= 12, "shrunk to \(failure.events.count) events")
    print(
      "broken reducer '\(name)': invariant \(invariant) caught after \(summary.sequences)"
        + " sequences; counterexample shrunk from \(failure.originalLength) to"
        + " \(failure.events.count) events")
  }

  @Test("the checker's answer is the same on any number of threads and in chunks of any size")
  func sameAnswerAnyThreadsAnyChunks() {
    for reducer in [nil, Broken.noSingleFlight] {
      let reference = check(
        reducer, depth: 5, threads: 1, chunk: (1 << 13, 1 << 15), witnesses: true)
      #expect(reference.states > 500)
      for (threads, chunk) in [(1, (1, 1)), (3, (40, 200)), (2, (7, 1_000))] {
        let other = check(reducer, depth: 5, threads: threads, chunk: chunk, witnesses: true)
        #expect(other.states == reference.states)
        #expect(other.transitions == reference.transitions)
        #expect(other.violationCount == reference.violationCount)
        #expect(other.violations.map(\.events) == reference.violations.map(\.events))
        #expect(other.edges == reference.edges)
        #expect(other.witnesses == reference.witnesses)
      }
    }
  }

  @Test("a move that breaks a rule and leads back to the state it left is reported")
  func checkerCatchesBrokenSelfLoop() {
    let result = check(Broken.ignoresTokenRequests, depth: 3)
    #expect(result.violationCount > 0)
    let first = result.violations.first
    #expect(first?.violations.contains { $0.invariant == .oneAnswerPerTokenRequest } == true)
    #expect(first?.events.last == .send(.idTokenRequested(requestId: 1, forceRefresh: false)))
  }

  @Test("the model checker catches a broken reducer too, with a shortest path")
  func checkerCatches() {
    let result = check(Broken.noSingleFlight, depth: 8)
    #expect(result.violationCount > 0)
    let shortest = result.violations.map(\.events.count).min() ?? 0
    #expect(shortest > 0 && shortest <= 8)
  }
}

/// The model checker's run with `reducer` up to `depth` (with `witnesses`, every edge's path).
private func check(
  _ reducer: World.Reducer?, depth: Int, threads: Int = ModelChecker.Options().threads,
  chunk: (machines: Int, states: Int) = ModelChecker.Options().chunk, witnesses: Bool = false
) -> ModelChecker.Result {
  var options = ModelChecker.Options()
  options.reducer = reducer
  options.maxDepth = depth
  options.threads = threads
  options.chunk = chunk
  options.keepWitnesses = witnesses
  return ModelChecker(options: options).run()
}
