/// Work the machine asks an interpreter to do; plain data.
public enum Effect: Hashable, Codable, Sendable {
  /// Read the stored session; answered by `sessionLoaded` or `requestFailed`.
  case loadSession(requestId: RequestID)
  /// Store the session (replacing what was stored).
  indirect case persistSession(session: Session)
  /// Remove the stored session.
  case clearSession
  /// Firebase `accounts:signUp` with no email: a new anonymous user.
  case signUpAnonymously(requestId: RequestID)
  /// Show Google's consent step.
  case authorizeWithGoogle(requestId: RequestID, intent: GoogleIntent, loginHint: String?)
  /// Firebase `accounts:signInWithIdp`; `linkTo` is the current user's ID token when linking.
  indirect case signInWithIdp(requestId: RequestID, credential: GoogleCredential, linkTo: String?)
  /// Firebase `accounts:signInWithPassword`.
  case signInWithPassword(requestId: RequestID, email: String, password: String)
  /// Firebase `accounts:signUp` with email and password; `linkTo` links the anonymous user.
  indirect case signUpWithPassword(
    requestId: RequestID, email: String, password: String, linkTo: String?)
  /// Firebase `accounts:sendOobCode` with `PASSWORD_RESET`.
  case sendPasswordReset(requestId: RequestID, email: String)
  /// Secure Token `/v1/token` with the refresh token.
  case refreshToken(requestId: RequestID, refreshToken: String)
  /// Firebase `accounts:delete` for the account whose ID token this is.
  case deleteAccount(requestId: RequestID, idToken: String)
  /// Sign out of the Google SDK, so the next sign-in offers the account chooser.
  case signOutProvider
  /// Fire `timerFired{timer}` at `at`, replacing any earlier schedule of the same timer.
  case scheduleTimer(timer: TimerID, at: Instant)
  /// Forget a scheduled timer.
  case cancelTimer(timer: TimerID)
  /// Answer `idTokenRequested` calls.
  case deliverIDToken(requestIds: RequestIDs, result: TokenResult)
  /// Tell the app something it must act on.
  case notify(notification: AuthNotification)
}

/// Why the Google consent step is shown.
public enum GoogleIntent: String, Hashable, Codable, Sendable, CaseIterable {
  /// Sign in (nobody signed in).
  case signIn
  /// Link Google to the current user (anonymous upgrade or permanent link).
  case link
  /// Prove again who the current user is.
  case reauthenticate
}

/// The answer to `idTokenRequested`.
public enum TokenResult: Hashable, Codable, Sendable {
  /// A valid ID token.
  case token(idToken: String)
  /// No token could be had.
  case failure(error: AuthError)
}

/// Something the app must act on.
public enum AuthNotification: Hashable, Codable, Sendable {
  /// Move the anonymous user's data from `from` to `to`, then send `migrationFinished`.
  case migrationReady(from: String, to: String)
  /// The server no longer accepts the session; the user is signed out.
  case sessionExpired
  /// An operation failed in a way that ended the session.
  case signedOutAfterError(error: AuthError)
  /// Reauthentication returned a different user; the original session stays.
  case userMismatch
  /// Something failed; show it.
  case error(error: AuthError)
  /// The password-reset email is on its way.
  case passwordResetSent(email: String)
}

extension Effect {
  /// The effect's name, as used in scenario files.
  public var name: String {
    switch self {
    case .loadSession: "loadSession"
    case .persistSession: "persistSession"
    case .clearSession: "clearSession"
    case .signUpAnonymously: "signUpAnonymously"
    case .authorizeWithGoogle: "authorizeWithGoogle"
    case .signInWithIdp: "signInWithIdp"
    case .signInWithPassword: "signInWithPassword"
    case .signUpWithPassword: "signUpWithPassword"
    case .sendPasswordReset: "sendPasswordReset"
    case .refreshToken: "refreshToken"
    case .deleteAccount: "deleteAccount"
    case .signOutProvider: "signOutProvider"
    case .scheduleTimer: "scheduleTimer"
    case .cancelTimer: "cancelTimer"
    case .deliverIDToken: "deliverIDToken"
    case .notify: "notify"
    }
  }

  /// The request id when this effect expects a result, else `nil`.
  public var requestId: RequestID? {
    switch self {
    case .loadSession(let id), .signUpAnonymously(let id): id
    case .authorizeWithGoogle(let id, _, _), .signInWithIdp(let id, _, _): id
    case .signInWithPassword(let id, _, _), .signUpWithPassword(let id, _, _, _): id
    case .sendPasswordReset(let id, _), .refreshToken(let id, _), .deleteAccount(let id, _): id
    case .persistSession, .clearSession, .signOutProvider, .scheduleTimer, .cancelTimer,
      .deliverIDToken, .notify:
      nil
    }
  }

  /// Every effect name, for validation and suggestions.
  public static let allNames = [
    "loadSession", "persistSession", "clearSession", "signUpAnonymously", "authorizeWithGoogle",
    "signInWithIdp", "signInWithPassword", "signUpWithPassword", "sendPasswordReset",
    "refreshToken", "deleteAccount", "signOutProvider", "scheduleTimer", "cancelTimer",
    "deliverIDToken", "notify",
  ]
}
