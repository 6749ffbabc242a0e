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
  /// Deleting the account: revoking what must be revoked first, then `accounts:delete`.
  case deletingAccount(Deletion)
  /// Removing a provider from the account.
  case unlinkingProvider(Unlink)
  /// An email/password request in flight.
  case emailFlow(EmailFlow)
  /// A request about the account's email, or a reload, in flight.
  case accountFlow(AccountFlow)
  /// A first factor passed and Firebase asks for a second: the challenge, the flow it
  /// interrupts, and the step in flight.
  indirect case secondFactor(SecondFactorStep)
  /// A provider's sign-in found an account with the same email that signs in another way:
  /// waiting for the user to sign in that way, after which the provider is linked to it.
  case accountExists(PendingLink)
  /// Enrolling an authenticator app as a second factor: the secret is shown, and the code it
  /// makes is awaited or being checked.
  case totpEnrollment(TotpEnrollment)
  /// Enrolling a phone number as a second factor: a code was texted to it, and is awaited or
  /// being checked.
  case phoneEnrollment(PhoneEnrollment)
  /// A phone number's code: being texted (`sendVerificationCode`), awaited, or being checked
  /// (`signInWithPhoneNumber`), to sign in, upgrade the guest or add the number.
  case phoneSignIn(PhoneSignIn)
}

/// `phoneSignIn`: a code texted to a phone number, for a sign-in (nobody signed in), an
/// upgrade (the anonymous user) or a link (a permanent account): the user is the one before
/// until the code is checked.
public struct PhoneSignIn: Hashable, Codable, Sendable {
  /// The number, as the app gave it.
  public var phoneNumber: String
  /// The session of the last code texted (a secret), once one was.
  public var sessionInfo: String?
  /// The request in flight, if any: `sendVerificationCode` while `sendingCode`, else
  /// `signInWithPhoneNumber`. At most one, so a code is never sent twice.
  public var request: RequestID?
  /// Whether the request in flight texts a code.
  public var sendingCode: Bool

  public init(
    phoneNumber: String, sessionInfo: String? = nil, request: RequestID? = nil,
    sendingCode: Bool = false
  ) {
    self.phoneNumber = phoneNumber
    self.sessionInfo = sessionInfo
    self.request = request
    self.sendingCode = sendingCode
  }
}

/// `phoneEnrollment`: Firebase texted a code to the number being enrolled; the user types it.
public struct PhoneEnrollment: Hashable, Codable, Sendable {
  /// The number being enrolled, as the app gave it.
  public var phoneNumber: String
  /// The enrolment session the code belongs to (a secret); `finalizePhoneEnrollment` sends it
  /// back.
  public var sessionInfo: String
  /// `finalizePhoneEnrollment` in flight, if any: at most one, so a code is never sent twice.
  public var request: RequestID?

  public init(phoneNumber: String, sessionInfo: String, request: RequestID? = nil) {
    self.phoneNumber = phoneNumber
    self.sessionInfo = sessionInfo
    self.request = request
  }
}

/// `totpEnrollment`: Firebase issued a TOTP secret for the signed-in account; the app shows it
/// (as text or as the QR code of `TotpSecret.uri`) and the user types the first code the
/// authenticator app makes with it.
public struct TotpEnrollment: Hashable, Codable, Sendable {
  /// The secret and the enrolment session it belongs to (both secrets).
  public var secret: TotpSecret
  /// `finalizeTotpEnrollment` in flight, if any: at most one, so a code is never sent twice.
  public var request: RequestID?

  public init(secret: TotpSecret, request: RequestID? = nil) {
    self.secret = secret
    self.request = request
  }
}

