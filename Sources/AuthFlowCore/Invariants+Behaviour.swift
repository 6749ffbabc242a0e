// The invariants about *when* things happen and about what a step must do, judged from the event
// and the effects rather than from the state's own flags: a bug that sets a flag wrongly must
// not be able to vouch for itself. The rules are restated here from the specification
// (Docs/StateMachine.md), not computed with the reducer's own helpers, so a bug in a helper
// (a backoff that never caps, a refresh moment on the wrong side of the expiry) is caught.

/// Timing rules, checked on concrete instants.
enum Timing {
  static func check(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ now: Instant, _ awaitedBefore: Awaited, _ out: inout [Violation]
  ) {
    let policy = after.policy
    let now = now.clamped
    let refreshAnswered: Answer? = {
      if let a = event.answer, a.kind == .refreshToken, awaitedBefore.refresh == a.id { return a }
      return nil
    }()

    for case .scheduleTimer(let timer, let at) in effects {
      switch timer {
      case .tokenRefresh:
        guard let user = after.user else {
          out.append(Violation(.refreshOnTime, "a refresh timer set with nobody signed in"))
          continue
        }
        switch user.token {
        case .fresh:
          let expiry = user.session.expiresAt
          let expected = max(expiry - policy.refreshMargin, now + (expiry - now) / 2)
          if !close(at, expected) {
            out.append(
              Violation(
                .refreshOnTime,
                "refresh timer at \(at); expected \(expected) (expiry \(expiry) − margin "
                  + "\(policy.refreshMargin) s, not sooner than half the lifetime left)"))
          }
        case .backingOff(let until, let failures):
          if !close(at, until) {
            out.append(
              Violation(.refreshOnTime, "refresh timer at \(at) while backing off until \(until)"))
          }
          if let answer = refreshAnswered {
            let throttled = answer.error?.kind == .throttled
            let expected = backoff(policy, failures: failures, throttled: throttled)
            if !close(until, now + expected) {
              out.append(
                Violation(
                  .backoffOnSchedule,
                  "failure \(failures) of a refresh\(throttled ? " (throttled)" : "") waits "
                    + "\(until - now) s; expected \(expected) s"))
            }
          }
        case .refreshing:
          out.append(
            Violation(.refreshOnTime, "a refresh timer set while a refresh is in flight"))
        }
      case .restoreRetry:
        guard case .restoring(let r) = after.phase, let retryAt = r.retryAt else {
          out.append(Violation(.backoffOnSchedule, "a restore retry set while not restoring"))
          continue
        }
        if !close(at, retryAt) {
          out.append(
            Violation(.backoffOnSchedule, "restore retry timer at \(at), retry due at \(retryAt)"))
        }
        if case .answer = event, !close(retryAt, now + policy.backoffBase) {
          out.append(
            Violation(
              .backoffOnSchedule,
              "the store is read again after \(retryAt - now) s; expected backoffBase "
                + "(\(policy.backoffBase) s)"))
        }
      }
    }

    // A refresh that failed without ending the session leaves a backoff behind.
    if let answer = refreshAnswered, let failure = answer.error, failure.kind != .sessionDead,
      after.user != nil
    {
      guard case .backingOff? = after.user?.token else {
        return out.append(
          Violation(.backoffOnSchedule, "a failed refresh (\(failure.code)) is not retried"))
      }
    }

    // Tokens from inside the margin only when a refresh just issued them.
    for case .deliverIDToken(_, .token(let token)) in effects {
      if refreshAnswered?.refreshedTokens?.idToken == token { continue }
      guard let session = after.user?.session, session.idToken == token else { continue }
      if !(session.expiresAt - now > policy.refreshMargin) {
        out.append(
          Violation(
            .noTokenInsideMargin,
            "a token expiring in \(session.expiresAt - now) s handed out without a refresh "
              + "(margin \(policy.refreshMargin) s)"))
      }
    }
  }

  /// The retry delay after the `failures`-th failure in a row, restated from the policy's
  /// documentation: `backoffBase`, doubled for each failure after the first, at most
  /// `backoffCap`; at least `throttledDelay` when throttled.
  static func backoff(_ policy: Policy, failures: Int, throttled: Bool) -> Double {
    var delay = policy.backoffBase
    var n = 1
    while n < failures, delay < policy.backoffCap {
      delay *= 2
      n += 1
    }
    delay = min(delay, policy.backoffCap)
    return throttled ? max(delay, policy.throttledDelay) : delay
  }

  static func close(_ a: Instant, _ b: Instant) -> Bool { abs(a - b) <= 1e-6 }
}

