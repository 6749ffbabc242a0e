/// A broken invariant: which one (numbered as in the contract) and what happened.
public struct Violation: Hashable, Sendable, CustomStringConvertible {
  /// The invariant's number, 1–10.
  public var invariant: Int
  /// What went wrong in this step.
  public var message: String

  /// Creates a violation.
  public init(_ invariant: Int, _ message: String) {
    self.invariant = invariant
    self.message = message
  }

  public var description: String {
    "invariant \(invariant) (\(Invariants.names[invariant] ?? "?")): \(message)"
  }
}

/// The model's invariants, checked on one step: the machine before, the event, the machine after
/// and the effects. Every check is local to the step, so it needs no history: the same function
/// serves the property tests (on sequences) and the model checker (on transitions).
///
/// Not checked here: 1 (total: a trap would crash the checker itself), 7's first half
/// (reachability of `signedOut`, a property of the whole graph) and 10 (JSON round-trip, which
/// needs Foundation; the verification module checks it).
public enum Invariants {
  /// The invariants' short names.
  public static let names: [Int: String] = [
    1: "total", 2: "no silent loss of anonymous data", 3: "single flight",
    4: "persistence follows state", 5: "transient errors never sign out",
    6: "stale results change nothing", 7: "signedOut reachable; old tokens unused",
    8: "reauthentication never switches users", 9: "one deliverIDToken per idTokenRequested",
    10: "JSON round-trip",
  ]

  /// The request each family awaits in `state`.
  public static func awaited(_ state: AuthState) -> Awaited {
    var out = Awaited()
    out.flow = state.pendingRequest
    if let user = state.user {
      if case .refreshing(let r, _, _) = user.token { out.refresh = r }
      out.cleanup = user.cleanupRequest
    }
    return out
  }

  /// The app's `idTokenRequested` ids the state holds unanswered.
  public static func heldTokenRequests(_ state: AuthState) -> [RequestID] {
    if case .restoring(_, let waiters, _) = state { return waiters }
    if case .refreshing(_, let waiters, _)? = state.user?.token { return waiters }
    return []
  }

  /// Every violation in one step.
  public static func check(
    before: AuthMachine, event: Event, after: AuthMachine, effects: [Effect]
  ) -> [Violation] {
    var out: [Violation] = []
    let b = before.state
    let a = after.state
    let bs = b.session
    let ase = a.session
    let awaitedBefore = awaited(b)

    // 6. A result nobody waits for changes nothing.
    if case .result(let id, _) = event, !awaitedBefore.contains(id) {
      if before != after || !effects.isEmpty {
        out.append(Violation(6, "stale result #\(id) changed the machine or emitted effects"))
      }
      return out
    }

    // 2. An anonymous user leaves only by an explicit decision.
    if let s = bs, s.anonymous, ase?.uid != s.uid, !anonymousExitAllowed(b, event) {
      out.append(
        Violation(2, "anonymous user \(s.uid) was dropped by \(describe(event)) in \(b.name)"))
    }
    for case .deleteAccount(_, let token) in effects {
      if let c = ase?.pendingCleanup, c.idToken == token {
        // The migrated anonymous account: only once the app moved its data (or chose to drop it).
        if !c.dataMoved {
          out.append(Violation(2, "anonymous account \(c.uid) deleted before its data was moved"))
        }
        continue
      }
      let anonymousToken =
        (bs?.anonymous == true && bs?.idToken == token)
        || (ase?.anonymous == true && ase?.idToken == token)
      if anonymousToken, !deleteOfAnonymousAllowed(b, event) {
        out.append(Violation(2, "deleteAccount for an anonymous user without deleteAccountTapped"))
      }
    }

    // 3. One request per family in flight; every request sent is awaited.
    var sent = (flow: 0, refresh: 0, cleanup: 0)
    let awaitedAfter = awaited(a)
    for effect in effects {
      guard let id = effect.requestId else { continue }
      let family: RequestFamily =
        if case .refreshToken = effect { .refresh } else if awaitedAfter[.cleanup] == id {
          .cleanup
        } else { .flow }
      switch family {
      case .flow: sent.flow += 1
      case .refresh: sent.refresh += 1
      case .cleanup: sent.cleanup += 1
      }
      if awaitedAfter[family] != id {
        out.append(Violation(3, "\(effect.name) #\(id) was sent but is not awaited"))
      }
      if let earlier = awaitedBefore[family], earlier != id, !answers(event, earlier) {
        out.append(Violation(3, "\(effect.name) #\(id) sent while #\(earlier) is in flight"))
      }
    }
    for (family, n) in [
      (RequestFamily.flow, sent.flow), (.refresh, sent.refresh), (.cleanup, sent.cleanup),
    ] where n > 1 {
      out.append(Violation(3, "\(n) \(family) requests sent in one step"))
    }

    // 4. The last write matches the state's session.
    var lastWrite: Session?? = nil
    for effect in effects {
      if case .persistSession(let s) = effect { lastWrite = .some(s) }
      if case .clearSession = effect { lastWrite = .some(nil) }
    }
    if let written = lastWrite {
      if written != ase {
        out.append(
          Violation(
            4, "the last write (\(written?.uid ?? "clear")) differs from the state's session"))
      }
    } else if ase != bs, !isRestore(b, event) {
      out.append(Violation(4, "the session changed without being written"))
    }

    // 5. Transient and throttled errors never sign anyone out.
    if let error = failure(in: event), error.kind.isRetryable, let s = bs,
      ase?.uid != s.uid
    {
      out.append(Violation(5, "\(error.code) signed out \(s.uid)"))
    }

    // 7. Effects only use tokens the machine holds (so none after sign-out).
    let held = tokens(bs) + tokens(ase)
    for effect in effects {
      for token in usedTokens(effect) where !held.contains(token) {
        out.append(Violation(7, "\(effect.name) uses a token of no current session"))
      }
      if case .deliverIDToken(_, .token(let t)) = effect, t != ase?.idToken {
        out.append(Violation(7, "deliverIDToken hands out a token that is not the session's"))
      }
    }

    // 8. The user changes only through a migration.
    if let s = bs, let t = ase, s.uid != t.uid, !isMigrating(b) {
      out.append(Violation(8, "the user changed from \(s.uid) to \(t.uid) in \(b.name)"))
    }

    // 9. Every idTokenRequested gets exactly one deliverIDToken.
    var pool = heldTokenRequests(b)
    if case .intent(.idTokenRequested(let id, _)) = event { pool.append(id) }
    var delivered: [RequestID] = []
    for case .deliverIDToken(let ids, _) in effects { delivered += ids }
    let heldAfter = heldTokenRequests(a)
    if !delivered.isEmpty || pool.count != heldAfter.count {
      if Set(delivered).count != delivered.count {
        out.append(Violation(9, "a token request was answered twice in one step"))
      }
      for id in delivered where !pool.contains(id) {
        out.append(Violation(9, "deliverIDToken for #\(id), which nobody was waiting for"))
      }
      if Set(heldAfter) != Set(pool).subtracting(delivered) {
        out.append(
          Violation(9, "token requests lost or invented (\(describe(event)) in \(b.name))"))
      }
    } else if heldAfter != pool {
      out.append(Violation(9, "token requests lost or invented (\(describe(event)) in \(b.name))"))
    }
    return out
  }

