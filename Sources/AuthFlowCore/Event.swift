/// Anything the machine reacts to: an intent, a result, a timer, a failed write, or another
/// process's write to the shared session store.
public enum Event: Hashable, Codable, Sendable {
  /// Something the user or the app did.
  case intent(Intent)
  /// The answer to the request effect with the same id, of that request's own kind.
  case answer(Answer)
  /// A timer scheduled with `scheduleTimer` came due.
  case timerFired(timer: TimerID)
  /// A `persistSession` or `clearSession` could not be written.
  case persistFailed(error: AuthError)
  /// Another process (an app extension, another copy of a tool) wrote the shared session
  /// store, which now holds `session` (`nil`: cleared). The same user's newer tokens replace
  /// this process's (ending a refresh in flight, whose answer becomes stale); a cleared store
  /// signs this process out; another user is a user change.
  case storeChanged(session: Session?)
}

/// What the user or the app did, named after the action.
public enum Intent: Hashable, Sendable {
  /// The app started; the stored session is read first.
  case appLaunched
  /// Sign in as a Firebase anonymous user.
  case signInAnonymouslyTapped
  /// Sign in with a provider; for an anonymous user this is the upgrade.
  case signInWithProviderTapped(provider: ProviderID)
  /// Link a provider to the signed-in account (for an anonymous user: the upgrade).
  case linkProviderTapped(provider: ProviderID)
  /// Remove a provider from the signed-in permanent account (never its last way to sign in).
  case unlinkProviderTapped(provider: ProviderID)
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
  /// Prove again who the user is (also resumes a waiting sensitive operation); `nil` picks the
  /// account's own provider.
  case reauthenticateTapped(provider: ProviderID? = nil)
  /// Sign out; an anonymous user must consent to losing their data.
  case signOutTapped(discardAnonymousData: Bool)
  /// Delete the signed-in account.
  case deleteAccountTapped
  /// Ask the server what it says about the account now (`accounts:lookup`): the session's
  /// email, its verification, the providers and the name follow; a disabled or deleted
  /// account, or revoked tokens, sign out.
  case reloadRequested
  /// Send the signed-in user a link that verifies their email (`accounts:sendOobCode
  /// VERIFY_EMAIL`).
  case sendEmailVerification
  /// Apply the code (`oobCode`) of an email link the app received (a verification; signed in
  /// or not): `accounts:update {oobCode}`.
  case applyActionCode(code: String)
  /// Ask what a code from an email link is for (and whose address), without using it: before
  /// showing a "choose a new password" screen.
  case checkActionCode(code: String)
  /// Finish a password reset with the code from the reset mail and the new password.
  case confirmPasswordReset(code: String, newPassword: String)
  /// Sign in with a custom token the app's backend minted (`accounts:signInWithCustomToken`).
  /// Signed in already, the token must be for the same user (its session is renewed, an
  /// anonymous one included, whose data stays); another user's is refused with `userMismatch`.
  case signInWithCustomToken(token: String)
  /// Change the signed-in account's password (`accounts:update {password}`); a login too old
  /// for it waits in `reauthenticationRequired` and resumes after reauthentication.
  case changePassword(newPassword: String)
  /// Prove again who the user is with the account's email and this password (also resumes a
  /// waiting sensitive operation): for an account that signs in with a password.
  case reauthenticateWithPassword(password: String)
  /// Change the signed-in account's email, verified first (`sendOobCode VERIFY_AND_CHANGE_EMAIL`):
  /// Firebase mails a link to `newEmail`, and the email changes only when that link is applied.
  /// A login too old for it waits in `reauthenticationRequired` and resumes after
  /// reauthentication.
  case changeEmail(newEmail: String)
  /// Change the signed-in account's display name or photo URL (`accounts:update`): each field of
  /// `change` is set, removed (`""`), or left (`nil`). Firebase does not ask for a recent login.
  case updateProfile(change: ProfileChange)
  /// Mail a sign-in link to `email` (`accounts:sendOobCode EMAIL_SIGNIN`), for nobody signed in
  /// or an anonymous user (whom the link will upgrade). The machine keeps the address until a
  /// link sign-in with it succeeds or another link is sent.
  case sendSignInLink(email: String)
  /// Sign in with the code (`oobCode`) of a sign-in link (`accounts:signInWithEmailLink`), with
  /// `email`, or, when `nil`, the address the machine sent the link to; with neither (the link
  /// was opened on another device, or after a relaunch) nothing is sent and the app is asked
  /// for the address (`emailNeededForLink`). An anonymous user's account is upgraded in place.
  case signInWithEmailLink(code: String, email: String?)
  /// Text a code to the phone factor `factor` of the second-factor challenge in progress
  /// (`mfaSignIn:start`); `appVerification` is the app's proof that it is the app (a reCAPTCHA
  /// token), passed through. Sent again, it texts a new code.
  case sendSecondFactorCode(factor: String, appVerification: AppVerification?)
  /// Finish the sign-in waiting for a second factor with `factor`'s code: an authenticator app's
  /// for a TOTP factor, the texted one for a phone factor (after `sendSecondFactorCode`).
  case submitSecondFactorCode(factor: String, verificationCode: String)
  /// Enrol an authenticator app (TOTP) as a second factor of the signed-in permanent account:
  /// Firebase issues a secret to show (it may first ask for a recent sign-in).
  case enrollTotp
  /// The first code the authenticator app made with the secret shown: finish the enrolment,
  /// naming the factor `displayName` ("Authenticator app" when none is given).
  case submitTotpEnrollmentCode(verificationCode: String, displayName: String?)
  /// Enrol `phoneNumber` (E.164, `+15555550100`) as a second factor of the signed-in permanent
  /// account: Firebase texts a code to it (it may first ask for a recent sign-in).
  /// `appVerification` is the app's proof that it is the app (a reCAPTCHA token), passed
  /// through.
  case enrollPhone(phoneNumber: String, appVerification: AppVerification?)
  /// The code texted to the number being enrolled: finish the enrolment, naming the factor
  /// `displayName` ("Phone" when none is given).
  case submitPhoneEnrollmentCode(verificationCode: String, displayName: String?)
  /// Text a code to `phoneNumber` (E.164) to sign in with (nobody signed in), to upgrade the
  /// anonymous user, or to add the number to the signed-in account (`sendVerificationCode`);
  /// `appVerification` is the app's proof, passed through. Sent again while the code is
  /// awaited, it texts a new one.
  case sendPhoneCode(phoneNumber: String, appVerification: AppVerification?)
  /// The texted code: sign in with it (`signInWithPhoneNumber`), or add the number to the
  /// signed-in account.
  case submitPhoneCode(verificationCode: String)
  /// Withdraw the second factor whose enrolment id is `factor` from the signed-in permanent
  /// account (it may first ask for a recent sign-in).
  case withdrawSecondFactor(factor: String)
  /// Abandon the flow in progress.
  case cancelTapped
  /// The app needs an ID token; answered by exactly one `deliverIDToken`.
  case idTokenRequested(requestId: TokenRequestID, forceRefresh: Bool)
}

