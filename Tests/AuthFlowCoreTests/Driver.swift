import AuthFlowCore

/// Fixed values the tests build sessions from.
enum Fixture {
  static let t0 = Instant(1_767_258_000)  // 2026-01-01T09:00:00Z

  static func anonymous(uid: String = "anon-1", token: String = "id-a1", at now: Instant = t0)
    -> Session
  {
    Session(
      uid: uid, anonymous: true, idToken: token, refreshToken: "rt-" + token,
      expiresAt: now + 3600)
  }

  static func google(uid: String = "user-1", token: String = "id-u1", at now: Instant = t0)
    -> Session
  {
    Session(
      uid: uid, anonymous: false, providers: ["google.com"], email: "mike@example.com",
      idToken: token, refreshToken: "rt-" + token, expiresAt: now + 3600)
  }

  static let credential = IdPCredential.google(
    idToken: "g-id", accessToken: "g-at", email: "mike@example.com")
  static let conflictCredential = IdPCredential.google(idToken: "g-id-2", email: "mike@example.com")
}

/// An answer as the tests write it: by its name alone, the request kind taken from the request
/// it answers (as scenario files do). An answer the request cannot get becomes its
/// `UNEXPECTED_RESPONSE`, as at every interpreter boundary.
enum Reply: Hashable {
  case sessionLoaded(session: Session?)
  case providerSucceeded(credential: IdPCredential)
  case providerCancelled
  case providerFailed(error: AuthError)
  case signedIn(session: Session)
  case credentialAlreadyInUse(credential: IdPCredential, email: String?)
  case requestFailed(error: AuthError)
  case tokenRefreshed(idToken: String, refreshToken: String, expiresIn: Double)
  case accountDeleted
  case passwordResetSent
  case tokenRevoked
  case providerUnlinked(providers: [ProviderID])

  /// The typed answer to request `id` of `kind`, delivered at `now`.
  func answer(_ kind: RequestKind, _ id: RequestID, now: Instant) -> Answer {
    switch (kind, self) {
    case (.loadSession, .sessionLoaded(let s)): return .loadSession(id, .sessionLoaded(session: s))
    case (.authorize, .providerSucceeded(let c)):
      return .authorize(id, .providerSucceeded(credential: c))
    case (.authorize, .providerCancelled): return .authorize(id, .providerCancelled)
    case (.signUpAnonymously, .signedIn(let s)):
      return .signUpAnonymously(id, .signedIn(session: s))
    case (.signUpWithPassword, .signedIn(let s)):
      return .signUpWithPassword(id, .signedIn(session: s))
    case (.signInWithPassword, .signedIn(let s)):
      return .signInWithPassword(id, .signedIn(session: s))
    case (.signInWithIdp, .signedIn(let s)): return .signInWithIdp(id, .signedIn(session: s))
    case (.signInWithIdp, .credentialAlreadyInUse(let c, let e)):
      return .signInWithIdp(id, .credentialAlreadyInUse(credential: c, email: e))
    case (.refreshToken, .tokenRefreshed(let i, let r, let e)):
      return .refreshToken(
        id, .tokenRefreshed(Tokens(idToken: i, refreshToken: r, expiresAt: now + e)))
    case (.deleteAccount, .accountDeleted): return .deleteAccount(id, .accountDeleted)
    case (.sendPasswordReset, .passwordResetSent): return .sendPasswordReset(id, .passwordResetSent)
    case (.revokeToken, .tokenRevoked): return .revokeToken(id, .tokenRevoked)
    case (.unlinkProvider, .providerUnlinked(let p)):
      return .unlinkProvider(id, .providerUnlinked(providers: p))
    case (_, .requestFailed(let e)), (_, .providerFailed(let e)): return .failed(kind, id, e)
    default: return .failed(kind, id, .unexpectedResponse)
    }
  }
}

/// Drives a machine through real events, the way an app and its interpreter would.
struct Driver {
  var machine: AuthMachine
  var now: Instant
  /// The effects of the last event.
  var effects: [Effect] = []
  /// The kind of every request issued so far.
  var issued: [RequestID: RequestKind] = [:]

