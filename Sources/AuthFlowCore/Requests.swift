// Requests and the answers they get. Each request kind has its own answer type naming exactly
// the answers it can get, and an answer travels with the id of the request it answers, so a
// handler switches over its own request's outcomes and nothing else: an answer of the wrong
// shape for its request cannot be built. The case names are the scenario format's names.
//
// Adding a request kind: a `Request` case, its `RequestKind`, its fields (`RequestKind.fields`,
// `fieldValues`, `init(_:_:)`) and `summary`, its answer type (with its `RequestOutcome`
// conformance, Outcomes.swift), an `Answer` case and its lines in `Answer`'s switches, its
// `RequestSlot`, an `AuthInterpreter` requirement with its lines in Interpreter.swift, the
// reducer's handler, the HTTP call, and its answers in the scenario decoder and the checker's
// alphabet (Docs/Architecture.md, "Adding a request").

/// A request to the world: what an `AuthInterpreter` performs.
public enum Request: Hashable, Sendable {
  /// Firebase `accounts:signUp` with no email: a new anonymous user.
  case signUpAnonymously
  /// Show a provider's consent step.
  case authorize(provider: ProviderID, intent: AuthorizationIntent, loginHint: String?)
  /// Firebase `accounts:signInWithIdp`; `linkTo` is the current user's ID token when linking.
  case signInWithIdp(credential: IdPCredential, linkTo: String?)
  /// Firebase `accounts:signInWithPassword`.
  case signInWithPassword(email: String, password: String)
  /// Firebase `accounts:signUp` with email and password; `linkTo` links the anonymous user.
  indirect case signUpWithPassword(email: String, password: String, linkTo: String?)
  /// Firebase `accounts:sendOobCode` with `PASSWORD_RESET`.
  case sendPasswordReset(email: String)
  /// Secure Token `/v1/token` with the refresh token.
  case refreshToken(refreshToken: String)
  /// Firebase `accounts:delete` for the account whose ID token this is.
  case deleteAccount(idToken: String)
  /// Firebase `accounts:revokeToken` (v2): revoke the provider's grant with a fresh,
  /// single-use authorization code, before the account is deleted.
  case revokeToken(provider: ProviderID, authorizationCode: String, idToken: String)
  /// Firebase `accounts:update` with `deleteProvider`: remove a provider from the account.
  case unlinkProvider(provider: ProviderID, idToken: String)
  /// Firebase `accounts:lookup`: what the server says about the account now (a reload).
  case lookupAccount(idToken: String)
  /// Firebase `accounts:sendOobCode` with `VERIFY_EMAIL` for the account of `idToken`.
  case sendVerificationEmail(idToken: String)
  /// Firebase `accounts:update` with `oobCode` and no ID token: apply a code from an email link.
  case applyActionCode(code: String)
  /// Firebase `accounts:resetPassword` with `oobCode` alone: what a code is for, without using
  /// it.
  case checkActionCode(code: String)
  /// Firebase `accounts:resetPassword` with `oobCode` and `newPassword`: finish a reset.
  case confirmPasswordReset(code: String, newPassword: String)
  /// Firebase `accounts:signInWithCustomToken` with a token the app's backend minted.
  case signInWithCustomToken(token: String)
  /// Firebase `accounts:update` with `password` for the account of `idToken`.
  case updatePassword(idToken: String, newPassword: String)
  /// Firebase `accounts:sendOobCode` `VERIFY_AND_CHANGE_EMAIL` for the account of `idToken`: a
  /// link mailed to `newEmail` changes the account's email when it is applied.
  case sendEmailChangeVerification(idToken: String, newEmail: String)
  /// Firebase `accounts:update` with `displayName`, `photoUrl` or `deleteAttribute` for the
  /// account of `idToken`.
  case updateProfile(idToken: String, change: ProfileChange)
  /// Firebase `accounts:sendOobCode` with `EMAIL_SIGNIN`: mail a sign-in link to `email`.
  case sendSignInLink(email: String)
  /// Firebase `accounts:signInWithEmailLink` with the link's code and the address it was sent
  /// to; `linkTo` is the anonymous user's ID token, whose account the link upgrades.
  case signInWithEmailLink(email: String, code: String, linkTo: String?)
  /// Firebase `mfaSignIn:start` (v2): text a code to the phone factor `factor` of the challenge
  /// whose `mfaPendingCredential` this is; `appVerification` is the app's proof that it is the
  /// app (a reCAPTCHA token), passed through as given.
  case startSecondFactorSignIn(
    pendingCredential: String, factor: String, appVerification: AppVerification?)
  /// Firebase `mfaSignIn:finalize` (v2): finish a sign-in with the code of `factor`, a TOTP
  /// factor's (no `sessionInfo`) or the one texted for `sessionInfo`; `displayName` is the name
  /// the first factor's provider gave once, for the account when it has none.
  indirect case finalizeSecondFactorSignIn(
    pendingCredential: String, factor: String, sessionInfo: String?, verificationCode: String,
    displayName: String? = nil)
  /// Firebase `mfaEnrollment:start` (v2) with `totpEnrollmentInfo`: a TOTP secret for the
  /// account of `idToken` to enrol.
  case startTotpEnrollment(idToken: String)
  /// Firebase `mfaEnrollment:finalize` (v2) with `totpVerificationInfo`: enrol the secret of the
  /// enrolment session `sessionInfo` with the first code the authenticator app made with it,
  /// under `displayName`.
  indirect case finalizeTotpEnrollment(
    idToken: String, sessionInfo: String, verificationCode: String, displayName: String)
  /// Firebase `mfaEnrollment:start` (v2) with `phoneEnrollmentInfo`: text a code to
  /// `phoneNumber` (E.164) to enrol it as a second factor of the account of `idToken`;
  /// `appVerification` is the app's proof that it is the app, passed through as given.
  indirect case startPhoneEnrollment(
    idToken: String, phoneNumber: String, appVerification: AppVerification?)
  /// Firebase `mfaEnrollment:finalize` (v2) with `phoneVerificationInfo`: enrol the number of
  /// the enrolment session `sessionInfo` with the code texted to it, under `displayName`.
  indirect case finalizePhoneEnrollment(
    idToken: String, sessionInfo: String, verificationCode: String, displayName: String)
  /// Firebase `accounts:sendVerificationCode`: text a code to `phoneNumber` (E.164) to sign in
  /// with, or to add to the signed-in account; `appVerification` is the app's proof that it is
  /// the app (a reCAPTCHA token), passed through as given.
  case sendVerificationCode(phoneNumber: String, appVerification: AppVerification?)
  /// Firebase `accounts:signInWithPhoneNumber` with a texted code and the `sessionInfo` it was
  /// texted for; `linkTo` (the signed-in user's ID token) adds the number to that account.
  indirect case signInWithPhoneNumber(
    sessionInfo: String, verificationCode: String, linkTo: String?)
  /// Firebase `accounts:signInWithPhoneNumber` with the `temporaryProof` Firebase gave for a
  /// phone number that is another account's: signs in to that account (a guest's migration).
  case signInWithTemporaryProof(PhoneProof)
  /// Firebase `mfaEnrollment:withdraw` (v2): remove the second factor whose enrolment id is
  /// `factor` from the account of `idToken`.
  case withdrawSecondFactor(idToken: String, factor: String)

  /// The request's kind.
  public var kind: RequestKind {
    switch self {
    case .signUpAnonymously: .signUpAnonymously
    case .authorize: .authorize
    case .signInWithIdp: .signInWithIdp
    case .signInWithPassword: .signInWithPassword
    case .signUpWithPassword: .signUpWithPassword
    case .sendPasswordReset: .sendPasswordReset
    case .refreshToken: .refreshToken
    case .deleteAccount: .deleteAccount
    case .revokeToken: .revokeToken
    case .unlinkProvider: .unlinkProvider
    case .lookupAccount: .lookupAccount
    case .sendVerificationEmail: .sendVerificationEmail
    case .applyActionCode: .applyActionCode
    case .checkActionCode: .checkActionCode
    case .confirmPasswordReset: .confirmPasswordReset
    case .signInWithCustomToken: .signInWithCustomToken
    case .updatePassword: .updatePassword
    case .sendEmailChangeVerification: .sendEmailChangeVerification
    case .updateProfile: .updateProfile
    case .sendSignInLink: .sendSignInLink
    case .signInWithEmailLink: .signInWithEmailLink
    case .startSecondFactorSignIn: .startSecondFactorSignIn
    case .finalizeSecondFactorSignIn: .finalizeSecondFactorSignIn
    case .startTotpEnrollment: .startTotpEnrollment
    case .finalizeTotpEnrollment: .finalizeTotpEnrollment
    case .startPhoneEnrollment: .startPhoneEnrollment
    case .finalizePhoneEnrollment: .finalizePhoneEnrollment
    case .sendVerificationCode: .sendVerificationCode
    case .signInWithPhoneNumber: .signInWithPhoneNumber
    case .signInWithTemporaryProof: .signInWithTemporaryProof
    case .withdrawSecondFactor: .withdrawSecondFactor
    }
  }
}

// MARK: - What each request is: declared here once, read by the invariants, the scenario runner
// and the report instead of a switch over the requests in each.

extension Request {
  /// The token the request sends to a server (an ID or refresh token, or `linkTo`), if any.
  public var sentToken: String? {
    switch self {
    case .refreshToken(let t), .deleteAccount(let t), .revokeToken(_, _, let t),
      .unlinkProvider(_, let t), .lookupAccount(let t), .sendVerificationEmail(let t),
      .updatePassword(let t, _), .sendEmailChangeVerification(let t, _), .updateProfile(let t, _),
      .startTotpEnrollment(let t), .finalizeTotpEnrollment(let t, _, _, _),
      .startPhoneEnrollment(let t, _, _), .finalizePhoneEnrollment(let t, _, _, _),
      .withdrawSecondFactor(let t, _):
      t
    case .signInWithIdp(_, let t), .signUpWithPassword(_, _, let t),
      .signInWithEmailLink(_, _, let t), .signInWithPhoneNumber(_, _, let t):
      t
    case .signUpAnonymously, .authorize, .signInWithPassword, .sendPasswordReset,
      .applyActionCode, .checkActionCode, .confirmPasswordReset, .signInWithCustomToken,
      .sendSignInLink, .startSecondFactorSignIn, .finalizeSecondFactorSignIn,
      .sendVerificationCode, .signInWithTemporaryProof:
      nil
    }
  }

  /// The current user's ID token, when the request links to that user (an upgrade or a link).
  public var linkTo: String? {
    if case .signInWithIdp(_, let l?) = self { return l }
    if case .signUpWithPassword(_, _, let l?) = self { return l }
    if case .signInWithEmailLink(_, _, let l?) = self { return l }
    if case .signInWithPhoneNumber(_, _, let l?) = self { return l }
    return nil
  }