/// The app's decision when an anonymous user's provider account already has an owner.
public enum MigrationChoice: String, Hashable, Codable, Sendable, CaseIterable {
  /// Sign in to the existing account; the app moves the anonymous data, then says so.
  case merge
  /// Sign in to the existing account; the anonymous data is dropped.
  case switchWithoutData
  /// Keep the anonymous account.
  case stayAnonymous
}

/// The machine's timers.
public enum TimerID: String, Hashable, Codable, Sendable, CaseIterable {
  /// Refresh the ID token (at expiry minus the margin, or after a backoff).
  case tokenRefresh
  /// Read the stored session again after a transient failure (e.g. a locked keychain).
  case restoreRetry
}

// MARK: - Names

extension Intent {
  /// Every intent name a scenario file may use. Google's spellings are the generic provider
  /// intents with `provider: "google.com"`.
  public enum Kind: String, Hashable, Sendable, CaseIterable {
    case appLaunched, signInAnonymouslyTapped, signInWithGoogleTapped, linkGoogleTapped
    case signInWithProviderTapped, linkProviderTapped, unlinkProviderTapped, signInWithEmail
    case createAccount
    case sendPasswordReset, migrationDecided, migrationFinished, reauthenticateTapped
    case signOutTapped, deleteAccountTapped, cancelTapped, idTokenRequested, reloadRequested
    case sendEmailVerification, applyActionCode, checkActionCode, confirmPasswordReset
    case signInWithCustomToken, changePassword, reauthenticateWithPassword, changeEmail
    case updateProfile, sendSignInLink, signInWithEmailLink, sendSecondFactorCode
    case submitSecondFactorCode, enrollTotp, submitTotpEnrollmentCode, withdrawSecondFactor
    case enrollPhone, submitPhoneEnrollmentCode, sendPhoneCode, submitPhoneCode
  }