  init(policy: Policy = Policy(), now: Instant = Fixture.t0) {
    machine = AuthMachine(policy: policy)
    self.now = now
  }

  var state: AuthState { machine.state }

  /// The number of the next request effect's id.
  var nextID: Int { machine.nextRequestID.rawValue }

  @discardableResult
  mutating func send(_ intent: Intent) -> [Effect] {
    handle(.intent(intent))
  }

  /// Feeds an event, noting the requests it issues.
  @discardableResult
  mutating func handle(_ event: Event) -> [Effect] {
    effects = machine.handle(event, now: now)
    for e in effects { if let id = e.requestId, let k = e.requestKind { issued[id] = k } }
    return effects
  }

  /// Answers the request the current state waits for.
  @discardableResult
  mutating func answer(_ result: Reply) -> [Effect] {
    guard let id = machine.phase.pendingRequest else {
      fatalError("nothing pending in \(state.name)")
    }
    return respond(id, result)
  }

  @discardableResult
  mutating func respond(_ id: Int, _ result: Reply) -> [Effect] {
    respond(RequestID(id), result)
  }

  @discardableResult
  mutating func respond(_ id: RequestID, _ result: Reply) -> [Effect] {
    handle(.answer(result.answer(issued[id] ?? .signInWithIdp, id, now: now)))
  }

  /// Answers the refresh in flight.
  @discardableResult
  mutating func answerRefresh(_ result: Reply) -> [Effect] {
    guard let id = machine.user?.refreshRequest else {
      fatalError("no refresh in flight")
    }
    return respond(id, result)
  }

  @discardableResult
  mutating func fire(_ timer: TimerID = .tokenRefresh, after seconds: Double) -> [Effect] {
    now = now + seconds
    return handle(.timerFired(timer: timer))
  }

  // MARK: Named starting points, each reached through real events.

  static func launched(stored: Session? = nil, policy: Policy = Policy()) -> Driver {
    var d = Driver(policy: policy)
    d.send(.appLaunched)
    d.answer(.sessionLoaded(session: stored))
    return d
  }

  static func signedOut(policy: Policy = Policy()) -> Driver { launched(policy: policy) }

  static func anonymous(policy: Policy = Policy()) -> Driver {
    var d = signedOut(policy: policy)
    d.send(.signInAnonymouslyTapped)
    d.answer(.signedIn(session: Fixture.anonymous()))
    return d
  }

  static func permanent(policy: Policy = Policy()) -> Driver {
    var d = signedOut(policy: policy)
    d.send(.signInWithGoogleTapped)
    d.answer(.providerSucceeded(credential: Fixture.credential))
    d.answer(.signedIn(session: Fixture.google()))
    return d
  }

  static func migrationRequired() -> Driver {
    var d = anonymous()
    d.send(.signInWithGoogleTapped)
    d.answer(.providerSucceeded(credential: Fixture.credential))
    d.answer(
      .credentialAlreadyInUse(credential: Fixture.conflictCredential, email: "mike@example.com"))
    return d
  }

  static func reauthenticationRequired() -> Driver {
    var d = permanent()
    d.send(.deleteAccountTapped)
    d.answer(.requestFailed(error: AuthError(code: "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")))
    return d
  }

