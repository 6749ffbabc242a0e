/// The whole sign-in model as a value: feed it events, execute the effects it returns.
///
/// The machine is pure: time comes in as an argument and request ids come from a counter kept
/// here, so the same events at the same instants always give the same states and effects.
public struct AuthMachine: Hashable, Codable, Sendable {
  /// The configuration the machine acts on.
  public var policy: Policy
  /// Where the machine is.
  public internal(set) var state: AuthState {
    didSet {
      idle = state.idleToken.map { IdleToken(idToken: $0.idToken, expiresAt: $0.expiresAt) }
    }
  }
  /// The token the hot path answers with: derived from `state` on every change (never encoded),
  /// so answering `idTokenRequested` reads two stored fields instead of copying the user.
  private var idle: IdleToken? = nil
  /// The id the next request effect gets.
  public internal(set) var nextRequestID: RequestID

  /// A machine in `starting`, waiting for `appLaunched`.
  public init(policy: Policy = Policy()) {
    self.policy = policy
    self.state = .starting
    self.nextRequestID = 1
  }

  /// Handles one event at `now`, appending the resulting effects to `effects` in order.
  public mutating func handle(_ event: Event, now: Instant, into effects: inout [Effect]) {
    if case .intent(.idTokenRequested(let id, false)) = event, let idle,
      idle.expiresAt - now > policy.refreshMargin
    {
      // The hot path: the same answer `requestToken` gives, without touching the state.
      effects.append(
        .deliverIDToken(requestIds: RequestIDs(single: id), result: .token(idToken: idle.idToken)))
      return
    }
    switch event {
    case .intent(let intent): handleIntent(intent, now: now, fx: &effects)
    case .result(let id, let result): handleResult(id, result, now: now, fx: &effects)
    case .timerFired(let timer): handleTimer(timer, now: now, fx: &effects)
    case .persistFailed(let error):
      // The in-memory session is still right; the app decides whether to warn the user.
      effects.append(.notify(notification: .error(error: error)))
    }
  }

  /// Handles one event at `now` and returns the effects.
  public mutating func handle(_ event: Event, now: Instant) -> [Effect] {
    var effects: [Effect] = []
    handle(event, now: now, into: &effects)
    return effects
  }

  /// Takes the next request id.
  mutating func newRequest() -> RequestID {
    defer { nextRequestID += 1 }
    return nextRequestID
  }
}

extension AuthMachine {
  private enum CodingKeys: String, CodingKey { case policy, state, nextRequestID }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    policy = try c.decode(Policy.self, forKey: .policy)
    state = try c.decode(AuthState.self, forKey: .state)
    nextRequestID = try c.decode(RequestID.self, forKey: .nextRequestID)
    idle = state.idleToken.map { IdleToken(idToken: $0.idToken, expiresAt: $0.expiresAt) }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(policy, forKey: .policy)
    try c.encode(state, forKey: .state)
    try c.encode(nextRequestID, forKey: .nextRequestID)
  }
}

/// A signed-in user's current token, kept beside the state for the hot path.
struct IdleToken: Hashable, Sendable {
  var idToken: String
  var expiresAt: Instant
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
  /// The resting state for a signed-in user: anonymous or permanent.
  static func resting(_ user: SignedInUser) -> AuthState {
    user.session.anonymous ? .anonymous(user: user) : .firebaseAuthenticated(user: user)
  }

  /// Starts a signed-in user: persists when asked, then schedules or starts the refresh.
  mutating func enter(
    _ session: Session, waiters: [RequestID], persist: Bool, now: Instant, fx: inout [Effect]
  ) -> SignedInUser {
    if persist { fx.append(.persistSession(session: session)) }
    var user = SignedInUser(session: session)
    if session.expiresAt - now > policy.refreshMargin {
      fx.append(.scheduleTimer(timer: .tokenRefresh, at: refreshMoment(session, now: now)))
      if !waiters.isEmpty {
        fx.append(
          .deliverIDToken(requestIds: RequestIDs(waiters), result: .token(idToken: session.idToken))
        )
      }
    } else {
      // The token is already inside the margin: refresh at once, and let the waiters join.
      let r = newRequest()
      user.token = .refreshing(request: r, waiters: waiters, failures: 0)
      fx.append(.refreshToken(requestId: r, refreshToken: session.refreshToken))
    }
    return user
  }

  /// Replaces the user's session with a new one from the server for the same account.
  mutating func replaceSession(
    of user: SignedInUser, with session: Session, now: Instant, fx: inout [Effect]
  ) -> SignedInUser {
    var session = session
    if session.pendingCleanup == nil, session.uid == user.session.uid {
      session.pendingCleanup = user.session.pendingCleanup
    }
    var waiters: [RequestID] = []
    if case .refreshing(_, let w, _) = user.token { waiters = w }
    var next = enter(session, waiters: waiters, persist: true, now: now, fx: &fx)
    next.cleanupRequest = user.cleanupRequest
    return next
  }

  /// When the refresh timer fires: expiry minus the margin, never sooner than half the lifetime.
  func refreshMoment(_ session: Session, now: Instant) -> Instant {
    let due = session.expiresAt + (-policy.refreshMargin)
    let half = now + (session.expiresAt - now) / 2
    return max(due, half)
  }

  /// Signs the user out: waiters get `error`, timers stop, storage is cleared.
  mutating func signOut(
    _ user: SignedInUser, waiterError: AuthError = .notSignedIn,
    notification: AuthNotification?, fx: inout [Effect]
  ) {
    if case .refreshing(_, let waiters, _) = user.token, !waiters.isEmpty {
      fx.append(
        .deliverIDToken(requestIds: RequestIDs(waiters), result: .failure(error: waiterError)))
    }
    fx.append(.cancelTimer(timer: .tokenRefresh))
    fx.append(.clearSession)
    if user.session.providers.contains("google.com") { fx.append(.signOutProvider) }
    if let notification { fx.append(.notify(notification: notification)) }
    state = .signedOut
  }

  /// Applies `body` to the signed-in user the state carries; returns false when there is none.
  @discardableResult
  mutating func updateUser(_ body: (inout SignedInUser) -> Void) -> Bool {
    guard var user = state.user else { return false }
    body(&user)
    state.replaceUser(user)
    return true
  }

  /// Emits `notify{error}`.
  static func report(_ error: AuthError, _ fx: inout [Effect]) {
    fx.append(.notify(notification: .error(error: error)))
  }
}

extension AuthMachine {
  /// Puts the machine in `state` with the given request counter: for model checkers that rename
  /// a state's values. Feeding events is the only other way a state changes.
  public mutating func restate(_ state: AuthState, nextRequestID: RequestID) {
    self.state = state
    self.nextRequestID = nextRequestID
  }
}