  /// The intent's name, as scenario files spell it.
  public var kind: Kind {
    switch self {
    case .appLaunched: .appLaunched
    case .signInAnonymouslyTapped: .signInAnonymouslyTapped
    case .signInWithProviderTapped(let p):
      p.hasGoogleSpellings ? .signInWithGoogleTapped : .signInWithProviderTapped
    case .linkProviderTapped(let p): p.hasGoogleSpellings ? .linkGoogleTapped : .linkProviderTapped
    case .unlinkProviderTapped: .unlinkProviderTapped
    case .signInWithEmail: .signInWithEmail
    case .createAccount: .createAccount
    case .sendPasswordReset: .sendPasswordReset
    case .migrationDecided: .migrationDecided
    case .migrationFinished: .migrationFinished
    case .reauthenticateTapped: .reauthenticateTapped
    case .signOutTapped: .signOutTapped
    case .deleteAccountTapped: .deleteAccountTapped
    case .cancelTapped: .cancelTapped
    case .idTokenRequested: .idTokenRequested
    case .reloadRequested: .reloadRequested
    case .sendEmailVerification: .sendEmailVerification
    case .applyActionCode: .applyActionCode
    case .checkActionCode: .checkActionCode
    case .confirmPasswordReset: .confirmPasswordReset
    case .signInWithCustomToken: .signInWithCustomToken
    case .changePassword: .changePassword
    case .reauthenticateWithPassword: .reauthenticateWithPassword
    case .changeEmail: .changeEmail
    case .updateProfile: .updateProfile
    case .sendSignInLink: .sendSignInLink
    case .signInWithEmailLink: .signInWithEmailLink
    case .sendSecondFactorCode: .sendSecondFactorCode
    case .submitSecondFactorCode: .submitSecondFactorCode
    case .enrollTotp: .enrollTotp
    case .submitTotpEnrollmentCode: .submitTotpEnrollmentCode
    case .withdrawSecondFactor: .withdrawSecondFactor
    case .enrollPhone: .enrollPhone
    case .submitPhoneEnrollmentCode: .submitPhoneEnrollmentCode
    case .sendPhoneCode: .sendPhoneCode
    case .submitPhoneCode: .submitPhoneCode
    }
  }

  /// `signInWithProviderTapped` for Google.
  public static let signInWithGoogleTapped = Intent.signInWithProviderTapped(provider: .google)
  /// `linkProviderTapped` for Google.
  public static let linkGoogleTapped = Intent.linkProviderTapped(provider: .google)
}

// MARK: - Fields: an intent's fields, declared once per kind; the JSON, the scenario decoder,
// the schema and the vocabulary read them from here.

/// What an intent's field holds, and so how a scenario file spells it.
public enum IntentFieldType: Sendable, Hashable {
  /// A string.
  case text
  /// A provider id: `google.com`, `apple.com`, `github.com`, `oidc.<name>`.
  case provider
  /// `true` or `false`; left out, `false`.
  case flag
  /// A `MigrationChoice`, by name.
  case migrationChoice
  /// A whole number: the app's token request (`TokenRequestID`).
  case tokenRequestID
  /// The app's proof that it is the app (`AppVerification`): a reCAPTCHA token, or an object.
  case appVerification
}

