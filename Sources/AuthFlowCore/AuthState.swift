/// Where the machine is; each case carries only what is valid in it.
public enum AuthState: Hashable, Codable, Sendable {
  /// Nothing known yet; never "signed out" before the stored session was read.
  case starting
  /// `loadSession` in flight (or, with `retryAt`, waiting to retry); ID-token requests wait.
  case restoring(request: RequestID, waiters: [RequestID], retryAt: Instant?)
  /// No user.
  case signedOut
  /// `signUpAnonymously` in flight.
  case signingInAnonymously(request: RequestID)
  /// Signed in as a Firebase anonymous user.
  case anonymous(user: SignedInUser)
  /// Google's consent step is up; `user` is who was signed in when it started.
  case awaitingProvider(purpose: ProviderPurpose, request: RequestID, user: SignedInUser?)
  /// A Google credential is in hand and `signInWithIdp` is in flight.
  case googleAuthenticated(
    purpose: ProviderPurpose, request: RequestID, credential: GoogleCredential,
    user: SignedInUser?)
  /// The anonymous user's Google account belongs to another user; waiting for the app.
  case migrationRequired(credential: GoogleCredential, email: String?, user: SignedInUser)
  /// Signing in to the existing account; the anonymous account is kept until this succeeds.
  case migrating(
    choice: MigrationChoice, request: RequestID, credential: GoogleCredential, user: SignedInUser)
  /// Signed in with a permanent account.
  case firebaseAuthenticated(user: SignedInUser)
  /// A sensitive operation needs a recent sign-in; it waits here.
  case reauthenticationRequired(operation: SensitiveOperation, user: SignedInUser)
  /// `deleteAccount` in flight.
  case deletingAccount(request: RequestID, user: SignedInUser)
  /// `signInWithPassword` in flight.
  case signingInWithEmail(request: RequestID, email: String)
  /// `signUpWithPassword` in flight; with `user`, it links the anonymous user.
  case creatingAccount(request: RequestID, email: String, user: SignedInUser?)
  /// `sendPasswordReset` in flight.
  case sendingPasswordReset(request: RequestID, email: String)
}

/// A signed-in user: the session and where its token refresh stands.
public struct SignedInUser: Hashable, Codable, Sendable {
  /// The session as stored.
  public var session: Session
  /// The ID token's refresh status.
  public var token: TokenStatus
  /// The in-flight deletion of a migrated anonymous account, if any.
  public var cleanupRequest: RequestID?

  /// Creates a user with a fresh token.
  public init(session: Session, token: TokenStatus = .fresh, cleanupRequest: RequestID? = nil) {
    self.session = session
    self.token = token
    self.cleanupRequest = cleanupRequest
  }
}

/// Where a signed-in user's ID token refresh stands; never a top-level state.
public enum TokenStatus: Hashable, Codable, Sendable {
  /// No refresh in flight; a timer waits for expiry minus the margin.
  case fresh
  /// One `refreshToken` in flight; `waiters` get its token. `failures` counts earlier failures.
  case refreshing(request: RequestID, waiters: [RequestID], failures: Int)
  /// The last refresh failed transiently; retry at `until`.
  case backingOff(until: Instant, failures: Int)
}

/// Why Google's consent step is up, and so where a cancel returns to.
public enum ProviderPurpose: Hashable, Codable, Sendable {
  /// Nobody signed in (case 5).
  case signIn
  /// An anonymous user links Google (cases 1 and 2).
  case upgrade
  /// A permanent user links Google (cases 3 and 4).
  case link
  /// Prove the same user again; `resume` runs after success.
  case reauthenticate(resume: SensitiveOperation?)
}

/// An operation that can fail with CREDENTIAL_TOO_OLD_LOGIN_AGAIN and resume after reauth.
public enum SensitiveOperation: Hashable, Codable, Sendable {
  /// Delete the account.
  case deleteAccount
  /// Link this Google credential.
  case linkGoogle(credential: GoogleCredential)
}

extension AuthState {
  /// The top-level state name, as used in scenario files.
  public var name: String {
    switch self {
    case .starting: "starting"
    case .restoring: "restoring"
    case .signedOut: "signedOut"
    case .signingInAnonymously: "signingInAnonymously"
    case .anonymous: "anonymous"
    case .awaitingProvider: "awaitingProvider"
    case .googleAuthenticated: "googleAuthenticated"
    case .migrationRequired: "migrationRequired"
    case .migrating: "migrating"
    case .firebaseAuthenticated: "firebaseAuthenticated"
    case .reauthenticationRequired: "reauthenticationRequired"
    case .deletingAccount: "deletingAccount"
    case .signingInWithEmail: "signingInWithEmail"
    case .creatingAccount: "creatingAccount"
    case .sendingPasswordReset: "sendingPasswordReset"
    }
  }