  /// The provider the request is about, if any.
  public var provider: ProviderID? {
    switch self {
    case .authorize(let p, _, _), .revokeToken(let p, _, _), .unlinkProvider(let p, _): p
    case .signInWithIdp(let c, _): c.provider
    case .signUpAnonymously, .signInWithPassword, .signUpWithPassword, .sendPasswordReset,
      .refreshToken, .deleteAccount, .lookupAccount, .sendVerificationEmail, .applyActionCode,
      .checkActionCode, .confirmPasswordReset, .signInWithCustomToken, .updatePassword,
      .sendEmailChangeVerification, .updateProfile, .sendSignInLink, .signInWithEmailLink,
      .startSecondFactorSignIn, .finalizeSecondFactorSignIn, .startTotpEnrollment,
      .finalizeTotpEnrollment, .startPhoneEnrollment, .finalizePhoneEnrollment,
      .withdrawSecondFactor, .sendVerificationCode, .signInWithPhoneNumber,
      .signInWithTemporaryProof:
      nil
    }
  }
}

/// Where a request goes.
public enum Destination: Hashable, Sendable {
  /// A provider's consent step.
  case consent
  /// Firebase Auth (Identity Toolkit).
  case firebase
  /// Secure Token (`/v1/token`).
  case secureToken
  /// The session store.
  case store
}

extension RequestKind {
  /// Where a request of this kind goes.
  public var destination: Destination {
    switch self {
    case .authorize: .consent
    case .refreshToken: .secureToken
    case .loadSession: .store
    case .signUpAnonymously, .signInWithIdp, .signInWithPassword, .signUpWithPassword,
      .sendPasswordReset, .deleteAccount, .revokeToken, .unlinkProvider, .lookupAccount,
      .sendVerificationEmail, .applyActionCode, .checkActionCode, .confirmPasswordReset,
      .signInWithCustomToken, .updatePassword, .sendEmailChangeVerification, .updateProfile,
      .sendSignInLink, .signInWithEmailLink, .startSecondFactorSignIn,
      .finalizeSecondFactorSignIn, .startTotpEnrollment, .finalizeTotpEnrollment,
      .startPhoneEnrollment, .finalizePhoneEnrollment, .withdrawSecondFactor,
      .sendVerificationCode, .signInWithPhoneNumber, .signInWithTemporaryProof:
      .firebase
    }
  }
}

/// The kinds of request that get an answer, the stored session's read included; the raw value
/// is the effect's name in scenario files (Google's consent step also answers to
/// `authorizeWithGoogle`).
public enum RequestKind: String, Hashable, Sendable, CaseIterable {
  case loadSession, signUpAnonymously, authorize, signInWithIdp, signInWithPassword
  case signUpWithPassword, sendPasswordReset, refreshToken, deleteAccount, revokeToken
  case unlinkProvider, lookupAccount, sendVerificationEmail, applyActionCode, checkActionCode
  case confirmPasswordReset, signInWithCustomToken, updatePassword, sendEmailChangeVerification
  case updateProfile, sendSignInLink, signInWithEmailLink, startSecondFactorSignIn
  case finalizeSecondFactorSignIn, startTotpEnrollment, finalizeTotpEnrollment
  case withdrawSecondFactor, startPhoneEnrollment, finalizePhoneEnrollment
  case sendVerificationCode, signInWithPhoneNumber, signInWithTemporaryProof
}

/// Fresh tokens from the server, their expiry an instant (stamped once, where the answer
/// arrived: a server's `expiresIn` never enters the machine).
public struct Tokens: Hashable, Codable, Sendable {
  /// The new Firebase ID token.
  public var idToken: String
  /// The Secure Token refresh token to use from now on (it may be the old one).
  public var refreshToken: String
  /// When `idToken` stops being valid.
  public var expiresAt: Instant

  /// Tokens.
  public init(idToken: String, refreshToken: String, expiresAt: Instant) {
    self.idToken = idToken
    self.refreshToken = refreshToken
    self.expiresAt = expiresAt
  }
}

/// The answer to `loadSession`.
public enum LoadAnswer: Hashable, Codable, Sendable {
  /// The stored session (`nil` when nothing is stored).
  case sessionLoaded(session: Session?)
  /// The store could not be read (`STORAGE_UNAVAILABLE`: try again; `CORRUPT_SESSION`).
  case requestFailed(error: AuthError)
}

/// The answer to a provider's consent step (`authorize`).
public enum AuthorizeAnswer: Hashable, Codable, Sendable {
  /// The consent step returned a credential.
  case providerSucceeded(credential: IdPCredential)
  /// The user closed the consent step.
  case providerCancelled
  /// The consent step failed.
  case providerFailed(error: AuthError)
}

/// The answer to a request that signs someone in and can get nothing else
/// (`signUpAnonymously`, `signUpWithPassword`).
public enum SessionAnswer: Hashable, Codable, Sendable {
  /// Firebase signed someone in (or linked the current user).
  case signedIn(session: Session)
  /// The request failed.
  case requestFailed(error: AuthError)
}

/// The answer to a first factor that may not be the last (`signInWithPassword`,
/// `signInWithEmailLink`).
public enum FirstFactorAnswer: Hashable, Sendable {
  /// Firebase signed the user in (or linked the current user).
  case signedIn(session: Session)
  /// The first factor passed and the account has second factors: finish with one of them.
  case secondFactorRequired(challenge: SecondFactorChallenge)
  /// The request failed.
  case requestFailed(error: AuthError)
}

/// The answer's earlier name, from when only a password sign-in could meet a second factor.
@available(*, deprecated, renamed: "FirstFactorAnswer")
public typealias PasswordSignInAnswer = FirstFactorAnswer

/// A second factor enrolled on an account (`mfaInfo[]`).
public struct SecondFactor: Hashable, Codable, Sendable {
  /// What kind of factor.
  public enum Kind: String, Hashable, Codable, Sendable, CaseIterable {
    /// An authenticator app's time-based code (RFC 6238): no start step, the app has the code.
    case totp
    /// A code texted to a phone number (`mfaSignIn:start` sends it).
    case phone
  }

  /// The enrolment id (`mfaEnrollmentId`), sent back as given.
  public var id: String
  /// What kind of factor.
  public var kind: Kind
  /// The name the user gave the factor, if any.
  public var displayName: String?
  /// For a phone factor: the number as Firebase shows it here, all but the last four digits
  /// hidden (`+*******1234`).
  public var phoneHint: String?

  /// A factor.
  public init(id: String, kind: Kind, displayName: String? = nil, phoneHint: String? = nil) {
    self.id = id
    self.kind = kind
    self.displayName = displayName
    self.phoneHint = phoneHint
  }
}

/// Firebase's answer to a first factor that is not enough: the proof that it passed and the
/// factors that can finish the sign-in.
public struct SecondFactorChallenge: Hashable, Codable, Sendable {
  /// The `mfaPendingCredential`: a secret, sent back to finish this sign-in only.
  public var pendingCredential: String
  /// The account's enrolled factors (at least one).
  public var factors: [SecondFactor]
  /// The account's email, when the first factor's answer said.
  public var email: String?

  /// A challenge.
  public init(pendingCredential: String, factors: [SecondFactor], email: String? = nil) {
    self.pendingCredential = pendingCredential
    self.factors = factors
    self.email = email
  }

  /// The factor with this enrolment id, if the challenge offers it.
  public func factor(_ id: String) -> SecondFactor? { factors.first { $0.id == id } }
}

/// The answer to `startSecondFactorSignIn`.
public enum SecondFactorCodeAnswer: Hashable, Codable, Sendable {
  /// The code is on its way by text; `sessionInfo` (a secret) finishes with it.
  case secondFactorCodeSent(sessionInfo: String)
  /// The request failed.
  case requestFailed(error: AuthError)
}

/// The answer to `signInWithCustomToken`.
public enum SignInAnswer: Hashable, Codable, Sendable {
  /// Firebase signed the user in.
  case signedIn(session: Session)
  /// The request failed.
  case requestFailed(error: AuthError)
}

/// The answer to `signInWithIdp`.
public enum IdPAnswer: Hashable, Sendable {
  /// Firebase signed someone in (or linked the current user).
  case signedIn(session: Session)
  /// The provider account already belongs to another user; `credential` can sign in to it.
  case credentialAlreadyInUse(credential: IdPCredential, email: String?)
  /// The provider's credential was right and the account has second factors: finish with one.
  case secondFactorRequired(challenge: SecondFactorChallenge)
  /// Another account has the credential's email and signs in another way (`needConfirmation`):
  /// `email` and the ways in it has (`providers`, as far as Firebase says). No session.
  case accountExistsWithDifferentCredential(email: String?, providers: [ProviderID])
  /// The request failed.
  case requestFailed(error: AuthError)
}

/// The answer to `refreshToken`.
public enum RefreshAnswer: Hashable, Sendable {
  /// Secure Token answered with new tokens.
  case tokenRefreshed(Tokens)
  /// The refresh failed.
  case requestFailed(error: AuthError)
}

/// The answer to `sendPasswordReset`.
public enum ResetAnswer: Hashable, Codable, Sendable {
  /// The password-reset email was sent (or, with email-enumeration protection, the address
  /// may be unknown: Firebase answers the same).
  case passwordResetSent
  /// The request failed.
  case requestFailed(error: AuthError)
}

/// The answer to `sendSignInLink`.
public enum SignInLinkAnswer: Hashable, Codable, Sendable {
  /// The sign-in link is on its way.
  case signInLinkSent
  /// The request failed (`INVALID_EMAIL`; `OPERATION_NOT_ALLOWED`: email-link sign-in is off
  /// in the Firebase console; `MISSING_CONTINUE_URI`: the interpreter has no continue URL).
  case requestFailed(error: AuthError)
}

/// The answer to `deleteAccount`.
public enum DeleteAnswer: Hashable, Codable, Sendable {
  /// The account was deleted.
  case accountDeleted
  /// The request failed.
  case requestFailed(error: AuthError)
}

/// The answer to `revokeToken`.
public enum RevokeAnswer: Hashable, Codable, Sendable {
  /// The provider's grant was revoked.
  case tokenRevoked
  /// The request failed.
  case requestFailed(error: AuthError)
}

/// The answer to `unlinkProvider`.
public enum UnlinkAnswer: Hashable, Codable, Sendable {
  /// The provider was removed; `providers` is what is linked now.
  case providerUnlinked(providers: [ProviderID])
  /// The request failed.
  case requestFailed(error: AuthError)
}

/// What `accounts:lookup` says about an account: the parts of the session the server owns.
public struct Profile: Hashable, Codable, Sendable {
  /// The account's email, if any.
  public var email: String?
  /// Whether Firebase considers the email verified.
  public var emailVerified: Bool
  /// The providers linked to the account (`password` included).
  public var providers: [ProviderID]
  /// The name the server has, if any.
  public var displayName: String?
  /// The URL of the photo the server has, if any.
  public var photoURL: String?
  /// The account's second factors, when the answer says (`nil`: it does not, as an
  /// `accounts:update` answer; the session's list stays).
  public var secondFactors: [SecondFactor]?

  /// A profile.
  public init(
    email: String? = nil, emailVerified: Bool = false, providers: [ProviderID] = [],
    displayName: String? = nil, photoURL: String? = nil, secondFactors: [SecondFactor]? = nil
  ) {
    self.email = email
    self.emailVerified = emailVerified
    self.providers = providers
    self.displayName = displayName
    self.photoURL = photoURL
    self.secondFactors = secondFactors
  }
}