/// One field of an intent: its name in the JSON and in scenario files, what it holds, and
/// whether it must be given.
public struct IntentField: Sendable, Hashable {
  /// The field's name, as the JSON and scenario files spell it.
  public var name: String
  /// What it holds.
  public var type: IntentFieldType
  /// Whether a scenario file must give it (an optional one reads as `nil`, a flag as `false`).
  public var required: Bool

  /// A field named `name` holding a `type`.
  public init(_ name: String, _ type: IntentFieldType, required: Bool = true) {
    self.name = name
    self.type = type
    self.required = required
  }

  /// A string that must be given.
  static func text(_ name: String) -> IntentField { IntentField(name, .text) }

  /// A field that may be left out.
  static func optional(_ name: String, _ type: IntentFieldType) -> IntentField {
    IntentField(name, type, required: false)
  }
}

/// Reads an intent's fields in the order its kind declares them (`Intent.Kind.fields`): the
/// JSON's reader and the scenario decoder's, each with its own errors.
public protocol IntentFieldReader {
  /// The next declared field, which must be there.
  mutating func next<T: Decodable & Sendable>() throws -> T
  /// The next declared field, which may be left out (`nil`).
  mutating func optional<T: Decodable & Sendable>() throws -> T?
}

extension Intent.Kind {
  /// The fields of an intent of this kind, in order, as the JSON and scenario files name them.
  public var fields: [IntentField] {
    switch self {
    case .appLaunched, .signInAnonymouslyTapped, .signInWithGoogleTapped, .linkGoogleTapped,
      .migrationFinished, .deleteAccountTapped, .cancelTapped, .reloadRequested,
      .sendEmailVerification, .enrollTotp:
      []
    case .applyActionCode, .checkActionCode: [.text("code")]
    case .confirmPasswordReset: [.text("code"), .text("newPassword")]
    case .signInWithCustomToken: [.text("token")]
    case .changePassword: [.text("newPassword")]
    case .reauthenticateWithPassword: [.text("password")]
    case .changeEmail: [.text("newEmail")]
    case .updateProfile: [.optional("displayName", .text), .optional("photoURL", .text)]
    case .signInWithProviderTapped, .linkProviderTapped, .unlinkProviderTapped:
      [IntentField("provider", .provider)]
    case .signInWithEmail, .createAccount: [.text("email"), .text("password")]
    case .sendPasswordReset, .sendSignInLink: [.text("email")]
    case .signInWithEmailLink: [.text("code"), .optional("email", .text)]
    case .sendSecondFactorCode: [.text("factor"), .optional("appVerification", .appVerification)]
    case .submitSecondFactorCode: [.text("factor"), .text("verificationCode")]
    case .submitTotpEnrollmentCode, .submitPhoneEnrollmentCode:
      [.text("verificationCode"), .optional("displayName", .text)]
    case .withdrawSecondFactor: [.text("factor")]
    case .enrollPhone, .sendPhoneCode:
      [.text("phoneNumber"), .optional("appVerification", .appVerification)]
    case .submitPhoneCode: [.text("verificationCode")]
    case .migrationDecided: [IntentField("choice", .migrationChoice)]
    case .reauthenticateTapped: [.optional("provider", .provider)]
    case .signOutTapped: [.optional("discardAnonymousData", .flag)]
    case .idTokenRequested:
      [IntentField("requestId", .tokenRequestID), .optional("forceRefresh", .flag)]
    }
  }

