/// What the machine is doing on top of the signed-in user (kept beside it, in
/// `AuthMachine.user`). Each case carries only its own data; a case with more than one field has
/// a named payload. Which phases need a user is an invariant (`userMatchesPhase`).
public enum Phase: Hashable, Sendable {
  /// Nothing known yet; never "signed out" before the stored session was read.
  case starting
  /// `loadSession` in flight, or waiting to read again.
  case restoring(Restore)
  /// No flow under way: signed out, anonymous or permanent, as `user` says.
  case resting
  /// `signUpAnonymously` in flight.
  case signingInAnonymously(request: RequestID)
  /// A provider's consent step is up, or its credential is being exchanged with Firebase.
  case providerFlow(ProviderFlow)
  /// The anonymous user's provider account has another owner; waiting for the app.
  case migrationRequired(MigrationOffer)
  /// Signing in to the owner of that account; the anonymous account is kept until this succeeds.
  case migrating(Migration)
  /// A sensitive operation needs a recent sign-in and waits.
  case reauthenticationRequired(operation: SensitiveOperation)
  /// `deleteAccount` in flight.
  case deletingAccount(request: RequestID)
  /// An email/password request in flight.
  case emailFlow(EmailFlow)
}

/// `restoring`: the read in flight (or, with `retryAt`, the next one), and who waits for it.
public struct Restore: Hashable, Sendable {
  /// The `loadSession` request.
  public var request: RequestID
  /// Token requests that wait for the stored session.
  public var waiters: [TokenRequestID]
  /// When the store is read again after a transient failure (`nil`: a read is in flight).
  public var retryAt: Instant?
}

/// A provider flow: the consent step, then `signInWithIdp`.
public struct ProviderFlow: Hashable, Sendable {
  /// Which provider.
  public var provider: ProviderID
  /// Why, and so where a cancel returns to.
  public var purpose: ProviderPurpose
  /// The request in flight: `authorize` while `credential` is nil, then `signInWithIdp`.
  public var request: RequestID
  /// The credential being exchanged; `nil` while the consent step is up.
  public var credential: IdPCredential?
}

/// `migrationRequired`: what the app decides about.
public struct MigrationOffer: Hashable, Sendable {
  /// The updated credential that signs in to the account's owner.
  public var credential: IdPCredential
  /// The owner's email, when the server said.
  public var email: String?
}

/// `migrating`: the sign-in to the owner of the conflicting account.
public struct Migration: Hashable, Sendable {
  /// What the app chose.
  public var choice: MigrationChoice
  /// The `signInWithIdp` in flight.
  public var request: RequestID
  /// The credential it sends.
  public var credential: IdPCredential
}

/// An email/password request in flight.
public struct EmailFlow: Hashable, Sendable {
  /// Which request.
  public enum Kind: String, Hashable, Sendable, CaseIterable {
    /// `signInWithPassword` (nobody signed in).
    case signIn
    /// `signUpWithPassword` (linking the anonymous user when there is one).
    case createAccount
    /// `sendPasswordReset` (nobody signed in).
    case passwordReset
  }

  public var kind: Kind
  public var request: RequestID
  public var email: String
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

  /// The refresh in flight, if any.
  public var refreshRequest: RequestID? {
    if case .refreshing(let r, _, _) = token { return r }
    return nil
  }

  /// The token requests waiting for the refresh in flight.
  public var tokenWaiters: [TokenRequestID] {
    if case .refreshing(_, let w, _) = token { return w }
    return []
  }
}

/// Where a signed-in user's ID token refresh stands; never a top-level state.
public enum TokenStatus: Hashable, Codable, Sendable {
  /// No refresh in flight; a timer waits for expiry minus the margin.
  case fresh
  /// One `refreshToken` in flight; `waiters` get its token. `failures` counts earlier failures.
  case refreshing(request: RequestID, waiters: [TokenRequestID], failures: Int)
  /// The last refresh failed transiently; retry at `until`.
  case backingOff(until: Instant, failures: Int)
}

/// Why a provider's consent step is up, and so where a cancel returns to.
public enum ProviderPurpose: Hashable, Codable, Sendable {
  /// Nobody signed in: sign in (the new-user case).
  case signIn
  /// An anonymous user links the provider (the upgrade, with or without a conflict).
  case upgrade
  /// A permanent user links the provider (the link, with or without a conflict).
  case link
  /// Prove the same user again; `resume` runs after success.
  case reauthenticate(resume: SensitiveOperation?)
}

/// An operation that can fail with CREDENTIAL_TOO_OLD_LOGIN_AGAIN and resume after reauth.
public enum SensitiveOperation: Hashable, Codable, Sendable {
  /// Delete the account.
  case deleteAccount
  /// Link this provider credential.
  case link(credential: IdPCredential)
}