/// A provider credential waiting to be linked to the account that has its email, once the user
/// signed in to that account the way it has (`accountExists`).
public struct PendingLink: Hashable, Codable, Sendable {
  /// The credential the provider's sign-in sent (a secret); linked as it is, or, for a provider
  /// whose nonce is single-use, by asking the provider again.
  public var credential: IdPCredential
  /// The account's email, when Firebase said.
  public var email: String?
  /// The ways in the account has, as far as Firebase said (`verifiedProvider`; may be empty).
  public var providers: [ProviderID]
  /// The guest whose upgrade met the account (its uid), kept signed in while the user signs in
  /// to the account; their data then moves to it as a migration's does. Nil when nobody was
  /// signed in.
  public var guest: String?

  public init(
    credential: IdPCredential, email: String?, providers: [ProviderID], guest: String? = nil
  ) {
    self.credential = credential
    self.email = email
    self.providers = providers
    self.guest = guest
  }
}

/// `secondFactor`: a sign-in half done. The first factor passed; nothing is signed in (or, in a
/// reauthentication, the session is the one from before) until a second factor finishes it.
public struct SecondFactorStep: Hashable, Codable, Sendable {
  /// What Firebase answered the first factor with.
  public var challenge: SecondFactorChallenge
  /// The flow the challenge interrupts: where it continues, and where a cancel returns to.
  public var resume: SecondFactorResume
  /// The request in flight (`startSecondFactorSignIn` or `finalizeSecondFactorSignIn`), if any:
  /// at most one, so a challenge is never answered twice at once.
  public var request: RequestID?
  /// The factor the request in flight is for.
  public var factor: String?
  /// Whether the request in flight asks for a texted code (`startSecondFactorSignIn`) rather
  /// than finishing (`finalizeSecondFactorSignIn`).
  public var sendingCode: Bool
  /// The phone factor a code was texted for, and the `sessionInfo` that finishes with it.
  public var codeSent: SentCode?
  /// The user's name the first factor's provider gave (a provider that gives it once): sent
  /// with the finalize, so the account gets it when the sign-in finishes.
  public var displayName: String?

  /// A step.
  public init(
    challenge: SecondFactorChallenge, resume: SecondFactorResume, request: RequestID? = nil,
    factor: String? = nil, sendingCode: Bool = false, codeSent: SentCode? = nil,
    displayName: String? = nil
  ) {
    self.challenge = challenge
    self.resume = resume
    self.request = request
    self.factor = factor
    self.sendingCode = sendingCode
    self.codeSent = codeSent
    self.displayName = displayName
  }
}

/// A code texted for a phone factor: which factor, and the `sessionInfo` (a secret) it goes with.
public struct SentCode: Hashable, Codable, Sendable {
  public var factor: String
  public var sessionInfo: String

  public init(factor: String, sessionInfo: String) {
    self.factor = factor
    self.sessionInfo = sessionInfo
  }
}

/// The flow a second factor interrupts.
public enum SecondFactorResume: Hashable, Codable, Sendable {
  /// A sign-in with nobody signed in: the session begins when the second factor passes.
  case signIn
  /// A reauthentication of the signed-in user: the same user's session is renewed, then the
  /// waiting operation (if any) resumes.
  case reauthenticate(resume: SensitiveOperation?)
  /// A migration's sign-in to the owner of an anonymous user's provider account: the anonymous
  /// user stays until the second factor passes, then the migration goes on as `choice` says.
  case migrate(choice: MigrationChoice)
  /// A deletion's proof of the user with a fresh `credential`: once the second factor passes,
  /// the grant is revoked with the credential's code and the account deleted.
  indirect case deleteAccount(credential: IdPCredential)

  /// Where the flow returns to when the challenge ends without a session (a cancel, a refused
  /// or expired pending credential).
  var origin: Phase {
    switch self {
    case .signIn, .reauthenticate(nil), .migrate, .deleteAccount: .resting
    case .reauthenticate(let operation?): .reauthenticationRequired(operation: operation)
    }
  }
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

/// What signs in to the account that has what a guest tried to add: the conflict's provider
/// credential, or Firebase's temporary proof for a phone number that is another account's.
public enum OwnerProof: Hashable, Codable, Sendable {
  /// A provider's credential (`signInWithIdp`).
  case credential(IdPCredential)
  /// A phone number's temporary proof (`signInWithTemporaryProof`).
  case phoneNumber(PhoneProof)