  /// What an intent of this kind means, in a line (the scenario vocabulary's meaning).
  public var summary: String {
    switch self {
    case .appLaunched: "the app started; the stored session is read first"
    case .signInAnonymouslyTapped: "sign in as a Firebase anonymous user"
    case .signInWithGoogleTapped: "Google's spelling of `signInWithProviderTapped{google.com}`"
    case .linkGoogleTapped: "Google's spelling of `linkProviderTapped{google.com}`"
    case .signInWithProviderTapped: "sign in with a provider; for an anonymous user, the upgrade"
    case .linkProviderTapped: "link a provider to the signed-in account (anonymous: the upgrade)"
    case .unlinkProviderTapped: "remove a provider from a permanent account (never its last way in)"
    case .signInWithEmail: "sign in with email and password"
    case .createAccount: "create an email/password account; for an anonymous user, link it"
    case .sendPasswordReset: "send a password-reset email"
    case .migrationDecided:
      "the app's answer in `migrationRequired`: `merge`, `switchWithoutData`, `stayAnonymous`"
    case .migrationFinished: "the app has moved the anonymous user's data after a `merge`"
    case .reauthenticateTapped:
      "prove again who the user is (`provider` optional: by default the account's own)"
    case .signOutTapped:
      "sign out; an anonymous user needs `discardAnonymousData: true` (default `false`)"
    case .deleteAccountTapped: "delete the signed-in account"
    case .cancelTapped: "abandon the flow in progress"
    case .reloadRequested:
      "ask Firebase for the account as it is now (`accounts:lookup`): email, `emailVerified`, providers and name follow; a dead session signs out"
    case .sendEmailVerification:
      "email the signed-in user a link that verifies their address (`accounts:sendOobCode VERIFY_EMAIL`)"
    case .applyActionCode:
      "apply the `code` (`oobCode`) of a verification link the app was opened with, signed in or not"
    case .checkActionCode:
      "ask what an email link's `code` is for and whose address, without using it (before a new-password screen)"
    case .confirmPasswordReset:
      "finish a password reset with the reset mail's `code` and the `newPassword`, signed in or not"
    case .signInWithCustomToken:
      "sign in with a `token` the app's backend minted; signed in already, it must be the same user's (`userMismatch` otherwise)"
    case .changePassword:
      "change the signed-in account's password to `newPassword`; a login too old for it waits in `reauthenticationRequired`"
    case .changeEmail:
      "change the signed-in account's email to `newEmail`, verified first: a link is mailed there, and the email changes when it is applied; a login too old for it waits in `reauthenticationRequired`"
    case .updateProfile:
      "set the signed-in account's `displayName` or `photoURL` (`\"\"` removes one; a field left out stays); no recent login needed"
    case .reauthenticateWithPassword:
      "prove again who the user is with the account's email and `password` (also resumes a waiting operation)"
    case .sendSignInLink:
      "mail a sign-in link to `email` (nobody signed in, or an anonymous user, whom the link upgrades); the machine keeps the address until a link sign-in with it succeeds"
    case .signInWithEmailLink:
      "sign in with the `code` (`oobCode`) of a sign-in link, with `email` or, left out, the address the link was sent to; with neither, `emailNeededForLink` and nothing is sent; an anonymous user is upgraded in place"
    case .sendSecondFactorCode:
      "in `secondFactorRequired`, text a code to the phone `factor` (an id of the challenge's); `appVerification` (optional) is the app's proof (a reCAPTCHA token, or `{iosReceipt, iosSecret}`, or `{captchaResponse}`), passed through; sent again, a new code"
    case .submitSecondFactorCode:
      "in `secondFactorRequired`, finish the sign-in with `factor`'s `verificationCode`: an authenticator app's (TOTP), or the texted one after `sendSecondFactorCode`"
    case .enrollTotp:
      "enrol an authenticator app (TOTP) as a second factor of the signed-in permanent account: Firebase issues a secret, shown in `enrollingTotp`; a login too old for it waits in `reauthenticationRequired`"
    case .submitTotpEnrollmentCode:
      "in `enrollingTotp`, finish the enrolment with the first `verificationCode` the authenticator app made with the secret, naming the factor `displayName` (optional, default \"Authenticator app\"); a wrong code keeps the secret for another"
    case .withdrawSecondFactor:
      "withdraw the second `factor` (its enrolment id) from the signed-in permanent account; the account is reloaded after, for the session's `secondFactors`; a login too old for it waits in `reauthenticationRequired`"
    case .enrollPhone:
      "enrol `phoneNumber` (E.164) as a second factor of the signed-in permanent account: Firebase texts a code to it, awaited in `enrollingPhone`; `appVerification` (optional) is the app's proof (a string or an object, as for `sendSecondFactorCode`), passed through; a login too old for it waits in `reauthenticationRequired`"
    case .submitPhoneEnrollmentCode:
      "in `enrollingPhone`, finish the enrolment with the texted `verificationCode`, naming the factor `displayName` (optional, default \"Phone\"); a wrong code keeps waiting for another"
    case .sendPhoneCode:
      "text a code to `phoneNumber` (E.164) to sign in with it (nobody signed in), to upgrade the guest, or to add it to the signed-in account; `appVerification` (optional) is the app's proof (a string or an object, as for `sendSecondFactorCode`), passed through; sent again while the code is awaited, a new code"
    case .submitPhoneCode:
      "in `awaitingPhoneCode`, sign in (or upgrade, or add the number) with the texted `verificationCode`; a wrong code keeps waiting for another"
    case .idTokenRequested:
      "the app needs an ID token; answered by exactly one `deliverIDToken` (`forceRefresh` default `false`)"
    }
  }
}