/// A change to the account's profile: each field either stays (`nil`), is set, or is removed
/// (the empty string).
public struct ProfileChange: Hashable, Codable, Sendable {
  /// The new display name; `""` removes it; `nil` leaves it as it is.
  public var displayName: String?
  /// The new photo URL; `""` removes it; `nil` leaves it as it is.
  public var photoURL: String?

  /// A change.
  public init(displayName: String? = nil, photoURL: String? = nil) {
    self.displayName = displayName
    self.photoURL = photoURL
  }

  /// Whether the change changes nothing.
  public var isEmpty: Bool { displayName == nil && photoURL == nil }
}

/// The answer to `updateProfile`.
public enum ProfileAnswer: Hashable, Sendable {
  /// The server's view of the account after the change.
  case profileUpdated(profile: Profile)
  /// The request failed (`USER_DISABLED`, `USER_NOT_FOUND`, `TOKEN_EXPIRED`: the session is
  /// dead on the server).
  case requestFailed(error: AuthError)
}

/// The answer to `lookupAccount`.
public enum LookupAnswer: Hashable, Sendable {
  /// The server's view of the account.
  case accountReloaded(profile: Profile)
  /// The request failed (`USER_DISABLED`, `USER_NOT_FOUND`, `TOKEN_EXPIRED`: the session is
  /// dead on the server).
  case requestFailed(error: AuthError)
}

/// The answer to `sendVerificationEmail` and to `sendEmailChangeVerification` (whose mail goes
/// to the new address).
public enum VerificationEmailAnswer: Hashable, Codable, Sendable {
  /// The verification email is on its way.
  case verificationEmailSent
  /// The request failed.
  case requestFailed(error: AuthError)
}

/// The answer to `applyActionCode`.
public enum ActionCodeAnswer: Hashable, Codable, Sendable {
  /// The code was applied (and is spent): the account of `email` now has its email verified as
  /// `emailVerified` says.
  case actionCodeApplied(email: String?, emailVerified: Bool)
  /// The code was refused (`INVALID_OOB_CODE`: malformed or used; `EXPIRED_OOB_CODE`).
  case requestFailed(error: AuthError)
}

/// The answer to `checkActionCode`.
public enum CheckCodeAnswer: Hashable, Codable, Sendable {
  /// What the code is for (`PASSWORD_RESET`, `VERIFY_EMAIL`, …) and for whose address (withheld
  /// for an email-link sign-in). The code is not used.
  case actionCodeChecked(operation: String, email: String?)
  /// The code was refused (`INVALID_OOB_CODE`, `EXPIRED_OOB_CODE`).
  case requestFailed(error: AuthError)
}

/// The answer to `confirmPasswordReset`.
public enum PasswordResetAnswer: Hashable, Codable, Sendable {
  /// The password of the account of `email` is the new one; Firebase ends that account's
  /// sessions.
  case passwordResetConfirmed(email: String?)
  /// The request failed (`WEAK_PASSWORD` keeps the code usable; `EXPIRED_OOB_CODE`, …).
  case requestFailed(error: AuthError)
}

/// The answer to `updatePassword`.
public enum PasswordChangeAnswer: Hashable, Codable, Sendable {
  /// The password is the new one. Firebase ended the account's other sessions and answered
  /// with new tokens for this one: `session`, to store at once.
  case passwordChanged(session: Session)
  /// The request failed (`WEAK_PASSWORD`; `CREDENTIAL_TOO_OLD_LOGIN_AGAIN`: reauthenticate).
  case requestFailed(error: AuthError)
}

/// A TOTP secret to enrol, as `mfaEnrollment:start` issues it. `sharedSecretKey` and
/// `sessionInfo` are secrets: the app shows the key (or the QR code of `uri`) to the user only.
public struct TotpSecret: Hashable, Codable, Sendable {
  /// The shared secret, base32 (RFC 4648) as Firebase gives it.
  public var sharedSecretKey: String
  /// The enrolment session the secret belongs to; `finalizeTotpEnrollment` sends it back.
  public var sessionInfo: String
  /// How many digits a code has.
  public var codeLength: Int
  /// How many seconds a code lasts.
  public var periodSeconds: Int
  /// The HMAC's hash (`SHA1`, as Firebase issues it).
  public var hashingAlgorithm: String

  public init(
    sharedSecretKey: String, sessionInfo: String, codeLength: Int = 6, periodSeconds: Int = 30,
    hashingAlgorithm: String = "SHA1"
  ) {
    self.sharedSecretKey = sharedSecretKey
    self.sessionInfo = sessionInfo
    self.codeLength = codeLength
    self.periodSeconds = periodSeconds
    self.hashingAlgorithm = hashingAlgorithm
  }

  /// The `otpauth://totp/` URI an authenticator app scans as a QR code: the account's name
  /// (its email, say) and the issuer (the app's name) label the entry.
  public func uri(account: String, issuer: String) -> String {
    // RFC 3986 percent-encoding of everything but the unreserved characters (the core has no
    // Foundation).
    func escaped(_ s: String) -> String {
      let hex = Array("0123456789ABCDEF".utf8)
      var out: [UInt8] = []
      for b in s.utf8 {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
          UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
          UInt8(ascii: "_"), UInt8(ascii: "~"):
          out.append(b)
        default:
          out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 15)]]
        }
      }
      return String(decoding: out, as: UTF8.self)
    }
    return "otpauth://totp/\(escaped(issuer)):\(escaped(account))"
      + "?secret=\(escaped(sharedSecretKey))&issuer=\(escaped(issuer))"
      + "&algorithm=\(escaped(hashingAlgorithm))&digits=\(codeLength)&period=\(periodSeconds)"
  }
}

/// The answer to `startTotpEnrollment`.
public enum TotpSecretAnswer: Hashable, Sendable {
  /// A secret to show, and the enrolment session it belongs to.
  case totpSecretIssued(secret: TotpSecret)
  /// Refused (`UNVERIFIED_EMAIL`, `CREDENTIAL_TOO_OLD_LOGIN_AGAIN`, ...) or not delivered.
  case requestFailed(error: AuthError)
}

/// The answer to `withdrawSecondFactor`.
public enum SecondFactorWithdrawnAnswer: Hashable, Sendable {
  /// Withdrawn: Firebase may answer with new tokens for the session (it may end the account's
  /// other sessions), or with none (the session's stay).
  case secondFactorWithdrawn(Tokens?)
  /// Refused (`MFA_ENROLLMENT_NOT_FOUND`, `CREDENTIAL_TOO_OLD_LOGIN_AGAIN`, ...) or not
  /// delivered.
  case requestFailed(error: AuthError)
}

/// The answer to `finalizeTotpEnrollment`.
public enum TotpEnrollmentAnswer: Hashable, Sendable {
  /// Enrolled: Firebase answers with new tokens for the session (its other sessions may end).
  case totpEnrolled(Tokens)
  /// Refused (`INVALID_CODE`: the user may try another code; `SESSION_EXPIRED`: start again)
  /// or not delivered.
  case requestFailed(error: AuthError)
}

/// The answer to `sendVerificationCode`.
public enum PhoneCodeAnswer: Hashable, Codable, Sendable {
  /// The code is on its way by text; `sessionInfo` (a secret) signs in with it.
  case verificationCodeSent(sessionInfo: String)
  /// The request failed (`INVALID_PHONE_NUMBER`, `MISSING_APP_CREDENTIAL`, `QUOTA_EXCEEDED`,
  /// ...).
  case requestFailed(error: AuthError)
}

/// Firebase's proof that whoever asked owns `phoneNumber`, which is another account's: it signs
/// in to that account once (`signInWithTemporaryProof`), as a guest's migration does.
public struct PhoneProof: Hashable, Codable, Sendable {
  /// The number, in E.164.
  public var phoneNumber: String
  /// The proof (a secret).
  public var temporaryProof: String

  public init(phoneNumber: String, temporaryProof: String) {
    self.phoneNumber = phoneNumber
    self.temporaryProof = temporaryProof
  }
}

/// The app's proof that a text is asked for by the app itself, which Firebase wants with every
/// SMS (a phone sign-in's, an SMS factor's enrolment or sign-in). AuthFlow passes it through as
/// given; the HTTP interpreter sends the fields Firebase names for each kind.
///
/// In a scenario file a string is a reCAPTCHA token (as before); the other kinds are objects:
/// `{"iosReceipt": …, "iosSecret": …}` or `{"captchaResponse": …}`.
public enum AppVerification: Hashable, Sendable, ExpressibleByStringLiteral {
  /// A reCAPTCHA v2 token (the web flow, or iOS's fallback web view): `recaptchaToken`.
  case recaptcha(token: String)
  /// iOS app verification by silent push: the `receipt` from `accounts:verifyIosClient` and the
  /// `secret` the push delivered for it: `iosReceipt` + `iosSecret`.
  case iosApp(receipt: String, secret: String)
  /// A reCAPTCHA Enterprise token: `captchaResponse`, with `clientType` `CLIENT_TYPE_IOS` and
  /// `recaptchaVersion` `RECAPTCHA_ENTERPRISE`.
  case recaptchaEnterprise(token: String)

  /// A string literal is a reCAPTCHA token.
  public init(stringLiteral value: String) { self = .recaptcha(token: value) }

  /// The names of the object forms' fields, as in the scenario format and on the wire.
  public static let fieldNames = ["recaptchaToken", "iosReceipt", "iosSecret", "captchaResponse"]

  /// The proof from a scenario's or a stored JSON object: exactly one kind's fields, each a
  /// non-empty string; what is wrong otherwise.
  public static func from(fields: [String: String]) -> Result<AppVerification, Problem> {
    let unknown = fields.keys.filter { !fieldNames.contains($0) }.sorted()
    if let key = unknown.first {
      return .failure(
        Problem(
          "\(key) is not a field of an app verification (\(fieldNames.joined(separator: ", ")))"))
    }
    if let empty = fields.first(where: { $0.value.isEmpty }) {
      return .failure(Problem("\(empty.key) is empty"))
    }
    switch (
      fields["recaptchaToken"], fields["iosReceipt"], fields["iosSecret"], fields["captchaResponse"]
    ) {
    case (let t?, nil, nil, nil): return .success(.recaptcha(token: t))
    case (nil, let r?, let s?, nil): return .success(.iosApp(receipt: r, secret: s))
    case (nil, nil, nil, let t?): return .success(.recaptchaEnterprise(token: t))
    case (nil, _?, nil, nil), (nil, nil, _?, nil):
      return .failure(Problem("iosReceipt and iosSecret go together"))
    case (nil, nil, nil, nil):
      return .failure(
        Problem("no proof: give recaptchaToken, iosReceipt + iosSecret, or captchaResponse"))
    default:
      return .failure(
        Problem(
          "one kind of proof only: recaptchaToken, iosReceipt + iosSecret, or captchaResponse"))
    }
  }

