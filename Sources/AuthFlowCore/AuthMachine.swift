/// The whole sign-in model as a value: feed it events, execute the effects it returns.
///
/// The machine is pure: time comes in as an argument and request ids come from a counter kept
/// here, so the same events at the same instants always give the same states and effects.
///
/// Its layout: the signed-in `user` (session, token status, cleanup request) lives beside a
/// small `phase`, so transitions edit the user in place instead of copying it in and out of
/// enum cases; `state` joins the two into the view apps and scenario files read.
public struct AuthMachine: Hashable, Sendable {
  /// The configuration the machine acts on, with every number in its documented range.
  public var policy: Policy {
    @inlinable _read { yield settled.value.policy }
  }
  /// Who is signed in and where their token refresh stands; `nil` when nobody is.
  public internal(set) var user: SignedInUser?
  /// What the machine is doing on top of `user`.
  public internal(set) var phase: Phase {
    @inlinable _read { yield boxedPhase.value }
    @inlinable _modify { yield &boxedPhase.value }
  }
  /// The phase, in a copy-on-write box: a copy of the machine (every step of the model checker
  /// makes one) moves one pointer instead of the phase's payloads, and a step that leaves the
  /// phase alone compares it by identity.
  @usableFromInline var boxedPhase: CopyOnWrite<Phase>
  /// The id the next request effect gets.
  public internal(set) var nextRequestID: RequestID
  /// The address the last sign-in link was mailed to, while nobody or a guest is signed in: the
  /// link's sign-in needs it (Firebase checks it is the address the link went to). Another link
  /// replaces it; once a permanent account is signed in (by the link or any other way) it is
  /// forgotten. It lives in this process only; a relaunch asks the app for it again.
  public internal(set) var emailLinkAddress: String? {
    @inlinable _read { yield settled.value.emailLinkAddress }
    set {
      if newValue != settled.value.emailLinkAddress { settled.value.emailLinkAddress = newValue }
    }
  }
  /// While the user signs in to an account from `accountExists` (the other way in): the
  /// provider credential to link to it once signed in. A sign-in that ends without a session
  /// returns to `accountExists` with it.
  public internal(set) var pendingLink: PendingLink? {
    @inlinable _read { yield settled.value.pendingLink }
    set { if newValue != settled.value.pendingLink { settled.value.pendingLink = newValue } }
  }
  /// The policy, the address and the pending link: what most steps leave alone, in one
  /// copy-on-write box, so a copy of the machine retains one reference for the three. A write
  /// of the value already held changes nothing, so it does not copy a shared box.
  @usableFromInline var settled: CopyOnWrite<Settled>

  /// The fields `settled` holds.
  @usableFromInline struct Settled: Hashable, Sendable {
    @usableFromInline var policy: Policy
    @usableFromInline var emailLinkAddress: String?
    @usableFromInline var pendingLink: PendingLink?
  }

  /// A machine in `starting`, waiting for `appLaunched`.
  public init(policy: Policy = Policy()) {
    self.settled = CopyOnWrite(
      Settled(policy: policy.sanitized, emailLinkAddress: nil, pendingLink: nil))
    self.user = nil
    self.boxedPhase = CopyOnWrite(.starting)
    self.nextRequestID = 1
  }

  /// Where the machine is, as one value (built on demand from `phase` and `user`).
  public var state: AuthState { AuthState(phase: phase, user: user) }

  /// The signed-in user's session, if any: `user?.session` read in place. The optional user is
  /// switched on where it is stored instead of copied first: this compiler copies an optional
  /// struct through the runtime's generic value witness, which costs many times the one retain
  /// that copying the session costs.
  var userSession: Session? {
    switch user {
    case .some(let u): return u.session
    case .none: return nil
    }
  }

  /// Equal when every stored field is, as the derived equality is; asked cheapest first, and
  /// the users compared where they are stored (see `userSession`): the derived one copied both
  /// optional users to compare them.
  public static func == (a: AuthMachine, b: AuthMachine) -> Bool {
    guard a.nextRequestID == b.nextRequestID, a.boxedPhase == b.boxedPhase,
      a.settled == b.settled
    else { return false }
    switch a.user {
    case .none: return b.user == nil
    case .some(let u):
      switch b.user {
      case .none: return false
      case .some(let v): return u == v
      }
    }
  }