extension Intent {
  /// The values of `kind.fields`, in the same order (`nil`: left out of the JSON).
  var fieldValues: [(any Encodable & Sendable)?] {
    switch self {
    case .appLaunched, .signInAnonymouslyTapped, .migrationFinished, .deleteAccountTapped,
      .cancelTapped, .reloadRequested, .sendEmailVerification, .enrollTotp:
      []
    case .signInWithProviderTapped(let p), .linkProviderTapped(let p):
      p.hasGoogleSpellings ? [] : [p]  // Google's spellings name the provider
    case .unlinkProviderTapped(let p): [p]
    case .signInWithEmail(let e, let p), .createAccount(let e, let p): [e, p]
    case .sendPasswordReset(let e), .sendSignInLink(let e): [e]
    case .migrationDecided(let c): [c]
    case .reauthenticateTapped(let p): [p]
    case .signOutTapped(let d): [d]
    case .applyActionCode(let c), .checkActionCode(let c): [c]
    case .confirmPasswordReset(let c, let p): [c, p]
    case .signInWithCustomToken(let t): [t]
    case .changePassword(let p): [p]
    case .reauthenticateWithPassword(let p): [p]
    case .changeEmail(let e): [e]
    case .updateProfile(let c): [c.displayName, c.photoURL]
    case .signInWithEmailLink(let c, let e): [c, e]
    case .sendSecondFactorCode(let f, let v): [f, v]
    case .submitSecondFactorCode(let f, let c): [f, c]
    case .submitTotpEnrollmentCode(let c, let n), .submitPhoneEnrollmentCode(let c, let n): [c, n]
    case .withdrawSecondFactor(let f): [f]
    case .enrollPhone(let p, let v), .sendPhoneCode(let p, let v): [p, v]
    case .submitPhoneCode(let c): [c]
    case .idTokenRequested(let id, let f): [id, f]
    }
  }