  /// What is wrong with an object given as a proof.
  public struct Problem: Error, Hashable, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
  }

  /// The fields Firebase names for the proof (a reCAPTCHA token's is written as a plain string
  /// in a scenario file and in the JSON of an event).
  public var fields: [String: String] {
    switch self {
    case .recaptcha(let t): ["recaptchaToken": t]
    case .iosApp(let r, let s): ["iosReceipt": r, "iosSecret": s]
    case .recaptchaEnterprise(let t): ["captchaResponse": t]
    }
  }
}

extension AppVerification: Codable {
  public init(from decoder: any Decoder) throws {
    let single = try decoder.singleValueContainer()
    if let token = try? single.decode(String.self) {
      self = .recaptcha(token: token)
      return
    }
    let fields = try single.decode([String: String].self)
    switch Self.from(fields: fields) {
    case .success(let proof): self = proof
    case .failure(let why):
      throw DecodingError.dataCorruptedError(in: single, debugDescription: why.message)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var single = encoder.singleValueContainer()
    switch self {
    case .recaptcha(let t): try single.encode(t)  // The form every earlier file has.
    default: try single.encode(fields)
    }
  }
}

/// The answer to `signInWithPhoneNumber`.
public enum PhoneSignInAnswer: Hashable, Codable, Sendable {
  /// Firebase signed the number's account in, upgraded the guest, or added the number.
  case signedIn(session: Session)
  /// The code was right but the number is another account's (the answer to a guest's or a
  /// permanent account's request): Firebase's temporary proof signs in to that account.
  case phoneNumberInUse(phoneNumber: String, temporaryProof: String)
  /// The request failed (`INVALID_CODE`, `SESSION_EXPIRED`, ...).
  case requestFailed(error: AuthError)
}

/// The answer to `finalizePhoneEnrollment`.
public enum PhoneEnrollmentAnswer: Hashable, Sendable {
  /// Enrolled: Firebase answers with new tokens for the session (its other sessions may end).
  case phoneEnrolled(Tokens)
  /// Refused (`INVALID_CODE`: the user may try the code again; `SESSION_EXPIRED`: start again)
  /// or not delivered.
  case requestFailed(error: AuthError)
}

/// What comes back to the machine: the answer to one request, with the request's id. One case
/// per request kind, never per outcome.
public enum Answer: Hashable, Sendable {
  case loadSession(RequestID, LoadAnswer)
  case signUpAnonymously(RequestID, SessionAnswer)
  case authorize(RequestID, AuthorizeAnswer)
  case signInWithIdp(RequestID, IdPAnswer)
  case signInWithPassword(RequestID, FirstFactorAnswer)
  case signUpWithPassword(RequestID, SessionAnswer)
  case sendPasswordReset(RequestID, ResetAnswer)
  case refreshToken(RequestID, RefreshAnswer)
  case deleteAccount(RequestID, DeleteAnswer)
  case revokeToken(RequestID, RevokeAnswer)
  case unlinkProvider(RequestID, UnlinkAnswer)
  case lookupAccount(RequestID, LookupAnswer)
  case sendVerificationEmail(RequestID, VerificationEmailAnswer)
  case applyActionCode(RequestID, ActionCodeAnswer)
  case checkActionCode(RequestID, CheckCodeAnswer)
  case confirmPasswordReset(RequestID, PasswordResetAnswer)
  case signInWithCustomToken(RequestID, SignInAnswer)
  case updatePassword(RequestID, PasswordChangeAnswer)
  case sendEmailChangeVerification(RequestID, VerificationEmailAnswer)
  case updateProfile(RequestID, ProfileAnswer)
  case sendSignInLink(RequestID, SignInLinkAnswer)
  case signInWithEmailLink(RequestID, FirstFactorAnswer)
  case startSecondFactorSignIn(RequestID, SecondFactorCodeAnswer)
  case finalizeSecondFactorSignIn(RequestID, SessionAnswer)
  case startTotpEnrollment(RequestID, TotpSecretAnswer)
  case finalizeTotpEnrollment(RequestID, TotpEnrollmentAnswer)
  case withdrawSecondFactor(RequestID, SecondFactorWithdrawnAnswer)
  case startPhoneEnrollment(RequestID, SecondFactorCodeAnswer)
  case finalizePhoneEnrollment(RequestID, PhoneEnrollmentAnswer)
  case sendVerificationCode(RequestID, PhoneCodeAnswer)
  case signInWithPhoneNumber(RequestID, PhoneSignInAnswer)
  case signInWithTemporaryProof(RequestID, SessionAnswer)

  /// The failure of a request of `kind` (`providerFailed` for a consent step).
  public static func failed(_ kind: RequestKind, _ id: RequestID, _ e: AuthError) -> Answer {
    switch kind {
    case .loadSession: .loadSession(id, .failure(e))
    case .signUpAnonymously: .signUpAnonymously(id, .failure(e))
    case .authorize: .authorize(id, .failure(e))
    case .signInWithIdp: .signInWithIdp(id, .failure(e))
    case .signInWithPassword: .signInWithPassword(id, .failure(e))
    case .signUpWithPassword: .signUpWithPassword(id, .failure(e))
    case .sendPasswordReset: .sendPasswordReset(id, .failure(e))
    case .refreshToken: .refreshToken(id, .failure(e))
    case .deleteAccount: .deleteAccount(id, .failure(e))
    case .revokeToken: .revokeToken(id, .failure(e))
    case .unlinkProvider: .unlinkProvider(id, .failure(e))
    case .lookupAccount: .lookupAccount(id, .failure(e))
    case .sendVerificationEmail: .sendVerificationEmail(id, .failure(e))
    case .applyActionCode: .applyActionCode(id, .failure(e))
    case .checkActionCode: .checkActionCode(id, .failure(e))
    case .confirmPasswordReset: .confirmPasswordReset(id, .failure(e))
    case .signInWithCustomToken: .signInWithCustomToken(id, .failure(e))
    case .updatePassword: .updatePassword(id, .failure(e))
    case .sendEmailChangeVerification: .sendEmailChangeVerification(id, .failure(e))
    case .updateProfile: .updateProfile(id, .failure(e))
    case .sendSignInLink: .sendSignInLink(id, .failure(e))
    case .signInWithEmailLink: .signInWithEmailLink(id, .failure(e))
    case .startSecondFactorSignIn: .startSecondFactorSignIn(id, .failure(e))
    case .finalizeSecondFactorSignIn: .finalizeSecondFactorSignIn(id, .failure(e))
    case .startTotpEnrollment: .startTotpEnrollment(id, .failure(e))
    case .finalizeTotpEnrollment: .finalizeTotpEnrollment(id, .failure(e))
    case .withdrawSecondFactor: .withdrawSecondFactor(id, .failure(e))
    case .startPhoneEnrollment: .startPhoneEnrollment(id, .failure(e))
    case .finalizePhoneEnrollment: .finalizePhoneEnrollment(id, .failure(e))
    case .sendVerificationCode: .sendVerificationCode(id, .failure(e))
    case .signInWithPhoneNumber: .signInWithPhoneNumber(id, .failure(e))
    case .signInWithTemporaryProof: .signInWithTemporaryProof(id, .failure(e))
    }
  }

  /// The id of the request it answers.
  public var id: RequestID {
    switch self {
    case .loadSession(let id, _), .signUpAnonymously(let id, _), .authorize(let id, _),
      .signInWithIdp(let id, _), .signInWithPassword(let id, _), .signUpWithPassword(let id, _),
      .sendPasswordReset(let id, _), .refreshToken(let id, _), .deleteAccount(let id, _),
      .revokeToken(let id, _), .unlinkProvider(let id, _), .lookupAccount(let id, _),
      .sendVerificationEmail(let id, _), .applyActionCode(let id, _), .checkActionCode(let id, _),
      .confirmPasswordReset(let id, _), .signInWithCustomToken(let id, _),
      .updatePassword(let id, _), .sendEmailChangeVerification(let id, _),
      .updateProfile(let id, _), .sendSignInLink(let id, _), .signInWithEmailLink(let id, _),
      .startSecondFactorSignIn(let id, _), .finalizeSecondFactorSignIn(let id, _),
      .startTotpEnrollment(let id, _), .finalizeTotpEnrollment(let id, _),
      .withdrawSecondFactor(let id, _), .startPhoneEnrollment(let id, _),
      .finalizePhoneEnrollment(let id, _), .sendVerificationCode(let id, _),
      .signInWithPhoneNumber(let id, _), .signInWithTemporaryProof(let id, _):
      id
    }
  }

  /// The same answer, for request `id`.
  public func with(id: RequestID) -> Answer { changed(id: id, Unchanged()) }

  /// The kind of request it answers.
  public var kind: RequestKind {
    switch self {
    case .loadSession: .loadSession
    case .signUpAnonymously: .signUpAnonymously
    case .authorize: .authorize
    case .signInWithIdp: .signInWithIdp
    case .signInWithPassword: .signInWithPassword
    case .signUpWithPassword: .signUpWithPassword
    case .sendPasswordReset: .sendPasswordReset
    case .refreshToken: .refreshToken
    case .deleteAccount: .deleteAccount
    case .revokeToken: .revokeToken
    case .unlinkProvider: .unlinkProvider
    case .lookupAccount: .lookupAccount
    case .sendVerificationEmail: .sendVerificationEmail
    case .applyActionCode: .applyActionCode
    case .checkActionCode: .checkActionCode
    case .confirmPasswordReset: .confirmPasswordReset
    case .signInWithCustomToken: .signInWithCustomToken
    case .updatePassword: .updatePassword
    case .sendEmailChangeVerification: .sendEmailChangeVerification
    case .updateProfile: .updateProfile
    case .sendSignInLink: .sendSignInLink
    case .signInWithEmailLink: .signInWithEmailLink
    case .startSecondFactorSignIn: .startSecondFactorSignIn
    case .finalizeSecondFactorSignIn: .finalizeSecondFactorSignIn
    case .startTotpEnrollment: .startTotpEnrollment
    case .finalizeTotpEnrollment: .finalizeTotpEnrollment
    case .startPhoneEnrollment: .startPhoneEnrollment
    case .finalizePhoneEnrollment: .finalizePhoneEnrollment
    case .sendVerificationCode: .sendVerificationCode
    case .signInWithPhoneNumber: .signInWithPhoneNumber
    case .signInWithTemporaryProof: .signInWithTemporaryProof
    case .withdrawSecondFactor: .withdrawSecondFactor
    }
  }

  /// The outcome alone, for printing and matching (its JSON is the scenario format's).
  public var outcome: any Codable & Sendable { ask(Boxed()) }

  /// The outcome's name, as scenario files spell it (`signedIn`, `requestFailed`, …): the
  /// Swift case's own name (the scenario tests check each against the answer's JSON key).
  public var outcomeName: String { ask(Name()) }

  /// The error, when the request failed.
  public var error: AuthError? { ask(Failure()) }

  /// The session a sign-in (of any kind) answered with.
  public var signedInSession: Session? { ask(SignedIn()) }