  static func isMigrating(_ state: AuthState) -> Bool {
    if case .migrating = state { return true }
    return false
  }

  static func anonymousExitAllowed(_ b: AuthState, _ event: Event) -> Bool {
    switch (b, event) {
    case (_, .intent(.signOutTapped(discardAnonymousData: true))): return true
    case (.deletingAccount, .result(_, .accountDeleted)): return true
    case (.migrating, .result(_, .signedIn)): return true
    case (_, .result(_, .requestFailed(let e))) where e.kind == .sessionDead: return true
    default: return false
    }
  }

  static func deleteOfAnonymousAllowed(_ b: AuthState, _ event: Event) -> Bool {
    if case .intent(.deleteAccountTapped) = event { return true }
    if case .googleAuthenticated(.reauthenticate(resume: .deleteAccount), _, _, _) = b {
      return true
    }
    return false
  }

  static func answers(_ event: Event, _ id: RequestID) -> Bool {
    if case .result(let r, _) = event { return r == id }
    return false
  }

  static func isRestore(_ b: AuthState, _ event: Event) -> Bool {
    if case .restoring = b, case .result(_, .sessionLoaded) = event { return true }
    return false
  }

  static func failure(in event: Event) -> AuthError? {
    switch event {
    case .result(_, .requestFailed(let e)), .result(_, .providerFailed(let e)),
      .persistFailed(let e):
      return e
    default: return nil
    }
  }

  static func tokens(_ s: Session?) -> [String] {
    guard let s else { return [] }
    if let c = s.pendingCleanup { return [s.idToken, s.refreshToken, c.idToken] }
    return [s.idToken, s.refreshToken]
  }

  static func usedTokens(_ effect: Effect) -> [String] {
    switch effect {
    case .refreshToken(_, let t), .deleteAccount(_, let t): return [t]
    case .signInWithIdp(_, _, let t?), .signUpWithPassword(_, _, _, let t?): return [t]
    default: return []
    }
  }

  static func describe(_ event: Event) -> String {
    switch event {
    case .intent(let i): return "intent \(i)"
    case .result(let id, let r): return "result #\(id) \(r)"
    case .timerFired(let t): return "timer \(t.rawValue)"
    case .persistFailed(let e): return "persistFailed \(e.code)"
    }
  }
}

/// The request each family awaits, if any.
public struct Awaited: Hashable, Sendable {
  /// The flow's own request.
  public var flow: RequestID?
  /// The token refresh.
  public var refresh: RequestID?
  /// The migration cleanup.
  public var cleanup: RequestID?

  /// Nothing awaited.
  public init() {}

  /// The request a family awaits.
  public subscript(family: RequestFamily) -> RequestID? {
    switch family {
    case .flow: flow
    case .refresh: refresh
    case .cleanup: cleanup
    }
  }

  /// Whether any family awaits `id`.
  public func contains(_ id: RequestID) -> Bool { flow == id || refresh == id || cleanup == id }
}

/// The kinds of request that may each have one in flight.
public enum RequestFamily: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// The request the current flow waits for (sign-in, link, delete, …).
  case flow
  /// The ID token refresh.
  case refresh
  /// The deletion of a migrated anonymous account.
  case cleanup

  public var description: String { rawValue }
}