  /// Every top-level state name.
  public static let allNames = [
    "starting", "restoring", "signedOut", "signingInAnonymously", "anonymous", "awaitingProvider",
    "googleAuthenticated", "migrationRequired", "migrating", "firebaseAuthenticated",
    "reauthenticationRequired", "deletingAccount", "signingInWithEmail", "creatingAccount",
    "sendingPasswordReset",
  ]

  /// The signed-in user this state carries, if any.
  public var user: SignedInUser? {
    switch self {
    case .starting, .restoring, .signedOut, .signingInAnonymously, .signingInWithEmail,
      .sendingPasswordReset:
      nil
    case .anonymous(let u), .firebaseAuthenticated(let u), .deletingAccount(_, let u),
      .reauthenticationRequired(_, let u), .migrationRequired(_, _, let u),
      .migrating(_, _, _, let u):
      u
    case .awaitingProvider(_, _, let u), .googleAuthenticated(_, _, _, let u),
      .creatingAccount(_, _, let u):
      u
    }
  }

  /// The current ID token and its expiry, when a user is signed in and no refresh is in flight:
  /// the hot path of `idTokenRequested` reads only these, without copying the user.
  @inline(__always)
  var idleToken: (idToken: String, expiresAt: Instant)? {
    switch self {
    case .anonymous(let u), .firebaseAuthenticated(let u), .deletingAccount(_, let u),
      .reauthenticationRequired(_, let u), .migrationRequired(_, _, let u),
      .migrating(_, _, _, let u):
      if case .refreshing = u.token { return nil }
      return (u.session.idToken, u.session.expiresAt)
    case .awaitingProvider(_, _, let u?), .googleAuthenticated(_, _, _, let u?),
      .creatingAccount(_, _, let u?):
      if case .refreshing = u.token { return nil }
      return (u.session.idToken, u.session.expiresAt)
    default:
      return nil
    }
  }

  /// The session this state stands for (what must be stored), if any.
  public var session: Session? { user?.session }

  /// The request the state itself waits for (not counting refresh and cleanup).
  public var pendingRequest: RequestID? {
    switch self {
    case .starting, .signedOut, .anonymous, .firebaseAuthenticated, .migrationRequired,
      .reauthenticationRequired:
      nil
    case .restoring(let r, _, let retryAt):
      // While a retry waits for its timer, nothing is in flight.
      retryAt == nil ? r : nil
    case .signingInAnonymously(let r), .awaitingProvider(_, let r, _),
      .googleAuthenticated(_, let r, _, _), .migrating(_, let r, _, _),
      .deletingAccount(let r, _), .signingInWithEmail(let r, _), .creatingAccount(let r, _, _),
      .sendingPasswordReset(let r, _):
      r
    }
  }

  /// Replaces the carried user, keeping the state's other payload; no-op where there is none.
  mutating func replaceUser(_ new: SignedInUser) {
    switch self {
    case .starting, .restoring, .signedOut, .signingInAnonymously, .signingInWithEmail,
      .sendingPasswordReset:
      break
    case .anonymous: self = .anonymous(user: new)
    case .firebaseAuthenticated: self = .firebaseAuthenticated(user: new)
    case .deletingAccount(let r, _): self = .deletingAccount(request: r, user: new)
    case .reauthenticationRequired(let op, _):
      self = .reauthenticationRequired(operation: op, user: new)
    case .migrationRequired(let c, let e, _):
      self = .migrationRequired(credential: c, email: e, user: new)
    case .migrating(let ch, let r, let c, _):
      self = .migrating(choice: ch, request: r, credential: c, user: new)
    case .awaitingProvider(let p, let r, let u):
      if u != nil { self = .awaitingProvider(purpose: p, request: r, user: new) }
    case .googleAuthenticated(let p, let r, let c, let u):
      if u != nil { self = .googleAuthenticated(purpose: p, request: r, credential: c, user: new) }
    case .creatingAccount(let r, let e, let u):
      if u != nil { self = .creatingAccount(request: r, email: e, user: new) }
    }
  }
}