  /// The same answer with the session, tokens and credential it carries passed through the
  /// given functions (a scenario file's relative expiry is stamped this way). Each answer type
  /// says what it carries (`RequestOutcome.mapping`), so a new one that carries one says so
  /// beside its cases.
  public func mapping(
    session: (Session) -> Session, tokens: (Tokens) -> Tokens,
    credential: (IdPCredential) -> IdPCredential
  ) -> Answer {
    withoutActuallyEscaping(session) { session in
      withoutActuallyEscaping(tokens) { tokens in
        withoutActuallyEscaping(credential) { credential in
          changed(id: nil, Mapped(session: session, tokens: tokens, credential: credential))
        }
      }
    }
  }

  /// Asks `q` of the outcome with its own type: the one switch over the request kinds that
  /// reads an outcome (each call is specialized; nothing is boxed).
  func ask<Q: OutcomeQuestion>(_ q: Q) -> Q.Reply {
    switch self {
    case .loadSession(_, let a): q.ask(a)
    case .signUpAnonymously(_, let a): q.ask(a)
    case .authorize(_, let a): q.ask(a)
    case .signInWithIdp(_, let a): q.ask(a)
    case .signInWithPassword(_, let a): q.ask(a)
    case .signUpWithPassword(_, let a): q.ask(a)
    case .sendPasswordReset(_, let a): q.ask(a)
    case .refreshToken(_, let a): q.ask(a)
    case .deleteAccount(_, let a): q.ask(a)
    case .revokeToken(_, let a): q.ask(a)
    case .unlinkProvider(_, let a): q.ask(a)
    case .lookupAccount(_, let a): q.ask(a)
    case .sendVerificationEmail(_, let a): q.ask(a)
    case .applyActionCode(_, let a): q.ask(a)
    case .checkActionCode(_, let a): q.ask(a)
    case .confirmPasswordReset(_, let a): q.ask(a)
    case .signInWithCustomToken(_, let a): q.ask(a)
    case .updatePassword(_, let a): q.ask(a)
    case .sendEmailChangeVerification(_, let a): q.ask(a)
    case .updateProfile(_, let a): q.ask(a)
    case .sendSignInLink(_, let a): q.ask(a)
    case .signInWithEmailLink(_, let a): q.ask(a)
    case .startSecondFactorSignIn(_, let a): q.ask(a)
    case .finalizeSecondFactorSignIn(_, let a): q.ask(a)
    case .startTotpEnrollment(_, let a): q.ask(a)
    case .finalizeTotpEnrollment(_, let a): q.ask(a)
    case .withdrawSecondFactor(_, let a): q.ask(a)
    case .startPhoneEnrollment(_, let a): q.ask(a)
    case .finalizePhoneEnrollment(_, let a): q.ask(a)
    case .sendVerificationCode(_, let a): q.ask(a)
    case .signInWithPhoneNumber(_, let a): q.ask(a)
    case .signInWithTemporaryProof(_, let a): q.ask(a)
    }
  }

  /// The same kind of answer with its outcome changed by `c`, for request `newID` when given:
  /// the one switch over the request kinds that rebuilds an answer.
  func changed<C: OutcomeChange>(id newID: RequestID?, _ c: C) -> Answer {
    switch self {
    case .loadSession(let id, let a): .loadSession(newID ?? id, c.change(a))
    case .signUpAnonymously(let id, let a): .signUpAnonymously(newID ?? id, c.change(a))
    case .authorize(let id, let a): .authorize(newID ?? id, c.change(a))
    case .signInWithIdp(let id, let a): .signInWithIdp(newID ?? id, c.change(a))
    case .signInWithPassword(let id, let a): .signInWithPassword(newID ?? id, c.change(a))
    case .signUpWithPassword(let id, let a): .signUpWithPassword(newID ?? id, c.change(a))
    case .sendPasswordReset(let id, let a): .sendPasswordReset(newID ?? id, c.change(a))
    case .refreshToken(let id, let a): .refreshToken(newID ?? id, c.change(a))
    case .deleteAccount(let id, let a): .deleteAccount(newID ?? id, c.change(a))
    case .revokeToken(let id, let a): .revokeToken(newID ?? id, c.change(a))
    case .unlinkProvider(let id, let a): .unlinkProvider(newID ?? id, c.change(a))
    case .lookupAccount(let id, let a): .lookupAccount(newID ?? id, c.change(a))
    case .sendVerificationEmail(let id, let a): .sendVerificationEmail(newID ?? id, c.change(a))
    case .applyActionCode(let id, let a): .applyActionCode(newID ?? id, c.change(a))
    case .checkActionCode(let id, let a): .checkActionCode(newID ?? id, c.change(a))
    case .confirmPasswordReset(let id, let a): .confirmPasswordReset(newID ?? id, c.change(a))
    case .signInWithCustomToken(let id, let a): .signInWithCustomToken(newID ?? id, c.change(a))
    case .updatePassword(let id, let a): .updatePassword(newID ?? id, c.change(a))
    case .sendEmailChangeVerification(let id, let a):
      .sendEmailChangeVerification(newID ?? id, c.change(a))
    case .updateProfile(let id, let a): .updateProfile(newID ?? id, c.change(a))
    case .sendSignInLink(let id, let a): .sendSignInLink(newID ?? id, c.change(a))
    case .signInWithEmailLink(let id, let a): .signInWithEmailLink(newID ?? id, c.change(a))
    case .startSecondFactorSignIn(let id, let a): .startSecondFactorSignIn(newID ?? id, c.change(a))
    case .finalizeSecondFactorSignIn(let id, let a):
      .finalizeSecondFactorSignIn(newID ?? id, c.change(a))
    case .startTotpEnrollment(let id, let a): .startTotpEnrollment(newID ?? id, c.change(a))
    case .finalizeTotpEnrollment(let id, let a): .finalizeTotpEnrollment(newID ?? id, c.change(a))
    case .withdrawSecondFactor(let id, let a): .withdrawSecondFactor(newID ?? id, c.change(a))
    case .startPhoneEnrollment(let id, let a): .startPhoneEnrollment(newID ?? id, c.change(a))
    case .finalizePhoneEnrollment(let id, let a): .finalizePhoneEnrollment(newID ?? id, c.change(a))
    case .sendVerificationCode(let id, let a): .sendVerificationCode(newID ?? id, c.change(a))
    case .signInWithPhoneNumber(let id, let a): .signInWithPhoneNumber(newID ?? id, c.change(a))
    case .signInWithTemporaryProof(let id, let a):
      .signInWithTemporaryProof(newID ?? id, c.change(a))
    }
  }

  private struct Unchanged: OutcomeChange {
    func change<O: RequestOutcome>(_ outcome: O) -> O { outcome }
  }

  private struct Mapped: OutcomeChange {
    let session: (Session) -> Session
    let tokens: (Tokens) -> Tokens
    let credential: (IdPCredential) -> IdPCredential

    func change<O: RequestOutcome>(_ outcome: O) -> O {
      outcome.mapping(session: session, tokens: tokens, credential: credential)
    }
  }

  private struct Boxed: OutcomeQuestion {
    func ask<O: RequestOutcome>(_ outcome: O) -> any Codable & Sendable { outcome }
  }

  private struct Name: OutcomeQuestion {
    func ask<O: RequestOutcome>(_ outcome: O) -> String { outcome.name }
  }

  private struct Failure: OutcomeQuestion {
    func ask<O: RequestOutcome>(_ outcome: O) -> AuthError? { outcome.error }
  }

  private struct SignedIn: OutcomeQuestion {
    func ask<O: RequestOutcome>(_ outcome: O) -> Session? { outcome.signedInSession }
  }

  /// The tokens a refresh answered with.
  public var refreshedTokens: Tokens? {
    if case .refreshToken(_, .tokenRefreshed(let t)) = self { return t }
    return nil
  }

  /// Whether this is the confirmation that an account was deleted.
  public var isAccountDeleted: Bool {
    if case .deleteAccount(_, .accountDeleted) = self { return true }
    return false
  }

  /// The session a read of the store found (`.some(nil)`: nothing stored), if this is one.
  public var loadedSession: Session?? {
    if case .loadSession(_, .sessionLoaded(let s)) = self { return .some(s) }
    return nil
  }

  /// The credential a consent step answered with.
  public var authorizedCredential: IdPCredential? {
    if case .authorize(_, .providerSucceeded(let c)) = self { return c }
    return nil
  }
}

/// A request kind and the type of answer it gets: `RequestSlot.lookupAccount` is a
/// `RequestSlot<LookupAnswer>`, so code that answers requests one kind at a time
/// (`TestInterpreter.answer(_:with:)`) cannot pair a kind with another kind's answers. Each
/// request kind declares its slot once, below; the rest is generic.
public struct RequestSlot<Outcome: RequestOutcome>: Sendable {
  /// The request kind.
  public let kind: RequestKind

  init(kind: RequestKind) { self.kind = kind }

  /// `outcome` as the answer to the request `id` of this kind.
  public func answer(_ id: RequestID, _ outcome: Outcome) -> Answer {
    Answer.failed(kind, id, AuthError(code: "")).changed(
      id: nil, Answer.Replacing(outcome: outcome))
  }

  /// The outcome `answer` carries, when it answers a request of this kind.
  public func outcome(of answer: Answer) -> Outcome? {
    answer.kind == kind ? answer.ask(Reading<Outcome>()) : nil
  }

  private struct Reading<Wanted>: OutcomeQuestion {
    func ask<O: RequestOutcome>(_ outcome: O) -> Wanted? { outcome as? Wanted }
  }
}

extension Answer {
  /// `outcome` as the answer to the request `id` of `kind`, or nil when `outcome` is not of
  /// that kind's answer type (`RequestKind.outcomeType`): for a reader that learns the kind at
  /// run time. Where the kind is known in Swift, `RequestSlot.answer(_:_:)` checks it at
  /// compile time instead.
  public init?(_ kind: RequestKind, _ id: RequestID, outcome: any RequestOutcome) {
    guard ObjectIdentifier(type(of: outcome)) == ObjectIdentifier(kind.outcomeType) else {
      return nil
    }
    self = Answer.failed(kind, id, AuthError(code: "")).changed(
      id: nil, Replacing(outcome: outcome))
  }