/// Behaviour rules: what a step must do, judged from the event and the effects.
enum Behaviour {
  static func check(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ now: Instant, _ awaitedBefore: Awaited, _ out: inout [Violation]
  ) {
    let bs = before.userSession
    let ase = after.userSession
    sessionDead(before, event, after, effects, awaitedBefore, &out)

    // The "data moved" mark: set by migrationFinished, or born set from a switch.
    if let moved = ase?.pendingCleanup, moved.dataMoved {
      let wasMoved = bs?.pendingCleanup?.uid == moved.uid && bs?.pendingCleanup?.dataMoved == true
      if !wasMoved {
        var allowed = false
        if case .intent(.migrationFinished) = event, bs?.pendingCleanup?.uid == moved.uid {
          allowed = true
        }
        if case .migrating(let m) = before.phase, m.choice == .switchWithoutData,
          bs?.pendingCleanup == nil
        {
          allowed = true
        }
        if case .secondFactor(let step) = before.phase,
          step.resume == .migrate(choice: .switchWithoutData), bs?.pendingCleanup == nil
        {
          allowed = true
        }
        if Invariants.isRestore(before, event) || Invariants.isStoreChange(event) {
          allowed = true  // As it was stored (by this process earlier, or by another).
        }
        if !allowed {
          out.append(
            Violation(
              .dataMovedByTheApp,
              "\(Invariants.describe(event)) in \(before.stateName) marked \(moved.uid)'s data "
                + "as moved"))
        }
      }
    }

    // A launch keeps the user it read from the store, and resumes the cleanup it owes.
    if Invariants.isRestore(before, event),
      case let stored?? = event.answer?.loadedSession, stored.hasValidTimes(at: now.clamped)
    {
      if ase?.uid != stored.uid {
        out.append(
          Violation(
            .relaunchKeepsUser,
            "the stored session of \(stored.uid) was read and \(ase?.uid ?? "nobody") is signed in")
        )
      }
      if let cleanup = stored.pendingCleanup, cleanup.dataMoved, ase?.uid == stored.uid,
        after.user?.cleanupRequest == nil
      {
        out.append(
          Violation(
            .cleanupFinishes,
            "a launch read the owed deletion of \(cleanup.uid) and did not resume it"))
      }
    }

    // A credential with a single-use nonce goes to Firebase only in the step its consent step
    // delivered it: never again (a resumed link, a retried migration ask the provider anew).
    for case .request(_, .signInWithIdp(let credential, _)) in effects
    where credential.rawNonce != nil {
      var delivered = false
      if let c = event.answer?.authorizedCredential, c == credential { delivered = true }
      if !delivered {
        out.append(
          Violation(
            .nonceSentOnce,
            "a \(credential.provider) credential with a nonce sent again "
              + "(\(Invariants.describe(event)) in \(before.stateName))"))
      }
    }

    // A confirmed deletion leaves no session: of the account, or of the old anonymous account.
    if let a = event.answer, a.isAccountDeleted, let user = before.user {
      let id = a.id
      if case .deletingAccount(let d) = before.phase, case .deleting = d.step, d.request == id {
        if after.user != nil || !effects.contains(.clearSession) {
          out.append(
            Violation(
              .noSessionAfterDeletion,
              "\(user.session.uid) was deleted and its session is still \(after.user == nil ? "stored" : "signed in")"
            ))
        }
      }
      if user.cleanupRequest == id, !user.cleanupRefreshing, let c = user.session.pendingCleanup,
        after.user?.session.pendingCleanup?.uid == c.uid
      {
        out.append(
          Violation(.noSessionAfterDeletion, "\(c.uid) was deleted and its record is kept"))
      }
    }

    // An unlink keeps another way to sign in.
    for case .request(_, .unlinkProvider(let provider, _)) in effects {
      let others = (bs?.providers ?? []).filter { $0 != provider }
      if others.isEmpty {
        out.append(
          Violation(
            .unlinkKeepsASignIn,
            "unlinking \(provider) leaves \(bs?.uid ?? "the account") no way in"))
      }
    }

    // The app said the data moved: the old anonymous account's deletion starts at once.
    if case .intent(.migrationFinished) = event, let c = ase?.pendingCleanup, c.dataMoved,
      bs?.pendingCleanup?.dataMoved == false, after.user?.cleanupRequest == nil
    {
      out.append(
        Violation(
          .cleanupFinishes, "the data of \(c.uid) moved and nothing deletes its account"))
    }

    // A pending cleanup stays with the session until it is answered.
    if let cleanup = bs?.pendingCleanup, let s = ase, s.uid == bs?.uid,
      s.pendingCleanup?.uid != cleanup.uid, !answersCleanup(event, awaitedBefore),
      !Invariants.isStoreChange(event)  // Another process finished it.
    {
      out.append(
        Violation(
          .cleanupFinishes,
          "\(Invariants.describe(event)) in \(before.stateName) dropped the pending deletion of "
            + "\(cleanup.uid)"))
    }

    // Migration notices name the anonymous user and the account.
    var announced: [(from: String, to: String)] = []
    for case .notify(.migrationReady(let from, let to)) in effects {
      announced.append((from, to))
      if ase?.pendingCleanup?.uid != from || ase?.uid != to {
        out.append(
          Violation(
            .migrationNamesUsers,
            "migrationReady(from: \(from), to: \(to)) but the data waits to move from "
              + "\(ase?.pendingCleanup?.uid ?? "nobody") to \(ase?.uid ?? "nobody")"))
      }
    }
    if let s = ase, let cleanup = s.pendingCleanup, !cleanup.dataMoved,
      bs?.pendingCleanup?.uid != cleanup.uid || bs?.uid != s.uid, !Invariants.isStoreChange(event),
      !announced.contains(where: { $0.from == cleanup.uid && $0.to == s.uid })
    {
      out.append(
        Violation(
          .migrationNamesUsers,
          "data waits to move from \(cleanup.uid) to \(s.uid) and nobody was told"))
    }

    // linkTo: the current user's token for an upgrade or a link, nothing otherwise.
    for case .request(let id, let request) in effects {
      let linkTo: String?
      switch request {
      case .signInWithIdp(_, let l), .signUpWithPassword(_, _, let l),
        .signInWithEmailLink(_, _, let l):
        linkTo = l
      default: continue
      }
      let expected: String?
      switch after.phase {
      case .providerFlow(let f) where f.request == id:
        switch f.purpose {
        case .upgrade, .link: expected = ase?.idToken
        case .signIn, .reauthenticate: expected = nil
        }
      case .emailFlow(let e) where e.request == id:
        let links = e.kind == .createAccount || e.kind == .linkSignIn
        expected = links && ase?.anonymous == true ? ase?.idToken : nil
      default:
        expected = nil
      }
      if linkTo != expected {
        out.append(
          Violation(
            .upgradeLinks,
            "\(request.kind.rawValue) #\(id) in \(after.stateName) sent "
              + (linkTo == nil ? "no linkTo" : "a linkTo")
              + (expected == nil ? " where it must not" : " other than the user's token")))
      }
    }

    // Ending a session signs out of its provider SDKs.
    if let s = bs, ase?.uid != s.uid {
      for p in s.providers {
        let provider = p
        guard after.policy.providers.contains(provider),
          after.policy.providers[provider].sdkSignOut
        else { continue }
        let signedOut = effects.contains {
          if case .signOutProvider(provider, _) = $0 { return true }
          return false
        }
        if !signedOut {
          out.append(
            Violation(
              .providerSignedOut,
              "\(s.uid)'s session ended without signing out of the \(provider) SDK"))
        }
      }
    }

    // An operation waiting for reauthentication.
    if let waiting = waitingOperation(before) {
      let kept = waitingOperation(after) == waiting || running(waiting, after)
      var visible = after.user == nil
      if case .intent(.cancelTapped) = event, case .reauthenticationRequired = before.phase {
        visible = true
      }
      if effects.contains(where: { if case .notify = $0 { return true } else { return false } }) {
        visible = true
      }
      if !kept && !visible {
        out.append(
          Violation(
            .reauthenticationOutcome,
            "\(Invariants.describe(event)) in \(before.stateName) dropped the \(waiting) "
              + "waiting for reauthentication without a word"))
      }
      // A refused proof (a wrong password, a failed consent step) is not a reason to give up
      // the operation: it keeps waiting, unless the session itself is dead.
      if !kept, after.user != nil, let answer = event.answer, let error = answer.error,
        error.kind != .sessionDead, answer.id == before.phase.pendingRequest
      {
        out.append(
          Violation(
            .reauthenticationOutcome,
            "\(error.code) answering the reauthentication in \(before.stateName) dropped the "
              + "\(waiting) waiting for it"))
      }
    }
  }

  /// A session-dead answer ends what it belongs to and is not retried.
  static func sessionDead(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ awaitedBefore: Awaited, _ out: inout [Violation]
  ) {
    guard let a = event.answer, let error = a.error, error.kind == .sessionDead,
      let session = before.user?.session
    else { return }
    let id = a.id
    let family: RequestFamily
    if awaitedBefore.refresh == id {
      family = .refresh
    } else if awaitedBefore.cleanup == id {
      family = .cleanup
    } else if awaitedBefore.flow == id {
      family = .flow
    } else {
      return
    }
    switch family {
    case .refresh, .flow:
      // A migration's sign-in belongs to the other account: the anonymous user stays. An
      // action code or a custom token carries no session token and may be another account's:
      // its failure is no verdict on this session.
      if family == .flow, Invariants.isMigrating(before) { return }
      var noVerdict = false
      if family == .flow, case .accountFlow(let f) = before.phase, !f.kind.sendsSessionToken {
        noVerdict = true
      }
      // Nor does a sign-in link's mail: it goes to an address, with no token of anyone's.
      if family == .flow, case .emailFlow(let e) = before.phase, e.kind == .sendSignInLink {
        noVerdict = true
      }
      if noVerdict {
        if after.user?.session.uid != session.uid {
          out.append(
            Violation(
              .sessionDeadEnds,
              "\(error.code) answered a request that carries no token of \(session.uid)'s, "
                + "and \(session.uid) was signed out"))
        }
        return
      }
      if after.user != nil {
        out.append(
          Violation(
            .sessionDeadEnds,
            "\(error.code) answered \(family) #\(id) and \(session.uid) is still signed in"))
      }
      for case .request(_, .refreshToken(let t)) in effects where t == session.refreshToken {
        out.append(
          Violation(.sessionDeadEnds, "\(error.code) and the dead refresh token is sent again"))
      }
    case .cleanup:
      guard let cleanup = session.pendingCleanup else { return }
      if after.user?.session.pendingCleanup?.uid == cleanup.uid {
        out.append(
          Violation(
            .sessionDeadEnds,
            "\(error.code) answered the cleanup of \(cleanup.uid) and it is still pending"))
      }
    }
  }

  /// Whether `event` finishes the cleanup: its answer, unless a retryable failure (the next
  /// launch tries again).
  static func answersCleanup(_ event: Event, _ awaited: Awaited) -> Bool {
    guard let id = awaited.cleanup, let answer = event.answer, answer.id == id else {
      return false
    }
    return !(answer.error?.kind.isRetryable ?? false)
  }

  /// The sensitive operation the machine holds until a reauthentication, if any.
  static func waitingOperation(_ machine: AuthMachine) -> SensitiveOperation? {
    switch machine.phase {
    case .reauthenticationRequired(let op): return op
    case .providerFlow(let f):
      if case .reauthenticate(let op?) = f.purpose { return op }
      return nil
    case .emailFlow(let e) where e.kind == .reauthenticate: return e.resume
    case .secondFactor(let step):
      if case .reauthenticate(let op?) = step.resume { return op }
      return nil
    default: return nil
    }
  }

  /// Whether `operation` is under way in `machine`.
  static func running(_ operation: SensitiveOperation, _ machine: AuthMachine) -> Bool {
    switch (operation, machine.phase) {
    case (.deleteAccount, .deletingAccount): return true
    case (.link(let c), .providerFlow(let f)): return f.purpose == .link && f.provider == c.provider
    case (.unlink(let p), .unlinkingProvider(let u)): return u.provider == p
    case (.changePassword, .accountFlow(let f)), (.changeEmail, .accountFlow(let f)),
      (.enrollTotp, .accountFlow(let f)), (.withdrawSecondFactor, .accountFlow(let f)),
      (.enrollPhone, .accountFlow(let f)):
      return f.operation == operation
    default: return false
    }
  }
}