  /// The provider whose account has the owner (`phone` for a number).
  public var provider: ProviderID {
    switch self {
    case .credential(let c): c.provider
    case .phoneNumber: .phone
    }
  }

  /// The provider credential, if it is one.
  public var credential: IdPCredential? {
    if case .credential(let c) = self { return c }
    return nil
  }
}

/// `migrationRequired`: what the app decides about.
public struct MigrationOffer: Hashable, Sendable {
  /// What signs in to the account's owner: the conflict's updated credential, or a phone
  /// number's temporary proof.
  public var proof: OwnerProof
  /// The owner's email, when the server said.
  public var email: String?

  public init(proof: OwnerProof, email: String? = nil) {
    self.proof = proof
    self.email = email
  }

  /// An offer to sign in with a provider's credential.
  public init(credential: IdPCredential, email: String? = nil) {
    self.init(proof: .credential(credential), email: email)
  }

  /// The provider credential that signs in to the owner, if the conflict was a provider's.
  public var credential: IdPCredential? { proof.credential }
}

/// `migrating`: the sign-in to the owner of the conflicting account.
public struct Migration: Hashable, Codable, Sendable {
  /// What the app chose.
  public var choice: MigrationChoice
  /// The request in flight: `signInWithIdp` or `signInWithTemporaryProof`, or `authorize`
  /// while `proof` is nil.
  public var request: RequestID
  /// What the sign-in sends; `nil` while the provider is asked for a fresh credential.
  public var proof: OwnerProof?
  /// The provider whose account has the owner (`phone` for a number).
  public var provider: ProviderID
  /// Whether the provider was already asked again once (it is never asked twice).
  public var reauthorized: Bool

  public init(
    choice: MigrationChoice, request: RequestID, proof: OwnerProof?, provider: ProviderID,
    reauthorized: Bool = false
  ) {
    self.choice = choice
    self.request = request
    self.proof = proof
    self.provider = provider
    self.reauthorized = reauthorized
  }

  public init(
    choice: MigrationChoice, request: RequestID, credential: IdPCredential?, provider: ProviderID,
    reauthorized: Bool = false
  ) {
    self.init(
      choice: choice, request: request, proof: credential.map { .credential($0) },
      provider: provider, reauthorized: reauthorized)
  }

  /// The provider credential the sign-in sends, if it is one.
  public var credential: IdPCredential? { proof?.credential }
}

/// `deletingAccount`: where the deletion stands.
public struct Deletion: Hashable, Codable, Sendable {
  /// The request of this step (`nil` while waiting for a token refresh).
  public var request: RequestID?
  /// The step.
  public var step: DeletionStep

  public init(request: RequestID?, step: DeletionStep) {
    self.request = request
    self.step = step
  }
}

/// The steps of an account deletion.
public enum DeletionStep: Hashable, Codable, Sendable {
  /// The provider's consent step, for a fresh authorization code (and a recent sign-in).
  case authorizing(provider: ProviderID)
  /// `signInWithIdp` with that credential, proving the user again.
  case reauthenticating(credential: IdPCredential)
  /// `accounts:revokeToken` with the credential's authorization code.
  case revoking(provider: ProviderID)
  /// `accounts:delete`.
  case deleting
  /// At launch, a deletion whose revocations are done waits for a fresh ID token to delete with.
  case waitingForToken
}

/// `unlinkingProvider`: which provider is being removed.
public struct Unlink: Hashable, Codable, Sendable {
  public var provider: ProviderID
  public var request: RequestID

  public init(provider: ProviderID, request: RequestID) {
    self.provider = provider
    self.request = request
  }
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
    /// `signInWithPassword` with the signed-in account's email: a reauthentication, resuming
    /// `resume` when it succeeds.
    case reauthenticate
    /// `sendSignInLink` (nobody signed in, or an anonymous user).
    case sendSignInLink
    /// `signInWithEmailLink` (linking the anonymous user when there is one).
    case linkSignIn
  }