  /// Puts `outcome` in place of an answer's outcome of the same type (`RequestSlot.answer`,
  /// `init(_:_:outcome:)`).
  struct Replacing: OutcomeChange {
    let outcome: any RequestOutcome
    func change<O: RequestOutcome>(_ other: O) -> O { outcome as? O ?? other }
  }
}

extension RequestSlot where Outcome == SessionAnswer {
  /// `signUpAnonymously`.
  public static var signUpAnonymously: Self { Self(kind: .signUpAnonymously) }
  /// `signUpWithPassword`.
  public static var signUpWithPassword: Self { Self(kind: .signUpWithPassword) }
  /// `finalizeSecondFactorSignIn`.
  public static var finalizeSecondFactorSignIn: Self { Self(kind: .finalizeSecondFactorSignIn) }
  /// `signInWithTemporaryProof`.
  public static var signInWithTemporaryProof: Self { Self(kind: .signInWithTemporaryProof) }
}

extension RequestSlot where Outcome == PhoneSignInAnswer {
  /// `signInWithPhoneNumber`.
  public static var signInWithPhoneNumber: Self { Self(kind: .signInWithPhoneNumber) }
}

extension RequestSlot where Outcome == PhoneCodeAnswer {
  /// `sendVerificationCode`.
  public static var sendVerificationCode: Self { Self(kind: .sendVerificationCode) }
}

extension RequestSlot where Outcome == FirstFactorAnswer {
  /// `signInWithPassword`.
  public static var signInWithPassword: Self { Self(kind: .signInWithPassword) }
  /// `signInWithEmailLink`.
  public static var signInWithEmailLink: Self { Self(kind: .signInWithEmailLink) }
}

extension RequestSlot where Outcome == SecondFactorCodeAnswer {
  /// `startSecondFactorSignIn`.
  public static var startSecondFactorSignIn: Self { Self(kind: .startSecondFactorSignIn) }
  /// `startPhoneEnrollment`.
  public static var startPhoneEnrollment: Self { Self(kind: .startPhoneEnrollment) }
}

extension RequestSlot where Outcome == PhoneEnrollmentAnswer {
  /// `finalizePhoneEnrollment`.
  public static var finalizePhoneEnrollment: Self { Self(kind: .finalizePhoneEnrollment) }
}

extension RequestSlot where Outcome == TotpSecretAnswer {
  /// `startTotpEnrollment`.
  public static var startTotpEnrollment: Self { Self(kind: .startTotpEnrollment) }
}

extension RequestSlot where Outcome == TotpEnrollmentAnswer {
  /// `finalizeTotpEnrollment`.
  public static var finalizeTotpEnrollment: Self { Self(kind: .finalizeTotpEnrollment) }
}

extension RequestSlot where Outcome == SecondFactorWithdrawnAnswer {
  /// `withdrawSecondFactor`.
  public static var withdrawSecondFactor: Self { Self(kind: .withdrawSecondFactor) }
}

extension RequestSlot where Outcome == SignInLinkAnswer {
  /// `sendSignInLink`.
  public static var sendSignInLink: Self { Self(kind: .sendSignInLink) }
}

extension RequestSlot where Outcome == AuthorizeAnswer {
  /// A provider's consent step (`authorize`, Google's included).
  public static var authorize: Self { Self(kind: .authorize) }
}

extension RequestSlot where Outcome == IdPAnswer {
  /// `signInWithIdp`.
  public static var signInWithIdp: Self { Self(kind: .signInWithIdp) }
}

extension RequestSlot where Outcome == SignInAnswer {
  /// `signInWithCustomToken`.
  public static var signInWithCustomToken: Self { Self(kind: .signInWithCustomToken) }
}

extension RequestSlot where Outcome == ResetAnswer {
  /// `sendPasswordReset`.
  public static var sendPasswordReset: Self { Self(kind: .sendPasswordReset) }
}

extension RequestSlot where Outcome == RefreshAnswer {
  /// `refreshToken`.
  public static var refreshToken: Self { Self(kind: .refreshToken) }
}

extension RequestSlot where Outcome == DeleteAnswer {
  /// `deleteAccount`.
  public static var deleteAccount: Self { Self(kind: .deleteAccount) }
}

extension RequestSlot where Outcome == RevokeAnswer {
  /// `revokeToken`.
  public static var revokeToken: Self { Self(kind: .revokeToken) }
}

extension RequestSlot where Outcome == UnlinkAnswer {
  /// `unlinkProvider`.
  public static var unlinkProvider: Self { Self(kind: .unlinkProvider) }
}

extension RequestSlot where Outcome == LookupAnswer {
  /// `lookupAccount` (a reload).
  public static var lookupAccount: Self { Self(kind: .lookupAccount) }
}

extension RequestSlot where Outcome == ProfileAnswer {
  /// `updateProfile`.
  public static var updateProfile: Self { Self(kind: .updateProfile) }
}

extension RequestSlot where Outcome == VerificationEmailAnswer {
  /// `sendVerificationEmail`.
  public static var sendVerificationEmail: Self { Self(kind: .sendVerificationEmail) }
  /// `sendEmailChangeVerification`.
  public static var sendEmailChangeVerification: Self {
    Self(kind: .sendEmailChangeVerification)
  }
}

extension RequestSlot where Outcome == ActionCodeAnswer {
  /// `applyActionCode`.
  public static var applyActionCode: Self { Self(kind: .applyActionCode) }
}

extension RequestSlot where Outcome == CheckCodeAnswer {
  /// `checkActionCode`.
  public static var checkActionCode: Self { Self(kind: .checkActionCode) }
}

extension RequestSlot where Outcome == PasswordChangeAnswer {
  /// `updatePassword`.
  public static var updatePassword: Self { Self(kind: .updatePassword) }
}

extension RequestSlot where Outcome == PasswordResetAnswer {
  /// `confirmPasswordReset`.
  public static var confirmPasswordReset: Self { Self(kind: .confirmPasswordReset) }
}

extension Event {
  /// The answer this event carries, if it is one.
  public var answer: Answer? {
    if case .answer(let a) = self { return a }
    return nil
  }

  /// Whether this event is an answer: `answer != nil` without building the optional answer
  /// (this compiler destroys an optional struct or enum through the runtime's generic value
  /// witness, which costs more than the rest of the question).
  var isAnswer: Bool {
    if case .answer = self { return true }
    return false
  }
}

extension Answer: Codable {
  private enum CodingKeys: String, CodingKey { case kind, requestId, answer }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let id = try c.decode(RequestID.self, forKey: .requestId)
    func a<T: Decodable>(_ t: T.Type) throws -> T { try c.decode(T.self, forKey: .answer) }
    switch try c.decode(RequestKind.self, forKey: .kind) {
    case .loadSession: self = .loadSession(id, try a(LoadAnswer.self))
    case .signUpAnonymously: self = .signUpAnonymously(id, try a(SessionAnswer.self))
    case .authorize: self = .authorize(id, try a(AuthorizeAnswer.self))
    case .signInWithIdp: self = .signInWithIdp(id, try a(IdPAnswer.self))
    case .signInWithPassword: self = .signInWithPassword(id, try a(FirstFactorAnswer.self))
    case .signUpWithPassword: self = .signUpWithPassword(id, try a(SessionAnswer.self))
    case .sendPasswordReset: self = .sendPasswordReset(id, try a(ResetAnswer.self))
    case .refreshToken: self = .refreshToken(id, try a(RefreshAnswer.self))
    case .deleteAccount: self = .deleteAccount(id, try a(DeleteAnswer.self))
    case .revokeToken: self = .revokeToken(id, try a(RevokeAnswer.self))
    case .unlinkProvider: self = .unlinkProvider(id, try a(UnlinkAnswer.self))
    case .lookupAccount: self = .lookupAccount(id, try a(LookupAnswer.self))
    case .sendVerificationEmail:
      self = .sendVerificationEmail(id, try a(VerificationEmailAnswer.self))
    case .applyActionCode: self = .applyActionCode(id, try a(ActionCodeAnswer.self))
    case .checkActionCode: self = .checkActionCode(id, try a(CheckCodeAnswer.self))
    case .confirmPasswordReset:
      self = .confirmPasswordReset(id, try a(PasswordResetAnswer.self))
    case .signInWithCustomToken: self = .signInWithCustomToken(id, try a(SignInAnswer.self))
    case .updatePassword: self = .updatePassword(id, try a(PasswordChangeAnswer.self))
    case .sendEmailChangeVerification:
      self = .sendEmailChangeVerification(id, try a(VerificationEmailAnswer.self))
    case .updateProfile: self = .updateProfile(id, try a(ProfileAnswer.self))
    case .sendSignInLink: self = .sendSignInLink(id, try a(SignInLinkAnswer.self))
    case .signInWithEmailLink: self = .signInWithEmailLink(id, try a(FirstFactorAnswer.self))
    case .startSecondFactorSignIn:
      self = .startSecondFactorSignIn(id, try a(SecondFactorCodeAnswer.self))
    case .finalizeSecondFactorSignIn:
      self = .finalizeSecondFactorSignIn(id, try a(SessionAnswer.self))
    case .startTotpEnrollment: self = .startTotpEnrollment(id, try a(TotpSecretAnswer.self))
    case .finalizeTotpEnrollment:
      self = .finalizeTotpEnrollment(id, try a(TotpEnrollmentAnswer.self))
    case .withdrawSecondFactor:
      self = .withdrawSecondFactor(id, try a(SecondFactorWithdrawnAnswer.self))
    case .startPhoneEnrollment:
      self = .startPhoneEnrollment(id, try a(SecondFactorCodeAnswer.self))
    case .finalizePhoneEnrollment:
      self = .finalizePhoneEnrollment(id, try a(PhoneEnrollmentAnswer.self))
    case .sendVerificationCode: self = .sendVerificationCode(id, try a(PhoneCodeAnswer.self))
    case .signInWithPhoneNumber: self = .signInWithPhoneNumber(id, try a(PhoneSignInAnswer.self))
    case .signInWithTemporaryProof:
      self = .signInWithTemporaryProof(id, try a(SessionAnswer.self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(kind, forKey: .kind)
    try c.encode(id, forKey: .requestId)
    try outcome.encode(to: c.superEncoder(forKey: .answer))
  }
}

/// The JSON of an answer that is one payload or a failure: `{"<success>": {the payload's fields,
/// flat}}` or `{"requestFailed": {"error"}}`, as scenario files write them.
enum FlatAnswerJSON {
  static func decode<Payload: Decodable>(_ decoder: any Decoder, success: String) throws
    -> Result<Payload, AuthError>
  {
    let c = try decoder.container(keyedBy: FieldKey.self)
    if c.contains(FieldKey(success)) {
      return .success(try c.decode(Payload.self, forKey: FieldKey(success)))
    }
    let f = try c.nestedContainer(keyedBy: FieldKey.self, forKey: FieldKey("requestFailed"))
    return .failure(try f.decode(AuthError.self, forKey: FieldKey("error")))
  }

  static func encode<Payload: Encodable>(
    _ answer: Result<Payload, AuthError>, success: String, to encoder: any Encoder
  ) throws {
    var c = encoder.container(keyedBy: FieldKey.self)
    switch answer {
    case .success(let p): try c.encode(p, forKey: FieldKey(success))
    case .failure(let e):
      var f = c.nestedContainer(keyedBy: FieldKey.self, forKey: FieldKey("requestFailed"))
      try f.encode(e, forKey: FieldKey("error"))
    }
  }
}

extension RefreshAnswer: Codable {
  public init(from decoder: any Decoder) throws {
    switch try FlatAnswerJSON.decode(decoder, success: "tokenRefreshed")
      as Result<Tokens, AuthError>
    {
    case .success(let t): self = .tokenRefreshed(t)
    case .failure(let e): self = .requestFailed(error: e)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .tokenRefreshed(let t):
      try FlatAnswerJSON.encode(.success(t), success: "tokenRefreshed", to: encoder)
    case .requestFailed(let e):
      try FlatAnswerJSON.encode(
        Result<Tokens, AuthError>.failure(e), success: "tokenRefreshed", to: encoder)
    }
  }
}

extension TotpSecretAnswer: Codable {
  // The secret's fields flat, as scenario files spell them.
  public init(from decoder: any Decoder) throws {
    switch try FlatAnswerJSON.decode(decoder, success: "totpSecretIssued")
      as Result<TotpSecret, AuthError>
    {
    case .success(let s): self = .totpSecretIssued(secret: s)
    case .failure(let e): self = .requestFailed(error: e)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .totpSecretIssued(let s):
      try FlatAnswerJSON.encode(.success(s), success: "totpSecretIssued", to: encoder)
    case .requestFailed(let e):
      try FlatAnswerJSON.encode(
        Result<TotpSecret, AuthError>.failure(e), success: "totpSecretIssued", to: encoder)
    }
  }
}

extension SecondFactorWithdrawnAnswer: Codable {
  /// The tokens a withdrawal may carry, flat, or an empty object without.
  struct MaybeTokens: Codable {
    var tokens: Tokens?

    init(_ tokens: Tokens?) { self.tokens = tokens }

    init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: FieldKey.self)
      tokens = c.contains(FieldKey("idToken")) ? try Tokens(from: decoder) : nil
    }

    func encode(to encoder: any Encoder) throws {
      if let tokens { return try tokens.encode(to: encoder) }
      _ = encoder.container(keyedBy: FieldKey.self)
    }
  }