/// What a run has done so far that must hold across steps and relaunches: the accounts deleted
/// and the tokens of sessions cleared from the store. The scenario runner, the property tests
/// and the model checker (along each state's first path) keep one per run and show it every
/// step; `relaunch` marks a process that died (its writes that did not reach the store are
/// forgotten by the caller, which knows its store).
public struct RunHistory: Sendable {
  /// Accounts whose deletion the server confirmed.
  public private(set) var deleted: Set<String> = []
  /// Tokens of sessions whose clearing reached the store.
  public private(set) var cleared: Set<String> = []

  /// An empty history.
  public init() {}

  /// Records one step and returns what it broke.
  public mutating func observe(
    before: AuthMachine, event: Event, after: AuthMachine, effects: [Effect]
  ) -> [Violation] {
    var out: [Violation] = []
    // A token the server issues again (a scenario may reuse its strings) is a new one.
    switch event {
    case .answer(let a) where a.signedInSession != nil:
      cleared.subtract(Invariants.tokens(a.signedInSession))
    case .answer(let a) where a.refreshedTokens != nil:
      if let t = a.refreshedTokens { cleared.subtract([t.idToken, t.refreshToken]) }
    default: break
    }
    for case .deliverIDToken(_, .token(let t)) in effects where cleared.contains(t) {
      out.append(
        Violation(.clearedTokensUnused, "a token of a session cleared earlier was handed out"))
    }
    for effect in effects {
      if let t = Invariants.usedToken(effect), cleared.contains(t) {
        out.append(
          Violation(
            .clearedTokensUnused, "\(effect.name) sends a token of a session cleared earlier"))
      }
    }
    if let s = event.answer?.signedInSession {
      deleted.remove(s.uid)  // The server signed someone in with that id: a new account.
    }
    if let uid = after.user?.session.uid, deleted.contains(uid) {
      // Only a deletion resumed at launch may hold it, to finish it.
      var finishing = false
      if case .deletingAccount = after.phase { finishing = true }
      if after.user?.session.pendingDeletion != nil { finishing = true }
      if !finishing {
        out.append(
          Violation(.deletedStaysDeleted, "\(uid), deleted earlier, is signed in again"))
      }
    }
    for case .persistSession(let s) in effects
    where deleted.contains(s.uid) && s.pendingDeletion == nil {
      out.append(Violation(.deletedStaysDeleted, "\(s.uid), deleted earlier, was stored again"))
    }
    if let a = event.answer, a.isAccountDeleted, let user = before.user {
      let id = a.id
      if case .deletingAccount(let d) = before.phase, case .deleting = d.step,
        before.phase.pendingRequest == id
      {
        deleted.insert(user.session.uid)
      }
      if user.cleanupRequest == id, !user.cleanupRefreshing,
        let uid = user.session.pendingCleanup?.uid
      {
        deleted.insert(uid)
      }
    }
    if effects.contains(.clearSession), let s = before.user?.session {
      cleared.formUnion(Invariants.tokens(s))
    }
    return out
  }

  /// Forgets the clearing of `session`: its write was lost (the process died before it reached
  /// the store), so the session is legitimately back.
  public mutating func writeLost(restoring session: Session?) {
    guard let session else { return }
    cleared.subtract(Invariants.tokens(session))
    // A deletion with no record in the store (one request, nothing to revoke) whose clearing was
    // lost: the machine cannot know the account is gone until the server says so (its next
    // answer for that account is session-dead). Docs/Verification.md, "What is not guaranteed".
    if session.pendingDeletion == nil { deleted.remove(session.uid) }
  }
}

/// What providers and other processes are promised, stated with traits and events rather than
/// provider ids, so a provider declared by its traits alone is checked too.
enum Promises {
  static func check(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ now: Instant, _ awaitedBefore: Awaited, _ out: inout [Violation]
  ) {
    earlyTimer(before, event, after, effects, now, &out)
    olderWrite(before, event, after, &out)
    migrationFailure(before, event, after, effects, awaitedBefore, &out)
    conflictRetry(before, event, after, effects, &out)
    names(before, event, after, effects, &out)
    reload(before, event, after, effects, &out)
    actionCode(before, event, after, effects, &out)
    customToken(before, event, after, effects, &out)
    passwordChange(before, event, after, effects, &out)
    emailChange(before, event, after, effects, &out)
    profileUpdate(before, event, after, effects, &out)
    emailLink(before, event, after, effects, &out)
    secondFactor(before, event, after, effects, &out)
    pendingLink(before, event, after, effects, &out)
    totpEnrollment(before, event, after, effects, &out)
    phoneEnrollment(before, event, after, effects, &out)
    phoneSignIn(before, event, after, effects, &out)
    withdrawal(before, event, after, effects, &out)
    challenge(before, event, after, effects, &out)
  }

  /// A first factor answered with a challenge: held by the flow it interrupts, the user and
  /// the store untouched; a link for a signed-in user reports it. Restated from
  /// Docs/StateMachine.md ("Second factors").
  static func challenge(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    guard case .answer(let answer) = event, before.phase.pendingRequest == answer.id else {
      return
    }
    let challenge: SecondFactorChallenge
    switch answer {
    case .signInWithPassword(_, .secondFactorRequired(let c)),
      .signInWithIdp(_, .secondFactorRequired(let c)),
      .signInWithEmailLink(_, .secondFactorRequired(let c)):
      challenge = c
    default: return
    }
    var link = false
    if before.user != nil {
      switch before.phase {
      case .emailFlow(let f): link = f.kind == .linkSignIn
      case .providerFlow(let f): link = f.purpose == .upgrade || f.purpose == .link
      default: break
      }
    }
    if after.user != before.user {
      out.append(Violation(.challengeHeld, "a first factor's challenge changed the session"))
    }
    if effects.writeTheStore {
      out.append(Violation(.challengeHeld, "a first factor's challenge wrote the store"))
    }
    if link {
      let reported = effects.contains {
        if case .notify(.error(let e)) = $0 { return e.code == "SECOND_FACTOR_REQUIRED" }
        return false
      }
      if case .secondFactor = after.phase {
        out.append(Violation(.challengeHeld, "a link's challenge was held as if it signed in"))
      } else if !reported {
        out.append(Violation(.challengeHeld, "a link's challenge was not reported"))
      }
      return
    }
    guard case .secondFactor(let step) = after.phase, step.challenge == challenge,
      step.request == nil, step.codeSent == nil
    else {
      return out.append(
        Violation(.challengeHeld, "a first factor's challenge is not held as it came"))
    }
  }

  /// A withdrawal's answer: the tokens it brings are the same user's session, stored at once
  /// (none: the session's stay); the app is told and the account reloaded for its factors; a
  /// login too old waits to withdraw the same factor. Restated from Docs/StateMachine.md
  /// (`withdrawingSecondFactor`).
  static func withdrawal(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    guard case .answer(.withdrawSecondFactor(let id, let answer)) = event,
      case .accountFlow(let f) = before.phase, f.request == id, f.kind == .withdrawSecondFactor,
      case .withdrawSecondFactor(let factor)? = f.operation, let b = before.user?.session
    else { return }
    switch answer {
    case .secondFactorWithdrawn(let tokens):
      let s = after.user?.session
      let want = (tokens?.idToken ?? b.idToken, tokens?.refreshToken ?? b.refreshToken)
      if s?.uid != b.uid || s?.idToken != want.0 || s?.refreshToken != want.1 {
        out.append(
          Violation(
            .withdrawalOutcome,
            tokens == nil
              ? "\(b.uid)'s tokens changed after a withdrawal that brought none"
              : "\(b.uid)'s tokens after the withdrawal were not taken"))
      }
      if let t = tokens {
        let stored = effects.persist(refreshToken: t.refreshToken)
        if !stored {
          out.append(
            Violation(.withdrawalOutcome, "\(b.uid)'s tokens after the withdrawal were not stored"))
        }
      }
      if !effects.contains(.notify(notification: .secondFactorWithdrawn)) {
        out.append(Violation(.withdrawalOutcome, "the app was not told of the withdrawal"))
      }
      let reloads = effects.contains {
        if case .request(_, .lookupAccount(let token)) = $0 { return token == want.0 }
        return false
      }
      if !reloads {
        out.append(
          Violation(.withdrawalOutcome, "the account was not reloaded after the withdrawal"))
      }
    case .requestFailed(let error):
      waitsForReauthentication(
        .withdrawalOutcome, error, .withdrawSecondFactor(factor: factor), after, &out)
    }
  }

  /// An enrolment's new tokens: the same user's session holds them, and they are stored in the
  /// same step.
  static func enrolledTokens(
    _ invariant: Invariant, _ b: Session, _ t: Tokens, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    let s = after.user?.session
    if s?.uid != b.uid || s?.idToken != t.idToken || s?.refreshToken != t.refreshToken {
      out.append(Violation(invariant, "\(b.uid)'s tokens after the enrolment were not taken"))
    }
    if !effects.persist(refreshToken: t.refreshToken) {
      out.append(Violation(invariant, "\(b.uid)'s tokens after the enrolment were not stored"))
    }
  }