  public var kind: Kind
  public var request: RequestID
  public var email: String
  /// For a reauthentication: the operation that waits for it.
  public var resume: SensitiveOperation? = nil
}

/// A request about the account in flight (`reloadingAccount`, `sendingVerificationEmail`,
/// `applyingActionCode`).
public struct AccountFlow: Hashable, Sendable {
  /// Which request.
  public enum Kind: String, Hashable, Sendable, CaseIterable {
    /// `lookupAccount`: the server's view of the account (a signed-in user).
    case reload
    /// `sendVerificationEmail` (a signed-in user with an email).
    case sendVerificationEmail
    /// `applyActionCode`: a code from an email link (signed in or not).
    case applyActionCode
    /// `checkActionCode`: what a code is for (signed in or not).
    case checkActionCode
    /// `confirmPasswordReset`: a reset finished with a new password (signed in or not).
    case confirmPasswordReset
    /// `signInWithCustomToken` (nobody signed in, or the same user again).
    case customTokenSignIn
    /// `updatePassword` (a signed-in account with an email).
    case changePassword
    /// `sendEmailChangeVerification`: mail a link to the new address; the email changes when
    /// that link is applied (a signed-in account with an email).
    case changeEmail
    /// `updateProfile`: set or remove the display name and photo URL (a signed-in account).
    case updateProfile
    /// `startTotpEnrollment`: ask for a TOTP secret to enrol (a signed-in permanent account).
    case startTotpEnrollment
    /// `startPhoneEnrollment`: text a code to a number to enrol (a signed-in permanent account).
    case startPhoneEnrollment
    /// `withdrawSecondFactor`: remove one of the account's second factors.
    case withdrawSecondFactor

    /// Whether the request sends the session's own token, so that a session-dead answer is a
    /// verdict on this session (a code from an email link, or a custom token, is not).
    public var sendsSessionToken: Bool {
      switch self {
      case .reload, .sendVerificationEmail, .changePassword, .changeEmail, .updateProfile,
        .startTotpEnrollment, .startPhoneEnrollment, .withdrawSecondFactor:
        true
      case .applyActionCode, .checkActionCode, .confirmPasswordReset, .customTokenSignIn: false
      }
    }

    /// Whether the request carries a code from an email link rather than the session's token.
    public var isActionCode: Bool {
      switch self {
      case .reload, .sendVerificationEmail, .customTokenSignIn, .changePassword, .changeEmail,
        .updateProfile, .startTotpEnrollment, .startPhoneEnrollment, .withdrawSecondFactor:
        false
      case .applyActionCode, .checkActionCode, .confirmPasswordReset: true
      }
    }
  }

  public var kind: Kind
  public var request: RequestID
  /// For `changePassword` and `changeEmail`: the sensitive operation in flight (it waits for a
  /// reauthentication if the login is too old for it).
  public var operation: SensitiveOperation?

  public init(kind: Kind, request: RequestID, operation: SensitiveOperation? = nil) {
    self.kind = kind
    self.request = request
    self.operation = operation
  }
}

/// A signed-in user: the session and where its token refresh stands.
///
/// A value with copy-on-write storage: the machine holds one reference, so copying a machine is
/// cheap, and a transition edits the user in place (`user?.session.idToken = …`) without copying
/// the session's strings.
public struct SignedInUser: Hashable, Codable, Sendable {
  @usableFromInline struct Fields: Hashable, Sendable {
    @usableFromInline var session: Session
    @usableFromInline var token: TokenStatus
    @usableFromInline var cleanupRequest: RequestID?
    @usableFromInline var cleanupRefreshing: Bool
  }

  @usableFromInline var storage: CopyOnWrite<Fields>

  /// The derived equality (the one stored field), inlined: the same box is equal at once, and
  /// the caller need not retain both users around a call.
  @inlinable public static func == (a: SignedInUser, b: SignedInUser) -> Bool {
    a.storage == b.storage
  }