  public init(from decoder: any Decoder) throws {
    switch try FlatAnswerJSON.decode(decoder, success: "secondFactorWithdrawn")
      as Result<MaybeTokens, AuthError>
    {
    case .success(let t): self = .secondFactorWithdrawn(t.tokens)
    case .failure(let e): self = .requestFailed(error: e)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .secondFactorWithdrawn(let t):
      try FlatAnswerJSON.encode(
        .success(MaybeTokens(t)), success: "secondFactorWithdrawn", to: encoder)
    case .requestFailed(let e):
      try FlatAnswerJSON.encode(
        Result<MaybeTokens, AuthError>.failure(e), success: "secondFactorWithdrawn", to: encoder)
    }
  }
}

extension TotpEnrollmentAnswer: Codable {
  public init(from decoder: any Decoder) throws {
    switch try FlatAnswerJSON.decode(decoder, success: "totpEnrolled") as Result<Tokens, AuthError>
    {
    case .success(let t): self = .totpEnrolled(t)
    case .failure(let e): self = .requestFailed(error: e)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .totpEnrolled(let t):
      try FlatAnswerJSON.encode(.success(t), success: "totpEnrolled", to: encoder)
    case .requestFailed(let e):
      try FlatAnswerJSON.encode(
        Result<Tokens, AuthError>.failure(e), success: "totpEnrolled", to: encoder)
    }
  }
}

extension PhoneEnrollmentAnswer: Codable {
  public init(from decoder: any Decoder) throws {
    switch try FlatAnswerJSON.decode(decoder, success: "phoneEnrolled") as Result<Tokens, AuthError>
    {
    case .success(let t): self = .phoneEnrolled(t)
    case .failure(let e): self = .requestFailed(error: e)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .phoneEnrolled(let t):
      try FlatAnswerJSON.encode(.success(t), success: "phoneEnrolled", to: encoder)
    case .requestFailed(let e):
      try FlatAnswerJSON.encode(
        Result<Tokens, AuthError>.failure(e), success: "phoneEnrolled", to: encoder)
    }
  }
}

extension ProfileAnswer: Codable {
  public init(from decoder: any Decoder) throws {
    switch try FlatAnswerJSON.decode(decoder, success: "profileUpdated")
      as Result<Profile, AuthError>
    {
    case .success(let p): self = .profileUpdated(profile: p)
    case .failure(let e): self = .requestFailed(error: e)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .profileUpdated(let p):
      try FlatAnswerJSON.encode(.success(p), success: "profileUpdated", to: encoder)
    case .requestFailed(let e):
      try FlatAnswerJSON.encode(
        Result<Profile, AuthError>.failure(e), success: "profileUpdated", to: encoder)
    }
  }
}

extension LookupAnswer: Codable {
  public init(from decoder: any Decoder) throws {
    switch try FlatAnswerJSON.decode(decoder, success: "accountReloaded")
      as Result<Profile, AuthError>
    {
    case .success(let p): self = .accountReloaded(profile: p)
    case .failure(let e): self = .requestFailed(error: e)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .accountReloaded(let p):
      try FlatAnswerJSON.encode(.success(p), success: "accountReloaded", to: encoder)
    case .requestFailed(let e):
      try FlatAnswerJSON.encode(
        Result<Profile, AuthError>.failure(e), success: "accountReloaded", to: encoder)
    }
  }
}

extension FirstFactorAnswer: Codable {
  // Its three answers are three of a provider's sign-in's, written the same way (the challenge
  // flat, as scenario files spell it): one JSON form, declared once in `IdPAnswer`'s.
  public init(from decoder: any Decoder) throws {
    switch try IdPAnswer(from: decoder) {
    case .signedIn(let s): self = .signedIn(session: s)
    case .secondFactorRequired(let c): self = .secondFactorRequired(challenge: c)
    case .requestFailed(let e): self = .requestFailed(error: e)
    case .credentialAlreadyInUse, .accountExistsWithDifferentCredential:
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath,
          debugDescription: "a password or email link sign-in has no such answer"))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    let same: IdPAnswer =
      switch self {
      case .signedIn(let s): .signedIn(session: s)
      case .secondFactorRequired(let c): .secondFactorRequired(challenge: c)
      case .requestFailed(let e): .requestFailed(error: e)
      }
    try same.encode(to: encoder)
  }
}

extension IdPAnswer: Codable {
  private enum Key: String, CodingKey {
    case signedIn, credentialAlreadyInUse, secondFactorRequired,
      accountExistsWithDifferentCredential
    case requestFailed
  }
  private enum Field: String, CodingKey { case session, credential, email, providers, error }

  // The challenge is written flat, as scenario files spell it.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: Key.self)
    if c.contains(.secondFactorRequired) {
      self = .secondFactorRequired(
        challenge: try c.decode(SecondFactorChallenge.self, forKey: .secondFactorRequired))
    } else if c.contains(.signedIn) {
      let f = try c.nestedContainer(keyedBy: Field.self, forKey: .signedIn)
      self = .signedIn(session: try f.decode(Session.self, forKey: .session))
    } else if c.contains(.accountExistsWithDifferentCredential) {
      let f = try c.nestedContainer(
        keyedBy: Field.self, forKey: .accountExistsWithDifferentCredential)
      self = .accountExistsWithDifferentCredential(
        email: try f.decodeIfPresent(String.self, forKey: .email),
        providers: try f.decodeIfPresent([ProviderID].self, forKey: .providers) ?? [])
    } else if c.contains(.credentialAlreadyInUse) {
      let f = try c.nestedContainer(keyedBy: Field.self, forKey: .credentialAlreadyInUse)
      self = .credentialAlreadyInUse(
        credential: try f.decode(IdPCredential.self, forKey: .credential),
        email: try f.decodeIfPresent(String.self, forKey: .email))
    } else {
      let f = try c.nestedContainer(keyedBy: Field.self, forKey: .requestFailed)
      self = .requestFailed(error: try f.decode(AuthError.self, forKey: .error))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: Key.self)
    switch self {
    case .secondFactorRequired(let challenge):
      try c.encode(challenge, forKey: .secondFactorRequired)
    case .signedIn(let session):
      var f = c.nestedContainer(keyedBy: Field.self, forKey: .signedIn)
      try f.encode(session, forKey: .session)
    case .accountExistsWithDifferentCredential(let email, let providers):
      var f = c.nestedContainer(keyedBy: Field.self, forKey: .accountExistsWithDifferentCredential)
      try f.encodeIfPresent(email, forKey: .email)
      try f.encode(providers, forKey: .providers)
    case .credentialAlreadyInUse(let credential, let email):
      var f = c.nestedContainer(keyedBy: Field.self, forKey: .credentialAlreadyInUse)
      try f.encode(credential, forKey: .credential)
      try f.encodeIfPresent(email, forKey: .email)
    case .requestFailed(let error):
      var f = c.nestedContainer(keyedBy: Field.self, forKey: .requestFailed)
      try f.encode(error, forKey: .error)
    }
  }
}

// MARK: - Fields: the names a request's fields have in effects, scenario files and the JSON,
// declared once per kind; the JSON and the scenario vocabulary read them from here.

extension RequestKind {
  /// The fields of a request of this kind, in order, as effects and scenario files name them
  /// (an effect writes `requestId` before them).
  public var fields: [String] {
    switch self {
    case .loadSession, .signUpAnonymously: []
    case .authorize: ["provider", "intent", "loginHint"]
    case .signInWithIdp: ["credential", "linkTo"]
    case .signInWithPassword: ["email", "password"]
    case .signUpWithPassword: ["email", "password", "linkTo"]
    case .sendPasswordReset, .sendSignInLink: ["email"]
    case .refreshToken: ["refreshToken"]
    case .deleteAccount, .lookupAccount, .sendVerificationEmail, .startTotpEnrollment: ["idToken"]
    case .revokeToken: ["provider", "authorizationCode", "idToken"]
    case .unlinkProvider: ["provider", "idToken"]
    case .applyActionCode, .checkActionCode: ["code"]
    case .confirmPasswordReset: ["code", "newPassword"]
    case .signInWithCustomToken: ["token"]
    case .updatePassword: ["idToken", "newPassword"]
    case .sendEmailChangeVerification: ["idToken", "newEmail"]
    case .updateProfile: ["idToken", "displayName", "photoURL"]
    case .signInWithEmailLink: ["email", "code", "linkTo"]
    case .startSecondFactorSignIn: ["pendingCredential", "factor", "appVerification"]
    case .finalizeSecondFactorSignIn:
      ["pendingCredential", "factor", "sessionInfo", "verificationCode", "displayName"]
    case .finalizeTotpEnrollment, .finalizePhoneEnrollment:
      ["idToken", "sessionInfo", "verificationCode", "displayName"]
    case .withdrawSecondFactor: ["idToken", "factor"]
    case .startPhoneEnrollment: ["idToken", "phoneNumber", "appVerification"]
    case .sendVerificationCode: ["phoneNumber", "appVerification"]
    case .signInWithPhoneNumber: ["sessionInfo", "verificationCode", "linkTo"]
    case .signInWithTemporaryProof: ["phoneNumber", "temporaryProof"]
    }
  }

  /// The names of the answers a request of this kind can get, in its answer type's order
  /// (`RequestOutcome.names`): read from the answer type, never listed per kind.
  public var answerNames: [String] { outcomeType.names }

  /// The answer type of this kind (`SessionAnswer` for `signUpAnonymously`, ...): what a reader
  /// of answers (the scenario decoder) reads an answer to this kind as, with no list per kind.
  public var outcomeType: any RequestOutcome.Type {
    Answer.failed(self, 0, AuthError(code: "")).ask(OutcomeType())
  }

  private struct OutcomeType: OutcomeQuestion {
    func ask<O: RequestOutcome>(_ outcome: O) -> any RequestOutcome.Type { O.self }
  }