  /// A failure of a step that waits for a code: one that `ended` what waits leaves the machine
  /// `atRest`, any other leaves it as it was (`kept`).
  static func keptUnlessEnded(
    _ invariant: Invariant, _ error: AuthError, ended: Bool, kept: Bool, atRest: Bool,
    _ after: AuthMachine, ending: String, dropped: String, _ out: inout [Violation]
  ) {
    if ended, kept || !atRest {
      out.append(
        Violation(invariant, "\(error.code) ended \(ending), and \(after.stateName) followed"))
    } else if !ended, !kept {
      out.append(Violation(invariant, "\(error.code) dropped \(dropped)"))
    }
  }

  /// The codes that end an enrolment's session, restated from Docs/HTTP.md ("Enrolling a TOTP
  /// factor", "Enrolling a phone number") rather than read from the reducer, so a reducer that
  /// forgets one is caught.
  static let enrollmentOver: Set<String> = [
    "SESSION_EXPIRED", "INVALID_SESSION_INFO", "MISSING_SESSION_INFO",
    "TOO_MANY_ENROLLMENT_ATTEMPTS", "MFA_ENROLLMENT_ALREADY_COMPLETE",
  ]

  /// A TOTP enrolment's secret is sent back only with a code the app gave; enrolled, the new
  /// tokens are the same user's session and stored at once; a failure keeps the secret unless
  /// it ended the enrolment session (then rest) or the login is too old (then it waits for a
  /// reauthentication). Restated from Docs/StateMachine.md ("Enrolling an authenticator app").
  static func totpEnrollment(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    for case .request(_, .finalizeTotpEnrollment(_, let info, let code, _)) in effects {
      guard case .intent(.submitTotpEnrollmentCode(let given, _)) = event, given == code,
        case .totpEnrollment(let e) = before.phase, e.request == nil,
        e.secret.sessionInfo == info
      else {
        out.append(
          Violation(
            .totpEnrollmentOutcome, "a TOTP enrolment was finished without a code from the app"))
        continue
      }
    }
    guard case .answer(let answer) = event, let b = before.user?.session else { return }
    switch answer {
    case .startTotpEnrollment(let id, let a):
      guard case .accountFlow(let f) = before.phase, f.request == id,
        f.kind == .startTotpEnrollment
      else { return }
      switch a {
      case .totpSecretIssued(let secret):
        guard case .totpEnrollment(let e) = after.phase, e.secret == secret, e.request == nil
        else {
          return out.append(
            Violation(.totpEnrollmentOutcome, "the issued TOTP secret is not the one shown"))
        }
      case .requestFailed(let error):
        waitsForReauthentication(.totpEnrollmentOutcome, error, .enrollTotp, after, &out)
      }
    case .finalizeTotpEnrollment(let id, let a):
      guard case .totpEnrollment(let e) = before.phase, e.request == id else { return }
      switch a {
      case .totpEnrolled(let t):
        enrolledTokens(.totpEnrollmentOutcome, b, t, after, effects, &out)
      case .requestFailed(let error):
        switch error.kind {
        case .sessionDead: return  // `sessionDeadEnds` judges it.
        case .reauthenticate:
          waitsForReauthentication(.totpEnrollmentOutcome, error, .enrollTotp, after, &out)
        case .transient, .throttled, .user, .invalidIDToken:
          let kept: Bool
          if case .totpEnrollment(let k) = after.phase {
            kept = k.secret == e.secret && k.request == nil
          } else {
            kept = false
          }
          keptUnlessEnded(
            .totpEnrollmentOutcome, error, ended: Self.enrollmentOver.contains(error.code),
            kept: kept, atRest: after.stateName == .firebaseAuthenticated, after,
            ending: "the enrolment session", dropped: "the TOTP secret still valid", &out)
        }
      }
    default: return
    }
  }

  /// A phone enrolment texts the number the app gave, with its proof, and is finished only with
  /// a code the app gave for the session Firebase texted; enrolled, the new tokens are the same
  /// user's session and stored at once; a failure at the finish keeps waiting for a code unless
  /// it ended the enrolment session or the login is too old (then rest: the proof was spent);
  /// a login too old at the start waits for a reauthentication with the same number and proof.
  /// Restated from Docs/StateMachine.md ("Enrolling a phone number").
  static func phoneEnrollment(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    if case .intent(.cancelTapped) = event, case .phoneEnrollment(let e) = before.phase,
      e.request == nil, after.phase != .resting
    {
      out.append(Violation(.phoneEnrollmentOutcome, "a cancel kept the enrolment"))
    }
    for case .request(_, .startPhoneEnrollment(_, let number, let proof)) in effects {
      let asked: Bool
      switch event {
      case .intent(.enrollPhone(let n, let p)): asked = n == number && p == proof
      default:
        // A reauthentication resuming the enrolment: the number (and proof) that waited.
        asked =
          Behaviour.waitingOperation(before)
          == .enrollPhone(phoneNumber: number, appVerification: proof)
      }
      if !asked {
        out.append(
          Violation(
            .phoneEnrollmentOutcome, "a phone enrolment was started for a number nobody gave"))
      }
    }
    for case .request(_, .finalizePhoneEnrollment(_, let info, let code, _)) in effects {
      guard case .intent(.submitPhoneEnrollmentCode(let given, _)) = event, given == code,
        case .phoneEnrollment(let e) = before.phase, e.request == nil, e.sessionInfo == info
      else {
        out.append(
          Violation(
            .phoneEnrollmentOutcome, "a phone enrolment was finished without a code from the app"))
        continue
      }
    }
    guard case .answer(let answer) = event, let b = before.user?.session else { return }
    switch answer {
    case .startPhoneEnrollment(let id, let a):
      guard case .accountFlow(let f) = before.phase, f.request == id,
        f.kind == .startPhoneEnrollment, let operation = f.operation,
        case .enrollPhone(let number, _) = operation
      else { return }
      switch a {
      case .secondFactorCodeSent(let info):
        guard case .phoneEnrollment(let e) = after.phase, e.sessionInfo == info,
          e.phoneNumber == number, e.request == nil
        else {
          return out.append(
            Violation(.phoneEnrollmentOutcome, "the texted code's session is not the one awaited"))
        }
      case .requestFailed(let error):
        waitsForReauthentication(.phoneEnrollmentOutcome, error, operation, after, &out)
      }
    case .finalizePhoneEnrollment(let id, let a):
      guard case .phoneEnrollment(let e) = before.phase, e.request == id else { return }
      switch a {
      case .phoneEnrolled(let t):
        enrolledTokens(.phoneEnrollmentOutcome, b, t, after, effects, &out)
      case .requestFailed(let error):
        switch error.kind {
        case .sessionDead: return  // `sessionDeadEnds` judges it.
        case .transient, .throttled, .user, .invalidIDToken, .reauthenticate:
          let kept: Bool
          if case .phoneEnrollment(let k) = after.phase {
            kept =
              k.sessionInfo == e.sessionInfo && k.phoneNumber == e.phoneNumber
              && k.request == nil
          } else {
            kept = false
          }
          // A login too old ends it too: the proof was spent on the text.
          keptUnlessEnded(
            .phoneEnrollmentOutcome, error,
            ended: Self.enrollmentOver.contains(error.code) || error.kind == .reauthenticate,
            kept: kept, atRest: after.stateName == .firebaseAuthenticated, after,
            ending: "the enrolment session", dropped: "the enrolment still waiting", &out)
        }
      }
    default: return
    }
  }

  /// The codes that end a texted code's session, restated from Docs/HTTP.md ("Phone numbers").
  static let phoneCodeOver: Set<String> = [
    "SESSION_EXPIRED", "INVALID_SESSION_INFO", "MISSING_SESSION_INFO",
    "PHONE_NUMBER_EXISTS", "UNSUPPORTED_FIRST_FACTOR",
  ]