  /// Creates a user with a fresh token.
  public init(
    session: Session, token: TokenStatus = .fresh, cleanupRequest: RequestID? = nil,
    cleanupRefreshing: Bool = false
  ) {
    storage = CopyOnWrite(
      Fields(
        session: session, token: token, cleanupRequest: cleanupRequest,
        cleanupRefreshing: cleanupRefreshing))
  }

  /// The session as stored.
  public var session: Session {
    @inlinable _read { yield storage.value.session }
    @inlinable _modify { yield &storage.value.session }
  }

  /// The ID token's refresh status.
  public var token: TokenStatus {
    @inlinable _read { yield storage.value.token }
    @inlinable _modify { yield &storage.value.token }
  }

  /// The in-flight deletion of a migrated anonymous account (or the refresh of its token that
  /// comes first), if any.
  public var cleanupRequest: RequestID? {
    @inlinable _read { yield storage.value.cleanupRequest }
    @inlinable _modify { yield &storage.value.cleanupRequest }
  }

  /// Whether `cleanupRequest` is the refresh of the anonymous account's token (not the delete).
  public var cleanupRefreshing: Bool {
    @inlinable _read { yield storage.value.cleanupRefreshing }
    @inlinable _modify { yield &storage.value.cleanupRefreshing }
  }

  /// The refresh in flight, if any.
  public var refreshRequest: RequestID? {
    if case .refreshing(let r, _, _) = storage.value.token { return r }
    return nil
  }

  /// The token requests waiting for the refresh in flight.
  public var tokenWaiters: [TokenRequestID] {
    if case .refreshing(_, let w, _) = storage.value.token { return w }
    return []
  }

  private enum CodingKeys: String, CodingKey {
    case session, token, cleanupRequest, cleanupRefreshing
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      session: try c.decode(Session.self, forKey: .session),
      token: try c.decode(TokenStatus.self, forKey: .token),
      cleanupRequest: try c.decodeIfPresent(RequestID.self, forKey: .cleanupRequest),
      cleanupRefreshing: try c.decodeIfPresent(Bool.self, forKey: .cleanupRefreshing) ?? false)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(session, forKey: .session)
    try c.encode(token, forKey: .token)
    try c.encodeIfPresent(cleanupRequest, forKey: .cleanupRequest)
    if cleanupRefreshing { try c.encode(true, forKey: .cleanupRefreshing) }
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
  /// Remove this provider from the account.
  case unlink(provider: ProviderID)
  /// Change the account's password.
  case changePassword(newPassword: String)
  /// Change the account's email, verified first: a link mailed to `newEmail` makes the change.
  case changeEmail(newEmail: String)
  /// Enrol an authenticator app (TOTP) as a second factor: after a reauthentication it starts
  /// again with a new secret.
  case enrollTotp
  /// Enrol `phoneNumber` as a second factor: refused at the start for a login too old, it texts
  /// the number after the reauthentication with the same app's proof `appVerification` (a
  /// refused start did not use it).
  case enrollPhone(phoneNumber: String, appVerification: AppVerification?)
  /// Withdraw the second factor whose enrolment id is `factor`.
  case withdrawSecondFactor(factor: String)
}

extension SensitiveOperation {
  /// The new password of a password change.
  public var newPassword: String? {
    if case .changePassword(let p) = self { return p }
    return nil
  }

  /// The new address of an email change.
  public var newEmail: String? {
    if case .changeEmail(let e) = self { return e }
    return nil
  }
}

extension Phase {
  /// Whether the machine is launching (it reads the store itself then).
  var isLaunching: Bool {
    switch self {
    case .starting, .restoring: true
    case .resting, .signingInAnonymously, .providerFlow, .migrationRequired, .migrating,
      .reauthenticationRequired, .deletingAccount, .unlinkingProvider, .emailFlow,
      .accountFlow, .secondFactor, .accountExists, .totpEnrollment, .phoneEnrollment,
      .phoneSignIn:
      false
    }
  }
}