  /// What a request of this kind asks for, in a line (the scenario vocabulary's meaning).
  public var summary: String {
    switch self {
    case .loadSession: "read the stored session"
    case .signUpAnonymously: "Firebase `accounts:signUp`, no email"
    case .authorize: "another provider's consent step"
    case .signInWithIdp:
      "Firebase `accounts:signInWithIdp`; `linkTo` is the user's ID token when linking"
    case .signInWithPassword: "Firebase `accounts:signInWithPassword`"
    case .signUpWithPassword:
      "Firebase `accounts:signUp` with email and password; `linkTo` links the anonymous user"
    case .sendPasswordReset: "Firebase `accounts:sendOobCode PASSWORD_RESET`"
    case .refreshToken: "Secure Token `/v1/token`"
    case .deleteAccount: "Firebase `accounts:delete`"
    case .revokeToken: "Firebase `accounts:revokeToken` with an authorization code"
    case .unlinkProvider: "Firebase `accounts:update deleteProvider`"
    case .lookupAccount: "Firebase `accounts:lookup` (a reload)"
    case .sendVerificationEmail: "Firebase `accounts:sendOobCode VERIFY_EMAIL`"
    case .applyActionCode: "Firebase `accounts:update {oobCode}` (no ID token)"
    case .checkActionCode: "Firebase `accounts:resetPassword {oobCode}` (the code is not used)"
    case .confirmPasswordReset: "Firebase `accounts:resetPassword {oobCode, newPassword}`"
    case .signInWithCustomToken: "Firebase `accounts:signInWithCustomToken`"
    case .updatePassword: "Firebase `accounts:update {idToken, password}`"
    case .sendEmailChangeVerification:
      "Firebase `accounts:sendOobCode {requestType: VERIFY_AND_CHANGE_EMAIL, idToken, newEmail}`"
    case .updateProfile:
      "Firebase `accounts:update {idToken, displayName, photoUrl, deleteAttribute}` (`\"\"` is a removal)"
    case .sendSignInLink:
      "Firebase `accounts:sendOobCode {requestType: EMAIL_SIGNIN, email, continueUrl, canHandleCodeInApp: true}`"
    case .signInWithEmailLink:
      "Firebase `accounts:signInWithEmailLink {email, oobCode}`; `linkTo` is the anonymous user's ID token, whose account it upgrades"
    case .startSecondFactorSignIn:
      "Firebase `v2/accounts/mfaSignIn:start {mfaPendingCredential, mfaEnrollmentId, phoneSignInInfo}`: text a code to a phone factor"
    case .finalizeSecondFactorSignIn:
      "Firebase `v2/accounts/mfaSignIn:finalize`: a TOTP factor's code with its id, or a texted code with its `sessionInfo`; `displayName`, the name a provider that gives it once gave with the first factor, is then set on the account"
    case .startTotpEnrollment:
      "Firebase `v2/accounts/mfaEnrollment:start {idToken, totpEnrollmentInfo: {}}`: a TOTP secret to enrol"
    case .finalizeTotpEnrollment:
      "Firebase `v2/accounts/mfaEnrollment:finalize {idToken, displayName, totpVerificationInfo: {sessionInfo, verificationCode}}`"
    case .withdrawSecondFactor:
      "Firebase `v2/accounts/mfaEnrollment:withdraw {idToken, mfaEnrollmentId}`"
    case .sendVerificationCode:
      "Firebase `accounts:sendVerificationCode {phoneNumber, <the app's proof>}`: text a code to the number"
    case .signInWithPhoneNumber:
      "Firebase `accounts:signInWithPhoneNumber {sessionInfo, code}`; `linkTo` is the signed-in user's ID token, whose account gets the number"
    case .signInWithTemporaryProof:
      "Firebase `accounts:signInWithPhoneNumber {temporaryProof, phoneNumber}`: a guest's migration signs in to the number's owner"
    case .startPhoneEnrollment:
      "Firebase `v2/accounts/mfaEnrollment:start {idToken, phoneEnrollmentInfo: {phoneNumber, <the app's proof>}}`: text a code to the number to enrol"
    case .finalizePhoneEnrollment:
      "Firebase `v2/accounts/mfaEnrollment:finalize {idToken, displayName, phoneVerificationInfo: {sessionInfo, code}}`"
    }
  }
}

extension Request {
  /// The values of `kind.fields`, in the same order (`nil`: left out of the JSON).
  var fieldValues: [(any Encodable & Sendable)?] {
    switch self {
    case .signUpAnonymously: []
    case .authorize(let p, let i, let h): [p, i, h]
    case .signInWithIdp(let c, let l): [c, l]
    case .signInWithPassword(let e, let p): [e, p]
    case .signUpWithPassword(let e, let p, let l): [e, p, l]
    case .sendPasswordReset(let e), .sendSignInLink(let e): [e]
    case .refreshToken(let t): [t]
    case .deleteAccount(let t), .lookupAccount(let t), .sendVerificationEmail(let t),
      .startTotpEnrollment(let t):
      [t]
    case .revokeToken(let p, let c, let t): [p, c, t]
    case .unlinkProvider(let p, let t): [p, t]
    case .applyActionCode(let c), .checkActionCode(let c): [c]
    case .confirmPasswordReset(let c, let p): [c, p]
    case .signInWithCustomToken(let t): [t]
    case .updatePassword(let t, let p): [t, p]
    case .sendEmailChangeVerification(let t, let e): [t, e]
    case .updateProfile(let t, let c): [t, c.displayName, c.photoURL]
    case .signInWithEmailLink(let e, let c, let l): [e, c, l]
    case .startSecondFactorSignIn(let p, let f, let v): [p, f, v]
    case .finalizeSecondFactorSignIn(let p, let f, let i, let c, let n): [p, f, i, c, n]
    case .finalizeTotpEnrollment(let t, let i, let c, let n),
      .finalizePhoneEnrollment(let t, let i, let c, let n):
      [t, i, c, n]
    case .withdrawSecondFactor(let t, let f): [t, f]
    case .startPhoneEnrollment(let t, let p, let v): [t, p, v]
    case .sendVerificationCode(let p, let v): [p, v]
    case .signInWithPhoneNumber(let i, let c, let l): [i, c, l]
    case .signInWithTemporaryProof(let p): [p.phoneNumber, p.temporaryProof]
    }
  }

  /// A request of `kind` read from its fields in `kind.fields`' order (`nil` for
  /// `loadSession`, which is not a `Request`).
  init?(_ kind: RequestKind, _ f: inout KeyedFieldReader) throws {
    switch kind {
    case .loadSession: return nil
    case .signUpAnonymously: self = .signUpAnonymously
    case .authorize:
      self = .authorize(provider: try f.next(), intent: try f.next(), loginHint: try f.optional())
    case .signInWithIdp: self = .signInWithIdp(credential: try f.next(), linkTo: try f.optional())
    case .signInWithPassword:
      self = .signInWithPassword(email: try f.next(), password: try f.next())
    case .signUpWithPassword:
      self = .signUpWithPassword(
        email: try f.next(), password: try f.next(), linkTo: try f.optional())
    case .sendPasswordReset: self = .sendPasswordReset(email: try f.next())
    case .sendSignInLink: self = .sendSignInLink(email: try f.next())
    case .refreshToken: self = .refreshToken(refreshToken: try f.next())
    case .deleteAccount: self = .deleteAccount(idToken: try f.next())
    case .lookupAccount: self = .lookupAccount(idToken: try f.next())
    case .sendVerificationEmail: self = .sendVerificationEmail(idToken: try f.next())
    case .startTotpEnrollment: self = .startTotpEnrollment(idToken: try f.next())
    case .revokeToken:
      self = .revokeToken(
        provider: try f.next(), authorizationCode: try f.next(), idToken: try f.next())
    case .unlinkProvider: self = .unlinkProvider(provider: try f.next(), idToken: try f.next())
    case .applyActionCode: self = .applyActionCode(code: try f.next())
    case .checkActionCode: self = .checkActionCode(code: try f.next())
    case .confirmPasswordReset:
      self = .confirmPasswordReset(code: try f.next(), newPassword: try f.next())
    case .signInWithCustomToken: self = .signInWithCustomToken(token: try f.next())
    case .updatePassword: self = .updatePassword(idToken: try f.next(), newPassword: try f.next())
    case .sendEmailChangeVerification:
      self = .sendEmailChangeVerification(idToken: try f.next(), newEmail: try f.next())
    case .updateProfile:
      let t: String = try f.next()
      self = .updateProfile(
        idToken: t, change: ProfileChange(displayName: try f.optional(), photoURL: try f.optional())
      )
    case .signInWithEmailLink:
      self = .signInWithEmailLink(email: try f.next(), code: try f.next(), linkTo: try f.optional())
    case .startSecondFactorSignIn:
      self = .startSecondFactorSignIn(
        pendingCredential: try f.next(), factor: try f.next(), appVerification: try f.optional())
    case .finalizeSecondFactorSignIn:
      self = .finalizeSecondFactorSignIn(
        pendingCredential: try f.next(), factor: try f.next(), sessionInfo: try f.optional(),
        verificationCode: try f.next(), displayName: try f.optional())
    case .finalizeTotpEnrollment:
      self = .finalizeTotpEnrollment(
        idToken: try f.next(), sessionInfo: try f.next(), verificationCode: try f.next(),
        displayName: try f.next())
    case .finalizePhoneEnrollment:
      self = .finalizePhoneEnrollment(
        idToken: try f.next(), sessionInfo: try f.next(), verificationCode: try f.next(),
        displayName: try f.next())
    case .withdrawSecondFactor:
      self = .withdrawSecondFactor(idToken: try f.next(), factor: try f.next())
    case .startPhoneEnrollment:
      self = .startPhoneEnrollment(
        idToken: try f.next(), phoneNumber: try f.next(), appVerification: try f.optional())
    case .sendVerificationCode:
      self = .sendVerificationCode(phoneNumber: try f.next(), appVerification: try f.optional())
    case .signInWithPhoneNumber:
      self = .signInWithPhoneNumber(
        sessionInfo: try f.next(), verificationCode: try f.next(), linkTo: try f.optional())
    case .signInWithTemporaryProof:
      self = .signInWithTemporaryProof(
        PhoneProof(phoneNumber: try f.next(), temporaryProof: try f.next()))
    }
  }
}

/// A JSON object's key, whatever its name.
struct FieldKey: CodingKey {
  let stringValue: String
  init(_ name: String) { stringValue = name }
  init?(stringValue: String) { self.stringValue = stringValue }
  var intValue: Int? { nil }
  init?(intValue: Int) { nil }
}

/// Reads a request's or an intent's fields from a JSON object in the order its kind declares
/// them.
struct KeyedFieldReader: IntentFieldReader {
  let container: KeyedDecodingContainer<FieldKey>
  let names: [String]
  var index = 0

  private mutating func key() -> FieldKey {
    defer { index += 1 }
    return FieldKey(index < names.count ? names[index] : "")
  }

  /// The next field, which must be there.
  mutating func next<T: Decodable & Sendable>() throws -> T {
    try container.decode(T.self, forKey: key())
  }

  /// The next field, which may be left out.
  mutating func optional<T: Decodable & Sendable>() throws -> T? {
    try container.decodeIfPresent(T.self, forKey: key())
  }
}