  /// A phone number's code is texted to the number the app gave with its proof, and checked
  /// only with a code the app gave, for the session Firebase texted, one at a time, linked to
  /// the user before; a sign-in's session is taken and stored, a link keeps the user; a wrong
  /// code keeps the texted session, one that ended it returns to rest. Restated from
  /// Docs/StateMachine.md ("Phone numbers").
  static func phoneSignIn(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    if case .intent(.cancelTapped) = event, case .phoneSignIn(let f) = before.phase,
      f.request == nil || f.sendingCode, after.phase != .resting
    {
      out.append(Violation(.phoneSignInOutcome, "a cancel kept the phone code's wait"))
    }
    for case .request(_, .sendVerificationCode(let number, let proof)) in effects {
      if case .phoneSignIn(let k) = after.phase, k.sessionInfo != nil,
        case .phoneSignIn(let f) = before.phase, f.phoneNumber != number
      {
        out.append(
          Violation(.phoneSignInOutcome, "a code texted to another number was kept for this one"))
      }
      guard case .intent(.sendPhoneCode(let n, let p)) = event, n == number, p == proof else {
        out.append(
          Violation(.phoneSignInOutcome, "a code was texted to a number the app did not give"))
        continue
      }
    }
    for case .request(_, .signInWithPhoneNumber(let info, let code, let linkTo)) in effects {
      guard case .intent(.submitPhoneCode(let given)) = event, given == code,
        case .phoneSignIn(let f) = before.phase, f.request == nil, f.sessionInfo == info,
        linkTo == before.user?.session.idToken
      else {
        out.append(
          Violation(
            .phoneSignInOutcome,
            "a phone code was checked without the app's code, its texted session or the user before"
          ))
        continue
      }
    }
    if case .answer(.sendVerificationCode(let id, let answer)) = event,
      case .phoneSignIn(let f) = before.phase, f.request == id, f.sendingCode
    {
      var waits: String?  // The texted session the machine awaits a code for after the step.
      if case .phoneSignIn(let k) = after.phase, k.request == nil, k.phoneNumber == f.phoneNumber {
        waits = k.sessionInfo
      }
      switch answer {
      case .verificationCodeSent(let info):
        if waits != info {
          out.append(
            Violation(.phoneSignInOutcome, "the new text's session is not the one awaited"))
        }
      case .requestFailed(let error):
        // A failed new text leaves the code texted before usable; with none, back to rest.
        if error.kind == .sessionDead, before.user != nil { return }
        if let earlier = f.sessionInfo, waits != earlier {
          out.append(
            Violation(.phoneSignInOutcome, "a failed new text dropped the code texted before"))
        } else if f.sessionInfo == nil, after.phase != .resting {
          out.append(
            Violation(.phoneSignInOutcome, "a failed first text left \(after.stateName)"))
        }
      }
      return
    }
    guard case .answer(.signInWithPhoneNumber(let id, let answer)) = event,
      case .phoneSignIn(let f) = before.phase, f.request == id, !f.sendingCode
    else { return }
    switch answer {
    case .signedIn(let s):
      if let b = before.user?.session {
        if after.user?.session.uid != b.uid {
          out.append(
            Violation(.phoneSignInOutcome, "adding a phone number changed who is signed in"))
        }
      } else if after.user?.session.uid != s.uid || !effects.persist(refreshToken: s.refreshToken) {
        out.append(
          Violation(.phoneSignInOutcome, "the phone sign-in's session was not taken and stored"))
      }
    case .phoneNumberInUse(let number, let proof):
      // The user stays as they were; a guest is offered the number's owner with Firebase's
      // proof (by the migration policy), anyone else is told.
      if after.user != before.user {
        out.append(
          Violation(.phoneSignInOutcome, "another account's number changed the user at once"))
      }
      let given = OwnerProof.phoneNumber(PhoneProof(phoneNumber: number, temporaryProof: proof))
      let offered: Bool
      switch after.phase {
      case .migrationRequired(let o): offered = o.proof == given
      case .migrating(let m): offered = m.proof == given
      default: offered = false
      }
      let told = effects.contains(.notify(notification: .error(error: .phoneNumberExists)))
      if before.user?.session.anonymous == true {
        // Told only when the app's policy is to stay a guest; offered otherwise.
        let staying = after.policy.migration == .stayAnonymous
        if staying ? !(told && after.phase == .resting) : !offered {
          out.append(
            Violation(
              .phoneSignInOutcome,
              staying
                ? "a guest staying one was not told of another account's number"
                : "a guest meeting another account's number was not offered its owner"))
        }
      } else if offered || after.phase != .resting || (before.user != nil && !told) {
        out.append(
          Violation(
            .phoneSignInOutcome,
            "another account's number was not refused at rest (\(after.stateName))"))
      }
    case .requestFailed(let error):
      if error.kind == .sessionDead, before.user != nil { return }  // `sessionDeadEnds` judges it.
      let kept: Bool
      if case .phoneSignIn(let k) = after.phase {
        kept = k.sessionInfo == f.sessionInfo && k.phoneNumber == f.phoneNumber && k.request == nil
      } else {
        kept = false
      }
      keptUnlessEnded(
        .phoneSignInOutcome, error, ended: Self.phoneCodeOver.contains(error.code), kept: kept,
        atRest: after.phase == .resting, after, ending: "the texted code's session",
        dropped: "the texted code still valid", &out)
    }
  }

  /// The credential kept after Firebase's `needConfirmation` is linked at once to the account
  /// the user then signs in to, when its email is the credential's, and to nothing else; it never
  /// signs anyone in; a flow that ends without a session comes back to the wait; a cancel of the
  /// wait keeps nothing. Restated from Docs/StateMachine.md ("Another way in").
  static func pendingLink(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    // A sign-in's (nobody signed in) `needConfirmation` and a guest's upgrade's `EMAIL_EXISTS`
    // wait with the credential sent and the user before; the upgrade's `needConfirmation` is
    // reported, the guest as before.
    if case .answer(.signInWithIdp(let id, _)) = event, case .providerFlow(let f) = before.phase,
      f.request == id, f.purpose != .signIn, f.purpose != .upgrade,
      case .accountExists = after.phase
    {
      // A link or a reauthentication is for a signed-in user: nothing to wait for.
      out.append(
        Violation(.pendingCredentialLinked, "a link or a reauthentication waits for an account"))
    }
    if case .answer(.signInWithIdp(let id, let answer)) = event,
      case .providerFlow(let f) = before.phase, f.request == id, let sent = f.credential,
      f.purpose == .signIn || f.purpose == .upgrade
    {
      var found = false
      if case .accountExistsWithDifferentCredential = answer {
        found = f.purpose == .signIn
        if f.purpose == .upgrade {
          var reported = false
          for case .notify(.error(let e)) in effects where e.code == "NEED_CONFIRMATION" {
            reported = true
          }
          if case .accountExists = after.phase { reported = false }
          if !reported || after.user != before.user {
            out.append(
              Violation(
                .pendingCredentialLinked,
                "a guest's upgrade answered needConfirmation is not reported with the guest kept"))
          }
        }
      }
      // The email the wait keeps: a needConfirmation's, or EMAIL_EXISTS's detail when it is an
      // address, else the credential's.
      var email = sent.email
      if case .accountExistsWithDifferentCredential(let e, _) = answer { email = e }
      if case .requestFailed(let e) = answer, e.code == "EMAIL_EXISTS", f.purpose == .upgrade {
        found = true
        email = AuthMachine.address(e.message) ?? sent.email
      }
      if found {
        let waits: Bool
        if case .accountExists(let l) = after.phase {
          waits =
            l.credential == sent && l.guest == before.user?.session.uid
            && after.user == before.user && l.email == email
        } else {
          waits = false
        }
        if !waits {
          out.append(
            Violation(
              .pendingCredentialLinked,
              "\(f.purpose == .upgrade ? "a guest's upgrade" : "a sign-in") that met an account "
                + "with the email does not wait with the credential, its email and the user before")
          )
        }
      }
    }
    var waiting = before.pendingLink
    if case .accountExists(let link) = before.phase { waiting = link }
    guard let link = waiting else { return }
    let provider = link.credential.provider
    for case .request(_, .signInWithIdp(let c, nil)) in effects where c == link.credential {
      out.append(
        Violation(.pendingCredentialLinked, "the waiting \(provider) credential signed someone in"))
    }
    // Who waits: nobody, or the guest whose upgrade met the account (kept as they were).
    let guest = link.guest
    if case .intent(.cancelTapped) = event, case .accountExists = before.phase {
      if after.pendingLink != nil || after.stateName != (guest == nil ? .signedOut : .anonymous)
        || after.user?.session != before.user?.session
      {
        out.append(
          Violation(
            .pendingCredentialLinked,
            "a cancelled wait kept the \(provider) credential or changed the user before"))
      }
      return
    }
    if before.user?.session.uid == guest, after.user?.session.uid == guest,
      case .resting = after.phase, !Invariants.isStoreChange(event), !isSignOut(event)
    {
      out.append(
        Violation(
          .pendingCredentialLinked,
          "a sign-in from the wait ended without a session and dropped the \(provider) credential"))
    }
    if let guest, before.user?.session.uid == guest, let owner = after.user?.session,
      owner.uid != guest, !Invariants.isStoreChange(event),
      owner.pendingCleanup?.uid != guest
    {
      out.append(
        Violation(
          .pendingCredentialLinked,
          "\(owner.uid) signed in from the guest's wait without taking the guest's data"))
    }
    guard before.user?.session.uid == guest, let session = after.user?.session,
      session.uid != guest, !Invariants.isStoreChange(event)
    else { return }
    let sameEmail = link.email.map { $0.lowercased() == session.email?.lowercased() } ?? true
    let linked = effects.contains {
      switch $0 {
      case .request(_, .signInWithIdp(let c, let linkTo)):
        return c == link.credential && linkTo == session.idToken
      case .request(_, .authorize(let p, .link, _)): return p == provider
      default: return false
      }
    }
    if sameEmail, !linked {
      out.append(
        Violation(
          .pendingCredentialLinked,
          "\(session.uid) signed in from the wait and the \(provider) credential was not linked"))
    }
    if !sameEmail, linked {
      out.append(
        Violation(
          .pendingCredentialLinked,
          "the \(provider) credential for \(link.email ?? "?") was linked to \(session.email ?? "an account without an email")"
        ))
    }
    if !sameEmail, !effects.contains(where: { if case .notify = $0 { true } else { false } }) {
      out.append(
        Violation(
          .pendingCredentialLinked, "the \(provider) credential was dropped without a word"))
    }
  }

