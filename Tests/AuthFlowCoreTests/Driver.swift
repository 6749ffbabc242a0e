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

  static let credential = GoogleCredential(
    idToken: "g-id", accessToken: "g-at", email: "mike@example.com")
  static let conflictCredential = GoogleCredential(idToken: "g-id-2", email: "mike@example.com")
}

/// Drives a machine through real events, the way an app and its interpreter would.
struct Driver {
  var machine: AuthMachine
  var now: Instant
  /// The effects of the last event.
  var effects: [Effect] = []

  init(policy: Policy = Policy(), now: Instant = Fixture.t0) {
    machine = AuthMachine(policy: policy)
    self.now = now
  }

  var state: AuthState { machine.state }

  /// The id the next request effect will carry.
  var nextID: RequestID { machine.nextRequestID }

  @discardableResult
  mutating func send(_ intent: Intent) -> [Effect] {
    effects = machine.handle(.intent(intent), now: now)
    return effects
  }

  /// Answers the request the current state waits for.
  @discardableResult
  mutating func answer(_ result: RequestResult) -> [Effect] {
    guard let id = machine.state.pendingRequest else {
      fatalError("nothing pending in \(state.name)")
    }
    return respond(id, result)
  }

  @discardableResult
  mutating func respond(_ id: RequestID, _ result: RequestResult) -> [Effect] {
    effects = machine.handle(.result(requestId: id, result: result), now: now)
    return effects
  }

  /// Answers the refresh in flight.
  @discardableResult
  mutating func answerRefresh(_ result: RequestResult) -> [Effect] {
    guard case .refreshing(let id, _, _)? = machine.state.user?.token else {
      fatalError("no refresh in flight")
    }
    return respond(id, result)
  }

  @discardableResult
  mutating func fire(_ timer: TimerID = .tokenRefresh, after seconds: Double) -> [Effect] {
    now = now + seconds
    effects = machine.handle(.timerFired(timer: timer), now: now)
    return effects
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

  /// Every state reachable by a short story, by name (for parameterized tests).
  static func reach(_ name: String) -> Driver {
    switch name {
    case "starting": return Driver()
    case "restoring":
      var d = Driver()
      d.send(.appLaunched)
      return d
    case "signedOut": return signedOut()
    case "signingInAnonymously":
      var d = signedOut()
      d.send(.signInAnonymouslyTapped)
      return d
    case "anonymous": return anonymous()
    case "awaitingProvider.signIn":
      var d = signedOut()
      d.send(.signInWithGoogleTapped)
      return d
    case "awaitingProvider.upgrade":
      var d = anonymous()
      d.send(.signInWithGoogleTapped)
      return d
    case "awaitingProvider.link":
      var d = permanent()
      d.send(.linkGoogleTapped)
      return d
    case "awaitingProvider.reauthenticate":
      var d = permanent()
      d.send(.reauthenticateTapped)
      return d
    case "googleAuthenticated.signIn":
      var d = reach("awaitingProvider.signIn")
      d.answer(.providerSucceeded(credential: Fixture.credential))
      return d
    case "googleAuthenticated.upgrade":
      var d = reach("awaitingProvider.upgrade")
      d.answer(.providerSucceeded(credential: Fixture.credential))
      return d
    case "googleAuthenticated.link":
      var d = reach("awaitingProvider.link")
      d.answer(.providerSucceeded(credential: Fixture.credential))
      return d
    case "migrationRequired": return migrationRequired()
    case "migrating":
      var d = migrationRequired()
      d.send(.migrationDecided(choice: .merge))
      return d
    case "firebaseAuthenticated": return permanent()
    case "reauthenticationRequired": return reauthenticationRequired()
    case "deletingAccount":
      var d = permanent()
      d.send(.deleteAccountTapped)
      return d
    case "signingInWithEmail":
      var d = signedOut()
      d.send(.signInWithEmail(email: "a@example.com", password: "pw-123456"))
      return d
    case "creatingAccount.signedOut":
      var d = signedOut()
      d.send(.createAccount(email: "a@example.com", password: "pw-123456"))
      return d
    case "creatingAccount.anonymous":
      var d = anonymous()
      d.send(.createAccount(email: "a@example.com", password: "pw-123456"))
      return d
    case "sendingPasswordReset":
      var d = signedOut()
      d.send(.sendPasswordReset(email: "a@example.com"))
      return d
    default: fatalError("unknown starting point \(name)")
    }
  }

  static let allStartingPoints = [
    "starting", "restoring", "signedOut", "signingInAnonymously", "anonymous",
    "awaitingProvider.signIn", "awaitingProvider.upgrade", "awaitingProvider.link",
    "awaitingProvider.reauthenticate", "googleAuthenticated.signIn", "googleAuthenticated.upgrade",
    "googleAuthenticated.link", "migrationRequired", "migrating", "firebaseAuthenticated",
    "reauthenticationRequired", "deletingAccount", "signingInWithEmail",
    "creatingAccount.signedOut", "creatingAccount.anonymous", "sendingPasswordReset",
  ]

  /// Starting points whose state carries a signed-in user.
  static let signedInStartingPoints = [
    "anonymous", "awaitingProvider.upgrade", "awaitingProvider.link",
    "awaitingProvider.reauthenticate", "googleAuthenticated.upgrade", "googleAuthenticated.link",
    "migrationRequired", "migrating", "firebaseAuthenticated", "reauthenticationRequired",
    "deletingAccount", "creatingAccount.anonymous",
  ]
}