  /// Reaches a starting point through real events.
  static func reach(_ start: Start) -> Driver {
    switch start {
    case .starting: return Driver()
    case .restoring:
      var d = Driver()
      d.send(.appLaunched)
      return d
    case .signedOut: return signedOut()
    case .signingInAnonymously:
      var d = signedOut()
      d.send(.signInAnonymouslyTapped)
      return d
    case .anonymous: return anonymous()
    case .awaitingProviderSignIn:
      var d = signedOut()
      d.send(.signInWithGoogleTapped)
      return d
    case .awaitingProviderUpgrade:
      var d = anonymous()
      d.send(.signInWithGoogleTapped)
      return d
    case .awaitingProviderLink:
      var d = permanent()
      d.send(.linkGoogleTapped)
      return d
    case .awaitingProviderReauthenticate:
      var d = permanent()
      d.send(.reauthenticateTapped())
      return d
    case .googleAuthenticatedSignIn:
      var d = reach(.awaitingProviderSignIn)
      d.answer(.providerSucceeded(credential: Fixture.credential))
      return d
    case .googleAuthenticatedUpgrade:
      var d = reach(.awaitingProviderUpgrade)
      d.answer(.providerSucceeded(credential: Fixture.credential))
      return d
    case .googleAuthenticatedLink:
      var d = reach(.awaitingProviderLink)
      d.answer(.providerSucceeded(credential: Fixture.credential))
      return d
    case .migrationRequired: return migrationRequired()
    case .migrating:
      var d = migrationRequired()
      d.send(.migrationDecided(choice: .merge))
      return d
    case .firebaseAuthenticated: return permanent()
    case .reauthenticationRequired: return reauthenticationRequired()
    case .deletingAccount:
      var d = permanent()
      d.send(.deleteAccountTapped)
      return d
    case .signingInWithEmail:
      var d = signedOut()
      d.send(.signInWithEmail(email: "a@example.com", password: "pw-123456"))
      return d
    case .creatingAccountSignedOut:
      var d = signedOut()
      d.send(.createAccount(email: "a@example.com", password: "pw-123456"))
      return d
    case .creatingAccountAnonymous:
      var d = anonymous()
      d.send(.createAccount(email: "a@example.com", password: "pw-123456"))
      return d
    case .sendingPasswordReset:
      var d = signedOut()
      d.send(.sendPasswordReset(email: "a@example.com"))
      return d
    }
  }
}

/// The starting points tests reach through real events: each top-level state, and for the
/// provider flows each purpose.
enum Start: String, CaseIterable, Sendable, CustomStringConvertible {
  case starting, restoring, signedOut, signingInAnonymously, anonymous
  case awaitingProviderSignIn, awaitingProviderUpgrade, awaitingProviderLink
  case awaitingProviderReauthenticate
  case googleAuthenticatedSignIn, googleAuthenticatedUpgrade, googleAuthenticatedLink
  case migrationRequired, migrating, firebaseAuthenticated, reauthenticationRequired
  case deletingAccount, signingInWithEmail, creatingAccountSignedOut, creatingAccountAnonymous
  case sendingPasswordReset

  var description: String { rawValue }

  /// The state name it is in.
  var stateName: String { Driver.reach(self).state.name }

  /// Starting points whose state carries a signed-in user.
  static let signedIn = allCases.filter { Driver.reach($0).machine.user != nil }
}

/// The request effects spelled as scenario files spell them, to keep expectations readable.
extension Effect {
  static func signUpAnonymously(requestId: Int) -> Effect {
    .request(RequestID(requestId), .signUpAnonymously)
  }
  static func authorizeWithGoogle(
    requestId: Int, intent: AuthorizationIntent, loginHint: String?
  ) -> Effect {
    .request(
      RequestID(requestId), .authorize(provider: .google, intent: intent, loginHint: loginHint))
  }
  static func signInWithIdp(requestId: Int, credential: IdPCredential, linkTo: String?)
    -> Effect
  {
    .request(RequestID(requestId), .signInWithIdp(credential: credential, linkTo: linkTo))
  }
  static func signInWithPassword(requestId: Int, email: String, password: String) -> Effect {
    .request(RequestID(requestId), .signInWithPassword(email: email, password: password))
  }
  static func signUpWithPassword(
    requestId: Int, email: String, password: String, linkTo: String?
  ) -> Effect {
    .request(
      RequestID(requestId), .signUpWithPassword(email: email, password: password, linkTo: linkTo))
  }
  static func sendPasswordReset(requestId: Int, email: String) -> Effect {
    .request(RequestID(requestId), .sendPasswordReset(email: email))
  }
  static func refreshToken(requestId: Int, refreshToken: String) -> Effect {
    .request(RequestID(requestId), .refreshToken(refreshToken: refreshToken))
  }
  static func deleteAccount(requestId: Int, idToken: String) -> Effect {
    .request(RequestID(requestId), .deleteAccount(idToken: idToken))
  }
  static let signOutGoogle = Effect.signOutProvider(provider: .google, revoke: false)
  static let disconnectGoogle = Effect.signOutProvider(provider: .google, revoke: true)
}