  static func isSignOut(_ event: Event) -> Bool {
    if case .intent(.signOutTapped) = event { return true }
    return false
  }

  /// A second-factor challenge is answered one request at a time, with its own pending
  /// credential, only with what the app gave; a wrong code keeps it; once it ended it is never
  /// answered again. Restated from Docs/StateMachine.md ("Second factors").
  static func secondFactor(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    var sent = 0
    for case .request(_, let request) in effects {
      let pending: String
      let factor: String
      switch request {
      case .startSecondFactorSignIn(let p, let f, let proof):
        (pending, factor) = (p, f)
        guard case .intent(.sendSecondFactorCode(f, proof)) = event else {
          out.append(
            Violation(
              .secondFactorAnsweredOnce, "a code was texted for \(f) without the app asking"))
          continue
        }
      case .finalizeSecondFactorSignIn(let p, let f, let info, let code, _):
        (pending, factor) = (p, f)
        guard case .intent(.submitSecondFactorCode(f, code)) = event else {
          out.append(
            Violation(
              .secondFactorAnsweredOnce,
              "a second factor's code was sent for \(f) without the app giving it"))
          continue
        }
        if case .secondFactor(let step) = before.phase,
          let chosen = step.challenge.factors.first(where: { $0.id == f })
        {
          let expected =
            chosen.kind == .phone ? step.codeSent.map { ($0.factor, $0.sessionInfo) } : nil
          if chosen.kind == .phone, expected?.0 != f || expected?.1 != info {
            out.append(
              Violation(
                .secondFactorAnsweredOnce,
                "a phone factor's code was sent without the sessionInfo texted for it"))
          }
          if chosen.kind == .totp, info != nil {
            out.append(
              Violation(.secondFactorAnsweredOnce, "a TOTP code was sent with a sessionInfo"))
          }
        }
      default: continue
      }
      sent += 1
      guard case .secondFactor(let step) = before.phase, step.request == nil,
        step.challenge.pendingCredential == pending,
        step.challenge.factors.contains(where: { $0.id == factor })
      else {
        out.append(
          Violation(
            .secondFactorAnsweredOnce,
            "a pending credential was sent outside its own idle challenge, or for a factor it "
              + "does not offer"))
        continue
      }
    }
    if sent > 1 {
      out.append(Violation(.secondFactorAnsweredOnce, "\(sent) second-factor requests in one step"))
    }
    if case .intent(.cancelTapped) = event, case .secondFactor(let step) = before.phase {
      // A cancel at any step drops the challenge: back to where the flow started.
      if case .secondFactor(let next) = after.phase,
        next.challenge.pendingCredential == step.challenge.pendingCredential
      {
        out.append(Violation(.secondFactorAnsweredOnce, "a cancel kept the challenge"))
      }
    }
    guard let answer = event.answer, case .secondFactor(let step) = before.phase,
      step.request == answer.id
    else { return }
    let stillHeld: Bool = {
      if case .secondFactor(let next) = after.phase {
        return next.challenge.pendingCredential == step.challenge.pendingCredential
      }
      return false
    }()
    let ended: Bool
    switch answer {
    case .finalizeSecondFactorSignIn(_, .signedIn): ended = true
    case .finalizeSecondFactorSignIn(_, .requestFailed(let e)),
      .startSecondFactorSignIn(_, .requestFailed(let e)):
      ended = e.kind == .sessionDead || challengeEndingCodes.contains(e.code)
      if e.code == "SESSION_EXPIRED" || e.code == "INVALID_SESSION_INFO",
        case .secondFactor(let next) = after.phase, next.codeSent != nil
      {
        out.append(
          Violation(
            .secondFactorAnsweredOnce, "an expired texted code was kept to be sent again"))
      }
      if e.code == "INVALID_CODE", !stillHeld {
        out.append(
          Violation(
            .secondFactorAnsweredOnce, "a wrong code ended the challenge (the user may retry)"))
      }
    default: ended = false
    }
    if ended, stillHeld {
      out.append(
        Violation(
          .secondFactorAnsweredOnce,
          "\(answer.outcomeName) ended the challenge, yet the machine still holds it"))
    }
  }

  /// The answers that end a second-factor challenge (Docs/StateMachine.md and Docs/HTTP.md).
  static let challengeEndingCodes: Set<String> = [
    "INVALID_MFA_PENDING_CREDENTIAL", "TOTP_CHALLENGE_TIMEOUT", "INVALID_PENDING_TOKEN",
    "INVALID_MFA_ENROLLMENT_ID", "MFA_ENROLLMENT_NOT_FOUND", "MISSING_CREDENTIAL",
    "MISSING_MFA_PENDING_CREDENTIAL",
  ]

  /// The address an email link signs in with, and the address the machine keeps for it.
  static func emailLink(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    if case .intent(.signInWithEmailLink(let code, let given)) = event,
      case .resting = before.phase,
      before.user?.session.anonymous ?? true
    {
      let sent = effects.compactMap { e -> (String, String)? in
        if case .request(_, .signInWithEmailLink(let email, let c, _)) = e { return (email, c) }
        return nil
      }
      if let address = given ?? before.emailLinkAddress {
        if sent.count != 1 || sent[0].0 != address || sent[0].1 != code {
          out.append(
            Violation(
              .emailLinkAddressKept,
              "a link sign-in was not sent once with its code and the "
                + (given == nil ? "address the link was sent to" : "address the app gave")))
        }
      } else if !sent.isEmpty || !effects.contains(.notify(notification: .emailNeededForLink)) {
        out.append(
          Violation(
            .emailLinkAddressKept,
            "a link opened with no address known did not ask the app for it (or sent anyway)"))
      }
    }
    var expected = before.emailLinkAddress
    if case .answer(let answer) = event, case .emailFlow(let f) = before.phase,
      f.request == answer.id
    {
      if case .sendSignInLink(_, .signInLinkSent) = answer, f.kind == .sendSignInLink {
        expected = f.email
      }
    }
    if after.user?.session.anonymous == false { expected = nil }
    if after.emailLinkAddress != expected {
      out.append(
        Violation(
          .emailLinkAddressKept,
          after.emailLinkAddress == nil
            ? "the address a sign-in link was sent to was dropped before the link was used"
            : after.user?.session.anonymous == false
              ? "a permanent account is signed in and a sign-in link's address is still kept"
              : "the machine keeps an address no sign-in link was sent to"))
    }
  }

  /// A violation of `invariant` when a too-old-login refusal of `operation` did not leave it
  /// waiting in `reauthenticationRequired`.
  static func waitsForReauthentication(
    _ invariant: Invariant, _ error: AuthError, _ operation: SensitiveOperation,
    _ after: AuthMachine, _ out: inout [Violation]
  ) {
    guard error.kind == .reauthenticate else { return }
    if case .reauthenticationRequired(operation) = after.phase { return }
    out.append(
      Violation(
        invariant,
        "\(error.code) left \(after.stateName), not the change waiting for reauthentication"))
  }