  /// The top-level state's name, without building the view.
  public var stateName: StateName {
    switch phase {
    case .starting: .starting
    case .restoring: .restoring
    case .resting:
      user.map { $0.session.anonymous ? .anonymous : .firebaseAuthenticated } ?? .signedOut
    case .signingInAnonymously: .signingInAnonymously
    case .providerFlow(let f):
      f.credential == nil
        ? .awaitingProvider
        : f.provider.hasGoogleSpellings ? .googleAuthenticated : .providerAuthenticated
    case .migrationRequired: .migrationRequired
    case .migrating: .migrating
    case .reauthenticationRequired: .reauthenticationRequired
    case .deletingAccount: .deletingAccount
    case .unlinkingProvider: .unlinkingProvider
    case .emailFlow(let e):
      switch e.kind {
      case .signIn: .signingInWithEmail
      case .createAccount: .creatingAccount
      case .passwordReset: .sendingPasswordReset
      case .reauthenticate: .reauthenticatingWithPassword
      case .sendSignInLink: .sendingSignInLink
      case .linkSignIn: .signingInWithEmailLink
      }
    case .accountFlow(let f):
      switch f.kind {
      case .reload: .reloadingAccount
      case .sendVerificationEmail: .sendingVerificationEmail
      case .applyActionCode: .applyingActionCode
      case .checkActionCode: .checkingActionCode
      case .confirmPasswordReset: .confirmingPasswordReset
      case .customTokenSignIn: .signingInWithCustomToken
      case .changePassword: .changingPassword
      case .changeEmail: .changingEmail
      case .updateProfile: .updatingProfile
      case .startTotpEnrollment: .startingTotpEnrollment
      case .startPhoneEnrollment: .startingPhoneEnrollment
      case .withdrawSecondFactor: .withdrawingSecondFactor
      }
    case .secondFactor: .secondFactorRequired
    case .accountExists: .accountExistsWithDifferentCredential
    case .totpEnrollment: .enrollingTotp
    case .phoneEnrollment: .enrollingPhone
    case .phoneSignIn(let f): f.sendingCode ? .sendingPhoneCode : .awaitingPhoneCode
    }
  }

  /// Handles one event at `now`, appending the resulting effects to `effects` in order.
  public mutating func handle(_ event: Event, now: Instant, into effects: inout [Effect]) {
    let now = now.clamped  // A caller's clock is input too.
    if case .intent(.idTokenRequested(let id, false)) = event, let token = idleToken(at: now) {
      // The hot path: the same answer `requestToken` gives, reading two fields of the user.
      effects.append(
        .deliverIDToken(requestIds: TokenRequestIDs(single: id), result: .token(idToken: token)))
      return
    }
    defer {
      // A link's address serves a sign-in; once a permanent account is in, it has served.
      if emailLinkAddress != nil, user?.session.anonymous == false { emailLinkAddress = nil }
      if pendingLink != nil { settlePendingLink(after: event, now: now, fx: &effects) }
    }
    switch event {
    case .intent(let intent): handleIntent(intent, now: now, fx: &effects)
    case .answer(let answer):
      handleAnswer(answer.validated(now: now), now: now, fx: &effects)
    case .timerFired(let timer): handleTimer(timer, now: now, fx: &effects)
    case .persistFailed(let error):
      // The in-memory session is still right; the app decides whether to warn the user.
      Self.report(error, &effects)
    case .storeChanged(let session):
      storeChanged(session, now: now, fx: &effects)
    }
  }

  /// Handles one event at `now` and returns the effects.
  public mutating func handle(_ event: Event, now: Instant) -> [Effect] {
    var effects: [Effect] = []
    handle(event, now: now, into: &effects)
    return effects
  }

  /// The signed-in user's ID token when it can be handed out at `now` without a refresh.
  @inline(__always)
  func idleToken(at now: Instant) -> String? {
    guard user?.session.isFresh(at: now, margin: policy.refreshMargin) == true,
      user?.refreshRequest == nil
    else { return nil }
    return user?.session.idToken
  }

  /// Takes the next request id.
  mutating func newRequest() -> RequestID {
    defer { nextRequestID.rawValue += 1 }
    return nextRequestID
  }

  /// Takes the next request id and emits `request` with it.
  @discardableResult
  mutating func send(_ request: Request, _ fx: inout [Effect]) -> RequestID {
    let r = newRequest()
    fx.append(.request(r, request))
    return r
  }
}

extension AuthMachine: Codable {
  private enum CodingKeys: String, CodingKey {
    case policy, state, nextRequestID, emailLinkAddress, pendingLink
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let policy = try c.decode(Policy.self, forKey: .policy).sanitized
    let (phase, user) = try c.decode(AuthState.self, forKey: .state).split
    boxedPhase = CopyOnWrite(phase)
    self.user = user
    nextRequestID = try c.decode(RequestID.self, forKey: .nextRequestID)
    settled = CopyOnWrite(
      Settled(
        policy: policy,
        emailLinkAddress: try c.decodeIfPresent(String.self, forKey: .emailLinkAddress),
        pendingLink: try c.decodeIfPresent(PendingLink.self, forKey: .pendingLink)))
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(policy, forKey: .policy)
    try c.encode(state, forKey: .state)
    try c.encode(nextRequestID, forKey: .nextRequestID)
    try c.encodeIfPresent(emailLinkAddress, forKey: .emailLinkAddress)
    try c.encodeIfPresent(pendingLink, forKey: .pendingLink)
  }
}