  /// An intent of `kind` read from its fields in `kind.fields`' order.
  public init(_ kind: Kind, _ f: inout some IntentFieldReader) throws {
    switch kind {
    case .appLaunched: self = .appLaunched
    case .signInAnonymouslyTapped: self = .signInAnonymouslyTapped
    case .signInWithGoogleTapped: self = .signInWithGoogleTapped
    case .linkGoogleTapped: self = .linkGoogleTapped
    case .signInWithProviderTapped: self = .signInWithProviderTapped(provider: try f.next())
    case .linkProviderTapped: self = .linkProviderTapped(provider: try f.next())
    case .unlinkProviderTapped: self = .unlinkProviderTapped(provider: try f.next())
    case .signInWithEmail: self = .signInWithEmail(email: try f.next(), password: try f.next())
    case .createAccount: self = .createAccount(email: try f.next(), password: try f.next())
    case .sendPasswordReset: self = .sendPasswordReset(email: try f.next())
    case .migrationDecided: self = .migrationDecided(choice: try f.next())
    case .migrationFinished: self = .migrationFinished
    case .reauthenticateTapped: self = .reauthenticateTapped(provider: try f.optional())
    case .signOutTapped: self = .signOutTapped(discardAnonymousData: try f.optional() ?? false)
    case .deleteAccountTapped: self = .deleteAccountTapped
    case .cancelTapped: self = .cancelTapped
    case .reloadRequested: self = .reloadRequested
    case .sendEmailVerification: self = .sendEmailVerification
    case .applyActionCode: self = .applyActionCode(code: try f.next())
    case .checkActionCode: self = .checkActionCode(code: try f.next())
    case .confirmPasswordReset:
      self = .confirmPasswordReset(code: try f.next(), newPassword: try f.next())
    case .signInWithCustomToken: self = .signInWithCustomToken(token: try f.next())
    case .changePassword: self = .changePassword(newPassword: try f.next())
    case .reauthenticateWithPassword: self = .reauthenticateWithPassword(password: try f.next())
    case .changeEmail: self = .changeEmail(newEmail: try f.next())
    case .updateProfile:
      self = .updateProfile(
        change: ProfileChange(displayName: try f.optional(), photoURL: try f.optional()))
    case .sendSignInLink: self = .sendSignInLink(email: try f.next())
    case .signInWithEmailLink:
      self = .signInWithEmailLink(code: try f.next(), email: try f.optional())
    case .sendSecondFactorCode:
      self = .sendSecondFactorCode(factor: try f.next(), appVerification: try f.optional())
    case .submitSecondFactorCode:
      self = .submitSecondFactorCode(factor: try f.next(), verificationCode: try f.next())
    case .enrollTotp: self = .enrollTotp
    case .submitTotpEnrollmentCode:
      self = .submitTotpEnrollmentCode(
        verificationCode: try f.next(), displayName: try f.optional())
    case .withdrawSecondFactor: self = .withdrawSecondFactor(factor: try f.next())
    case .enrollPhone:
      self = .enrollPhone(phoneNumber: try f.next(), appVerification: try f.optional())
    case .submitPhoneEnrollmentCode:
      self = .submitPhoneEnrollmentCode(
        verificationCode: try f.next(), displayName: try f.optional())
    case .sendPhoneCode:
      self = .sendPhoneCode(phoneNumber: try f.next(), appVerification: try f.optional())
    case .submitPhoneCode: self = .submitPhoneCode(verificationCode: try f.next())
    case .idTokenRequested:
      self = .idTokenRequested(requestId: try f.next(), forceRefresh: try f.optional() ?? false)
    }
  }
}

// MARK: - JSON

/// `{kind: {fields…}}`, one key, the fields named by the kind's declaration.
extension Intent: Codable {
  public init(from decoder: any Decoder) throws {
    let outer = try decoder.container(keyedBy: FieldKey.self)
    guard outer.allKeys.count == 1, let key = outer.allKeys.first,
      let kind = Kind(rawValue: key.stringValue)
    else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath,
          debugDescription: "expected one intent name as the only key, found "
            + "\(outer.allKeys.map(\.stringValue).sorted())"))
    }
    var reader = KeyedFieldReader(
      container: try outer.nestedContainer(keyedBy: FieldKey.self, forKey: key),
      names: kind.fields.map(\.name))
    try self.init(kind, &reader)
  }

  public func encode(to encoder: any Encoder) throws {
    var outer = encoder.container(keyedBy: FieldKey.self)
    var inner = outer.nestedContainer(keyedBy: FieldKey.self, forKey: FieldKey(kind.rawValue))
    for (field, value) in zip(kind.fields, fieldValues) {
      if let value { try inner.encode(value, forKey: FieldKey(field.name)) }
    }
  }
}

extension RequestKind: Codable {}