  /// An email change is verified first: its answer never changes the session or the store (the
  /// email changes when the mailed link is applied); a login too old for it keeps the change
  /// waiting for a reauthentication.
  static func emailChange(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    guard case .answer(.sendEmailChangeVerification(let id, let answer)) = event,
      case .accountFlow(let f) = before.phase, f.request == id, f.kind == .changeEmail,
      let b = before.user?.session
    else { return }
    switch answer {
    case .verificationEmailSent:
      if after.user?.session != b {
        out.append(
          Violation(
            .emailChangeVerifiedFirst, "the session changed before the new address was verified"))
      }
      if effects.writeTheStore {
        out.append(
          Violation(
            .emailChangeVerifiedFirst, "the store was written before the new address was verified"))
      }
    case .requestFailed(let error):
      waitsForReauthentication(
        .emailChangeVerifiedFirst, error, .changeEmail(newEmail: f.operation?.newEmail ?? ""),
        after, &out)
    }
  }

  /// A changed password's new tokens are taken and stored at once; a login too old for it
  /// keeps the new password waiting for a reauthentication.
  static func passwordChange(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    guard case .answer(.updatePassword(let id, let answer)) = event,
      case .accountFlow(let f) = before.phase, f.request == id, f.kind == .changePassword,
      let b = before.user?.session
    else { return }
    switch answer {
    case .passwordChanged(let s) where s.uid == b.uid:
      let a = after.user?.session
      if a?.idToken != s.idToken || a?.refreshToken != s.refreshToken {
        out.append(
          Violation(.passwordChangeStoresTokens, "\(b.uid)'s new tokens were not taken"))
      }
      let stored = effects.persist(refreshToken: s.refreshToken)
      if !stored {
        out.append(
          Violation(.passwordChangeStoresTokens, "\(b.uid)'s new tokens were not stored"))
      }
    case .passwordChanged: return
    case .requestFailed(let error):
      waitsForReauthentication(
        .passwordChangeStoresTokens, error,
        .changePassword(newPassword: f.operation?.newPassword ?? ""), after, &out)
    }
  }

  /// A custom token's answer, with someone signed in, keeps that someone.
  static func customToken(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    guard case .answer(.signInWithCustomToken(let id, let answer)) = event,
      case .accountFlow(let f) = before.phase, f.request == id, f.kind == .customTokenSignIn,
      let b = before.user?.session
    else { return }
    guard let a = after.user?.session, a.uid == b.uid else {
      return out.append(
        Violation(
          .customTokenKeepsUser,
          "a custom token's answer left \(after.user?.session.uid ?? "nobody") for \(b.uid)"))
    }
    switch answer {
    case .signedIn(let s) where s.uid == b.uid:
      if a.idToken != s.idToken || a.refreshToken != s.refreshToken {
        out.append(
          Violation(.customTokenKeepsUser, "\(b.uid)'s custom token's tokens were not taken"))
      }
    case .signedIn(let s):
      if a != b || effects.writeTheStore {
        out.append(
          Violation(.customTokenKeepsUser, "\(s.uid)'s custom token changed \(b.uid)'s session"))
      }
      if !effects.contains(.notify(notification: .userMismatch)) {
        out.append(
          Violation(.customTokenKeepsUser, "\(s.uid)'s custom token was refused without a word"))
      }
    case .requestFailed:
      if a != b || effects.writeTheStore {
        out.append(Violation(.customTokenKeepsUser, "a refused custom token changed the session"))
      }
    }
  }

  /// An action code is the app's to send, and no verdict on the session.
  static func actionCode(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    for case .request(_, .sendVerificationEmail(let token)) in effects
    where before.user?.session.email == nil || before.user?.session.idToken != token {
      out.append(
        Violation(
          .verificationMailHasAnAddress,
          "a verification mail was asked for without a signed-in account with an address"))
    }
    for case .request(_, let request) in effects {
      let given: String?
      switch event {
      case .intent(.applyActionCode(let c)), .intent(.checkActionCode(let c)),
        .intent(.confirmPasswordReset(let c, _)):
        given = c
      default: given = nil
      }
      let sent: String?
      switch request {
      case .applyActionCode(let c), .checkActionCode(let c), .confirmPasswordReset(let c, _):
        sent = c
      default: sent = nil
      }
      if let sent, sent != given {
        out.append(
          Violation(.actionCodeKeepsSession, "an action code was sent without the app giving it"))
      }
    }
    guard let answer = event.answer, case .accountFlow(let f) = before.phase,
      f.request == answer.id, f.kind.isActionCode
    else { return }
    let b = before.user?.session
    if after.user?.session.uid != b?.uid || effects.contains(.clearSession) {
      out.append(
        Violation(.actionCodeKeepsSession, "the answer to an action code changed who is signed in"))
    }
    guard case .applyActionCode(_, .actionCodeApplied(let email, let verified)) = answer, let b
    else { return }
    if verified, let email, b.email == email, !b.emailVerified {
      if after.user?.session.emailVerified != true {
        out.append(
          Violation(
            .actionCodeKeepsSession, "\(b.uid)'s address was verified and the session says not"))
      }
      if after.user?.refreshRequest == nil {
        out.append(
          Violation(
            .actionCodeKeepsSession,
            "\(b.uid)'s address was verified and no fresh ID token was asked for"))
      }
    }
    if b.email != email, after.user?.session.emailVerified != b.emailVerified {
      out.append(
        Violation(
          .actionCodeKeepsSession, "another account's code changed \(b.uid)'s verification"))
    }
  }

  /// A reload's answer takes the server's profile and nothing else, written only when it
  /// changed something.
  static func reload(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    guard case .answer(.lookupAccount(let id, .accountReloaded(let profile))) = event,
      case .accountFlow(let f) = before.phase, f.request == id, f.kind == .reload,
      let b = before.user?.session
    else { return }
    var expected = b
    expected.email = profile.email
    expected.emailVerified = profile.emailVerified
    expected.providers = profile.providers
    expected.displayName = profile.displayName ?? b.displayName
    expected.photoURL = profile.photoURL
    if let factors = profile.secondFactors { expected.secondFactors = factors }
    takesProfile(.reloadTakesTheProfile, "reload", b, expected, after, effects, &out)
  }

  /// A profile update takes the server's display name and photo URL and nothing else.
  static func profileUpdate(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    guard case .answer(.updateProfile(let id, .profileUpdated(let profile))) = event,
      case .accountFlow(let f) = before.phase, f.request == id, f.kind == .updateProfile,
      let b = before.user?.session
    else { return }
    var expected = b
    expected.displayName = profile.displayName
    expected.photoURL = profile.photoURL
    takesProfile(.profileUpdateTaken, "profile update", b, expected, after, effects, &out)
  }

  /// A violation of `invariant` unless the answered `flow` left the machine resting with the
  /// `expected` session, written once when it differs from `b`, and not written otherwise.
  static func takesProfile(
    _ invariant: Invariant, _ flow: String, _ b: Session, _ expected: Session,
    _ after: AuthMachine, _ effects: [Effect], _ out: inout [Violation]
  ) {
    let writes = effects.compactMap { e -> Session? in
      if case .persistSession(let s) = e { return s }
      return nil
    }
    if after.user?.session != expected {
      out.append(
        Violation(
          invariant,
          "after the \(flow) \(b.uid)'s session is not the stored one with the server's profile"))
    }
    if expected == b, !writes.isEmpty {
      out.append(Violation(invariant, "a \(flow) that changed nothing wrote"))
    }
    if expected != b, writes != [expected] {
      out.append(
        Violation(
          invariant,
          "a \(flow) that changed the profile wrote \(writes.count) sessions, not the new one once")
      )
    }
    if case .resting = after.phase {
    } else {
      out.append(Violation(invariant, "an answered \(flow) left \(after.stateName)"))
    }
  }

  static func schedules(_ effects: [Effect], _ timer: TimerID) -> Bool {
    effects.contains {
      if case .scheduleTimer(timer, _) = $0 { return true }
      return false
    }
  }

  /// An early timer is armed again or its work starts; never dropped.
  static func earlyTimer(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ now: Instant, _ out: inout [Violation]
  ) {
    guard case .timerFired(let timer) = event else { return }
    switch timer {
    case .tokenRefresh:
      // A signed-in user whose token is not being refreshed must have the timer again.
      guard before.user != nil, let user = after.user, user.refreshRequest == nil else { return }
      if !schedules(effects, .tokenRefresh) {
        out.append(
          Violation(
            .earlyTimerRearmed,
            "tokenRefresh fired in \(before.stateName) and neither a refresh nor the timer followed"
          ))
      }
    case .restoreRetry:
      guard case .restoring(let r) = before.phase, r.retryAt != nil else { return }
      let reads = effects.contains {
        if case .loadSession = $0 { return true }
        return false
      }
      if !reads, !schedules(effects, .restoreRetry) {
        out.append(
          Violation(
            .earlyTimerRearmed,
            "restoreRetry fired before the retry was due and neither a read nor the timer followed"
          ))
      }
    }
  }