/// The reducer as a function: `(state, event, now) -> (state', effects)`.
public func reduce(_ machine: AuthMachine, _ event: Event, now: Instant) -> (AuthMachine, [Effect])
{
  var next = machine
  let effects = next.handle(event, now: now)
  return (next, effects)
}

// MARK: - Shared moves

extension AuthMachine {
  /// Signs a user in with `session`: persists when asked, then schedules or starts the refresh.
  /// `waiters` are token requests that get the new token.
  mutating func begin(
    _ session: Session, waiters: [TokenRequestID], persist: Bool, now: Instant, fx: inout [Effect]
  ) {
    if persist { fx.append(.persistSession(session: session)) }
    var user = SignedInUser(session: session)
    if session.isFresh(at: now, margin: policy.refreshMargin) {
      fx.append(.scheduleTimer(timer: .tokenRefresh, at: refreshMoment(session, now: now)))
      Self.deliver(.token(idToken: session.idToken), to: waiters, &fx)
    } else {
      // The token is already inside the margin: refresh at once, and let the waiters join.
      let r = send(.refreshToken(refreshToken: session.refreshToken), &fx)
      user.token = .refreshing(request: r, waiters: waiters, failures: 0)
    }
    self.user = user
  }

  /// Replaces the signed-in user's session with a new one from the server for the same account,
  /// keeping the migration cleanup and the token requests waiting for a refresh.
  mutating func renewSession(with session: Session, now: Instant, fx: inout [Effect]) {
    guard let old = user else { return }
    var session = session
    if session.uid == old.session.uid {
      // What the server does not know about the account stays with it: the cleanup owed after a
      // migration, a deletion under way, the name Apple gave only once.
      if session.pendingCleanup == nil { session.pendingCleanup = old.session.pendingCleanup }
      if session.pendingDeletion == nil { session.pendingDeletion = old.session.pendingDeletion }
      if session.displayName == nil { session.displayName = old.session.displayName }
    }
    begin(session, waiters: old.tokenWaiters, persist: true, now: now, fx: &fx)
    user?.cleanupRequest = old.cleanupRequest
  }

  /// When the refresh timer fires: expiry minus the margin, never sooner than half the lifetime.
  func refreshMoment(_ session: Session, now: Instant) -> Instant {
    let due = session.expiresAt - policy.refreshMargin
    let half = now + (session.expiresAt - now) / 2
    return max(due, half)
  }

  /// Signs the user out: waiters get `error`, timers stop, storage is cleared (unless another
  /// process cleared it already), provider SDKs are signed out of (and, after the account was
  /// deleted, disconnected where their traits say so).
  mutating func signOut(
    waiterError: AuthError = .notSignedIn, notification: AuthNotification?,
    accountDeleted: Bool = false, storeCleared: Bool = false, fx: inout [Effect]
  ) {
    if let user {
      Self.deliver(.failure(error: waiterError), to: user.tokenWaiters, &fx)
      fx.append(.cancelTimer(timer: .tokenRefresh))
      if !storeCleared { fx.append(.clearSession) }
      for provider in policy.providers.sdkProviders(of: user.session) {
        let revoke = accountDeleted && policy.providers[provider].revocation == .disconnectOnSignOut
        fx.append(.signOutProvider(provider: provider, revoke: revoke))
      }
    }
    if let notification { fx.append(.notify(notification: notification)) }
    user = nil
    phase = .resting
  }

  /// Emits one `deliverIDToken` for `waiters`, if there are any.
  static func deliver(_ result: TokenResult, to waiters: [TokenRequestID], _ fx: inout [Effect]) {
    if !waiters.isEmpty {
      fx.append(.deliverIDToken(requestIds: TokenRequestIDs(waiters), result: result))
    }
  }

  /// Emits `notify{error}`.
  static func report(_ error: AuthError, _ fx: inout [Effect]) {
    fx.append(.notify(notification: .error(error: error)))
  }

  /// Writes the user's session as it is now.
  mutating func persist(_ fx: inout [Effect]) {
    if let session = user?.session { fx.append(.persistSession(session: session)) }
  }
}

extension AuthMachine {
  /// Puts the machine in this phase with this user and request counter: for model checkers
  /// that rename a state's values. Feeding events is the only other way a machine changes.
  public mutating func restate(
    phase: Phase, user: SignedInUser?, nextRequestID: RequestID, pendingLink: PendingLink? = nil
  ) {
    self.phase = phase
    self.user = user
    self.nextRequestID = nextRequestID
    self.pendingLink = pendingLink
  }
}
