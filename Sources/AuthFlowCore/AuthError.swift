/// An error from an interpreter or the machine itself, identified by its Firebase/OAuth code.
public struct AuthError: Error, Hashable, Codable, Sendable, CustomStringConvertible {
  /// The wire code (`TOKEN_EXPIRED`, `NETWORK`, `HTTP_503`, …) or one of the machine's own codes.
  public var code: String
  /// Optional detail text (the part after `CODE : ` on the wire).
  public var message: String?

  /// Creates an error.
  public init(code: String, message: String? = nil) {
    self.code = code
    self.message = message
  }

  /// How the reducer reacts to this error.
  public var kind: ErrorKind { ErrorKind.classify(code) }

  public var description: String { message.map { "\(code): \($0)" } ?? code }

  /// No user is signed in, so there is no ID token to give.
  public static let notSignedIn = AuthError(code: "NOT_SIGNED_IN")
  /// `appLaunched` has not been sent yet.
  public static let notStarted = AuthError(code: "NOT_STARTED")
  /// Anonymous sign-out needs `discardAnonymousData: true`.
  public static let discardConsentRequired = AuthError(code: "DISCARD_CONSENT_REQUIRED")
  /// The answer did not fit the request (a protocol violation by the interpreter or server).
  public static let unexpectedResponse = AuthError(code: "UNEXPECTED_RESPONSE")
  /// The stored session could not be read as a session.
  public static let corruptSession = AuthError(code: "CORRUPT_SESSION")
  /// The provider account is already linked to another Firebase user.
  public static let credentialAlreadyInUse = AuthError(code: "CREDENTIAL_ALREADY_IN_USE")
  /// The phone number is already another Firebase user's.
  public static let phoneNumberExists = AuthError(
    code: "PHONE_NUMBER_EXISTS", message: "the phone number belongs to another account")
}

/// The classes of error the reducer acts on (see the wire reference, §4).
public enum ErrorKind: String, Hashable, Codable, Sendable, CaseIterable {
  /// Network, 5xx, timeouts: retry with backoff, never sign out.
  case transient
  /// Abuse throttling: back off for minutes.
  case throttled
  /// The operation needs a recent sign-in.
  case reauthenticate
  /// The session is gone on the server: sign out.
  case sessionDead
  /// The ID token was rejected: refresh once, and let that refresh decide.
  case invalidIDToken
  /// A user or data error: report it, change nothing else.
  case user

  /// Classifies a wire code: one of the codes below, an `HTTP_5xx` status (transient), or any
  /// other code (a user or data error).
  public static func classify(_ code: String) -> ErrorKind {
    if let i = codeList.index(of: code) { return codes[i].kind }
    if code.hasPrefix("HTTP_5") { return .transient }
    return .user
  }

  /// The codes with a class other than `.user`. Docs/StateMachine.md's table of error classes
  /// lists them all (a test holds it to this).
  static let codes: [(code: String, kind: ErrorKind)] = [
    ("NETWORK", transient), ("TIMEOUT", transient), ("INTERNAL_ERROR", transient),
    ("UNEXPECTED_RESPONSE", transient), ("STORAGE_UNAVAILABLE", transient),
    ("BACKEND_ERROR", transient), ("UNAVAILABLE", transient), ("RESPONSE_TOO_LARGE", transient),
    ("TOO_MANY_ATTEMPTS_TRY_LATER", throttled), ("RESET_PASSWORD_EXCEED_LIMIT", throttled),
    ("QUOTA_EXCEEDED", throttled), ("HTTP_429", throttled),
    ("CREDENTIAL_TOO_OLD_LOGIN_AGAIN", reauthenticate),
    ("TOKEN_EXPIRED", sessionDead), ("USER_DISABLED", sessionDead),
    ("USER_NOT_FOUND", sessionDead), ("INVALID_REFRESH_TOKEN", sessionDead),
    ("PROJECT_NUMBER_MISMATCH", sessionDead),
    ("INVALID_ID_TOKEN", invalidIDToken),
  ]

  /// `codes`' strings, found without hashing (the model checker classifies millions of answers).
  private static let codeList = StringList(codes.map(\.code))

  /// True for the classes that must never sign anyone out.
  public var isRetryable: Bool { self == .transient || self == .throttled }
}