  /// An older write of the same user's never replaces the newer tokens.
  static func olderWrite(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ out: inout [Violation]
  ) {
    guard case .storeChanged(let stored?) = event, let current = before.user?.session,
      stored.uid == current.uid, stored.expiresAt < current.expiresAt,
      let now = after.user?.session
    else { return }
    if now.idToken != current.idToken || now.refreshToken != current.refreshToken {
      out.append(
        Violation(
          .olderWriteIgnored,
          "another process's older write of \(stored.uid) replaced newer tokens"))
    }
  }

  /// A failure answering a migration's sign-in keeps the anonymous user and their session.
  static func migrationFailure(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ awaitedBefore: Awaited, _ out: inout [Violation]
  ) {
    guard Invariants.isMigrating(before), let a = event.answer, a.id == awaitedBefore.flow,
      let error = a.error, let anonymous = before.user?.session
    else { return }
    let kept = after.user?.session
    if kept?.uid != anonymous.uid || kept?.anonymous != true {
      out.append(
        Violation(
          .migrationFailureKeepsAnonymous,
          "\(error.code) answering the migration's sign-in left \(kept?.uid ?? "nobody") "
            + "instead of the anonymous \(anonymous.uid)"))
    }
    for effect in effects {
      switch effect {
      case .clearSession, .request(_, .deleteAccount), .notify(.signedOutAfterError),
        .notify(.sessionExpired):
        out.append(
          Violation(
            .migrationFailureKeepsAnonymous,
            "\(error.code) answering the migration's sign-in led to \(effect.name)"))
      default: break
      }
    }
  }

  /// The conflict is retried with its own credential; reauthorized at most once.
  static func conflictRetry(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    // Where a migration starts: the app's decision on an offer, or a policy that decides.
    var conflict: IdPCredential?
    if case .migrationRequired(let offer) = before.phase,
      case .intent(.migrationDecided(let choice)) = event, choice != .stayAnonymous
    {
      conflict = offer.credential
    }
    if case .answer(.signInWithIdp(_, .credentialAlreadyInUse(let c, _))) = event,
      case .migrating = after.phase, !isMigrating(before)
    {
      conflict = c
    }
    let sent = effects.compactMap { e -> IdPCredential? in
      if case .request(_, .signInWithIdp(let c, _)) = e { return c }
      return nil
    }
    // A migration asks the provider to sign in (a link resumed beside it asks to link).
    let asked = effects.contains {
      if case .request(_, .authorize(_, .signIn, _)) = $0 { return true }
      return false
    }
    if let conflict {
      let traits = after.policy.providers[conflict.provider]
      let retryable =
        conflict.idToken != nil || conflict.accessToken != nil || conflict.pendingToken != nil
        || conflict.requestUri != nil
      if retryable || traits.afterLinkConflict == .signInWithUpdatedCredential {
        if sent != [conflict] {
          out.append(
            Violation(
              .conflictRetry,
              "the migration did not sign in with the conflict answer's own credential"))
        }
      } else if !asked {
        out.append(
          Violation(
            .conflictRetry,
            "the conflict answer has nothing to retry with and \(conflict.provider) was not asked again"
          ))
      }
      for c in sent where c.rawNonce != nil {
        out.append(Violation(.conflictRetry, "the conflict's retry carries a nonce"))
      }
    }
    // A phone number's conflict: the migration signs in with Firebase's proof for the number,
    // once, when it starts, and with nothing else.
    var phoneConflict: PhoneProof?
    if case .migrationRequired(let offer) = before.phase,
      case .intent(.migrationDecided(let choice)) = event, choice != .stayAnonymous,
      case .phoneNumber(let p) = offer.proof
    {
      phoneConflict = p
    }
    if case .answer(.signInWithPhoneNumber(_, .phoneNumberInUse(let number, let proof))) = event,
      case .migrating = after.phase, !isMigrating(before)
    {
      phoneConflict = PhoneProof(phoneNumber: number, temporaryProof: proof)
    }
    var proofsSent: [PhoneProof] = []  // Allocates only when one is sent.
    for case .request(_, .signInWithTemporaryProof(let p)) in effects { proofsSent.append(p) }
    if let phoneConflict, proofsSent != [phoneConflict] || !sent.isEmpty || asked {
      out.append(
        Violation(
          .conflictRetry, "the phone number's migration did not sign in with Firebase's proof"))
    } else if phoneConflict == nil, !proofsSent.isEmpty {
      out.append(
        Violation(.conflictRetry, "a phone number's proof was sent outside a migration's start"))
    }
    // Asked again within a migration: at most once, and remembered.
    if case .migrating(let m) = before.phase, asked {
      if m.reauthorized {
        out.append(
          Violation(.conflictRetry, "\(m.provider) asked again a second time in one migration"))
      }
      if after.policy.providers[m.provider].afterLinkConflict != .retryThenReauthorize {
        out.append(
          Violation(
            .conflictRetry,
            "\(m.provider) asked again although its traits sign in with the updated credential"))
      }
    }
    // A credential the consent step delivered within a migration is the fresh one: remembered.
    if case .migrating(let m) = before.phase, m.credential == nil,
      case .migrating(let n) = after.phase, n.credential != nil, !n.reauthorized
    {
      out.append(
        Violation(
          .conflictRetry, "a migration signed in with a fresh authorization and did not remember it"
        ))
    }
    if asked, case .migrating(let m) = after.phase, !m.reauthorized {
      out.append(
        Violation(.conflictRetry, "a migration asked the provider again and did not remember it"))
    }
  }

  static func isMigrating(_ machine: AuthMachine) -> Bool {
    if case .migrating = machine.phase { return true }
    return false
  }

  /// A delivered credential is sent as delivered; a name in the session is kept.
  static func names(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    if let delivered = event.answer?.authorizedCredential {
      for case .request(_, .signInWithIdp(let c, _)) in effects where c != delivered {
        let lostName =
          (delivered.givenName != nil && c.givenName == nil)
          || (delivered.familyName != nil && c.familyName == nil)
        out.append(
          Violation(
            .nameKept,
            lostName
              ? "the name \(delivered.provider) gave was not sent with its sign-in"
              : "the credential \(delivered.provider) delivered was altered before it was sent"))
      }
    }
    // A provider's first factor that met a second factor: its name waits in the step and goes
    // with the finalize, exactly.
    if case .answer(.signInWithIdp(let id, .secondFactorRequired)) = event,
      case .secondFactor(let step) = after.phase
    {
      var sent: IdPCredential?
      switch before.phase {
      case .providerFlow(let f) where f.request == id: sent = f.credential
      case .migrating(let m) where m.request == id: sent = m.credential
      case .deletingAccount(let d) where d.request == id:
        if case .reauthenticating(let c) = d.step { sent = c }
      default: break
      }
      if step.displayName != sent?.fullName {
        out.append(
          Violation(
            .nameKept,
            sent?.fullName == nil
              ? "a second factor's step holds a name its first factor did not carry"
              : "the name \(sent?.provider.rawValue ?? "the provider") gave was not kept for the "
                + "second factor"))
      }
    }
    for case .request(_, .finalizeSecondFactorSignIn(_, _, _, _, let name)) in effects {
      guard case .secondFactor(let step) = before.phase else { continue }
      if name != step.displayName {
        out.append(
          Violation(
            .nameKept,
            step.displayName == nil
              ? "a second factor's finalize sent a name nobody gave"
              : "the name the first factor's provider gave was not sent with the finalize"))
      }
    }
    // Only the user removes a name: a profile update the server answered.
    var removedByTheUser = false
    if case .answer(.updateProfile(let id, .profileUpdated)) = event,
      case .accountFlow(let f) = before.phase, f.kind == .updateProfile, f.request == id
    {
      removedByTheUser = true
    }
    if !removedByTheUser, let name = before.user?.session.displayName, let s = after.user?.session,
      s.uid == before.user?.session.uid, s.displayName == nil
    {
      out.append(
        Violation(.nameKept, "\(s.uid)'s name (\(name.count) characters) was dropped"))
    }
  }
}

extension [Effect] {
  /// Whether these effects write the store: persist a session or clear it.
  var writeTheStore: Bool {
    contains {
      switch $0.kind {
      case .persistSession, .clearSession: true
      default: false
      }
    }
  }

  /// Whether these effects persist a session holding `refreshToken`.
  func persist(refreshToken: String) -> Bool {
    contains {
      if case .persistSession(let s) = $0 { return s.refreshToken == refreshToken }
      return false
    }
  }
}
