/// Anything the machine reacts to: an intent, a result, a timer, or a failed write.
public enum Event: Hashable, Codable, Sendable {
  /// Something the user or the app did.
  case intent(Intent)
  /// An interpreter's answer to the request effect with the same id.
  case result(requestId: RequestID, result: RequestResult)
  /// A timer scheduled with `scheduleTimer` came due.
  case timerFired(timer: TimerID)
  /// A `persistSession` or `clearSession` could not be written.
  case persistFailed(error: AuthError)
}

/// What the user or the app did, named after the action.
public enum Intent: Hashable, Codable, Sendable {
  /// The app started; the stored session is read first.
  case appLaunched
  /// Sign in as a Firebase anonymous user.
  case signInAnonymouslyTapped
  /// Sign in with Google; for an anonymous user this is the upgrade.
  case signInWithGoogleTapped
  /// Link Google to the signed-in permanent account.
  case linkGoogleTapped
  /// Sign in with email and password.
  case signInWithEmail(email: String, password: String)
  /// Create an email/password account; for an anonymous user this links it.
  case createAccount(email: String, password: String)
  /// Send a password-reset email.
  case sendPasswordReset(email: String)
  /// The app's answer in `migrationRequired`.
  case migrationDecided(choice: MigrationChoice)
  /// The app has moved the anonymous user's data after a `merge`.
  case migrationFinished
  /// Start Google reauthentication (also resumes a waiting sensitive operation).
  case reauthenticateTapped
  /// Sign out; an anonymous user must consent to losing their data.
  case signOutTapped(discardAnonymousData: Bool)
  /// Delete the signed-in account.
  case deleteAccountTapped
  /// Abandon the flow in progress.
  case cancelTapped
  /// The app needs an ID token; answered by exactly one `deliverIDToken`.
  case idTokenRequested(requestId: RequestID, forceRefresh: Bool)
}

/// The app's decision when an anonymous user's Google account already has an owner.
public enum MigrationChoice: String, Hashable, Codable, Sendable, CaseIterable {
  /// Sign in to the existing account; the app moves the anonymous data, then says so.
  case merge
  /// Sign in to the existing account; the anonymous data is dropped.
  case switchWithoutData
  /// Keep the anonymous account.
  case stayAnonymous
}

/// What an interpreter answers a request with.
public enum RequestResult: Hashable, Codable, Sendable {
  /// The stored session (`nil` when nothing is stored).
  indirect case sessionLoaded(session: Session?)
  /// The Google consent step returned a credential.
  indirect case providerSucceeded(credential: GoogleCredential)
  /// The user closed the Google consent step.
  case providerCancelled
  /// The Google consent step failed.
  case providerFailed(error: AuthError)
  /// Firebase signed someone in (or linked the current user).
  indirect case signedIn(session: Session)
  /// The Google account already belongs to another user; `credential` can sign in to it.
  indirect case credentialAlreadyInUse(credential: GoogleCredential, email: String?)
  /// The request failed.
  case requestFailed(error: AuthError)
  /// Secure Token answered a refresh; `expiresIn` is in seconds from now.
  case tokenRefreshed(idToken: String, refreshToken: String, expiresIn: Double)
  /// The account was deleted.
  case accountDeleted
  /// The password-reset email was sent.
  case passwordResetSent
}

/// The machine's timers.
public enum TimerID: String, Hashable, Codable, Sendable, CaseIterable {
  /// Refresh the ID token (at expiry minus the margin, or after a backoff).
  case tokenRefresh
  /// Read the stored session again after a transient failure (e.g. a locked keychain).
  case restoreRetry
}
