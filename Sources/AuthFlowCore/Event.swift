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

// MARK: - JSON

extension Intent: Codable {
  /// The wire form: one case per name, so Google's spellings stay what they always were.
  private enum Wire: Codable {
    case appLaunched, signInAnonymouslyTapped, signInWithGoogleTapped, linkGoogleTapped
    case signInWithProviderTapped(provider: ProviderID)
    case linkProviderTapped(provider: ProviderID)
    case unlinkProviderTapped(provider: ProviderID)
    case signInWithEmail(email: String, password: String)
    case createAccount(email: String, password: String)
    case sendPasswordReset(email: String)
    case migrationDecided(choice: MigrationChoice)
    case migrationFinished
    case reauthenticateTapped(provider: ProviderID?)
    case signOutTapped(discardAnonymousData: Bool)
    case deleteAccountTapped, cancelTapped, reloadRequested, sendEmailVerification
    case applyActionCode(code: String)
    case checkActionCode(code: String)
    case confirmPasswordReset(code: String, newPassword: String)
    case signInWithCustomToken(token: String)
    case changePassword(newPassword: String)
    case reauthenticateWithPassword(password: String)
    case changeEmail(newEmail: String)
    case updateProfile(displayName: String?, photoURL: String?)
    case sendSignInLink(email: String)
    case signInWithEmailLink(code: String, email: String?)
    case sendSecondFactorCode(factor: String, appVerification: AppVerification?)
    case submitSecondFactorCode(factor: String, verificationCode: String)
    case enrollTotp
    case submitTotpEnrollmentCode(verificationCode: String, displayName: String?)
    case withdrawSecondFactor(factor: String)
    case enrollPhone(phoneNumber: String, appVerification: AppVerification?)
    case submitPhoneEnrollmentCode(verificationCode: String, displayName: String?)
    case sendPhoneCode(phoneNumber: String, appVerification: AppVerification?)
    case submitPhoneCode(verificationCode: String)
    case idTokenRequested(requestId: TokenRequestID, forceRefresh: Bool)
  }

  public init(from decoder: any Decoder) throws {
    switch try Wire(from: decoder) {
    case .appLaunched: self = .appLaunched
    case .signInAnonymouslyTapped: self = .signInAnonymouslyTapped
    case .signInWithGoogleTapped: self = .signInWithProviderTapped(provider: .google)
    case .linkGoogleTapped: self = .linkProviderTapped(provider: .google)
    case .signInWithProviderTapped(let p): self = .signInWithProviderTapped(provider: p)
    case .linkProviderTapped(let p): self = .linkProviderTapped(provider: p)
    case .unlinkProviderTapped(let p): self = .unlinkProviderTapped(provider: p)
    case .signInWithEmail(let e, let p): self = .signInWithEmail(email: e, password: p)
    case .createAccount(let e, let p): self = .createAccount(email: e, password: p)
    case .sendPasswordReset(let e): self = .sendPasswordReset(email: e)
    case .migrationDecided(let c): self = .migrationDecided(choice: c)
    case .migrationFinished: self = .migrationFinished
    case .reauthenticateTapped(let p): self = .reauthenticateTapped(provider: p)
    case .signOutTapped(let d): self = .signOutTapped(discardAnonymousData: d)
    case .deleteAccountTapped: self = .deleteAccountTapped
    case .cancelTapped: self = .cancelTapped
    case .reloadRequested: self = .reloadRequested
    case .sendEmailVerification: self = .sendEmailVerification
    case .applyActionCode(let c): self = .applyActionCode(code: c)
    case .checkActionCode(let c): self = .checkActionCode(code: c)
    case .confirmPasswordReset(let c, let p): self = .confirmPasswordReset(code: c, newPassword: p)
    case .signInWithCustomToken(let t): self = .signInWithCustomToken(token: t)
    case .changePassword(let p): self = .changePassword(newPassword: p)
    case .reauthenticateWithPassword(let p): self = .reauthenticateWithPassword(password: p)
    case .changeEmail(let e): self = .changeEmail(newEmail: e)
    case .updateProfile(let n, let u):
      self = .updateProfile(change: ProfileChange(displayName: n, photoURL: u))
    case .sendSignInLink(let e): self = .sendSignInLink(email: e)
    case .signInWithEmailLink(let c, let e): self = .signInWithEmailLink(code: c, email: e)
    case .sendSecondFactorCode(let f, let v):
      self = .sendSecondFactorCode(factor: f, appVerification: v)
    case .submitSecondFactorCode(let f, let c):
      self = .submitSecondFactorCode(factor: f, verificationCode: c)
    case .enrollTotp: self = .enrollTotp
    case .submitTotpEnrollmentCode(let c, let n):
      self = .submitTotpEnrollmentCode(verificationCode: c, displayName: n)
    case .withdrawSecondFactor(let f): self = .withdrawSecondFactor(factor: f)
    case .enrollPhone(let p, let v): self = .enrollPhone(phoneNumber: p, appVerification: v)
    case .submitPhoneEnrollmentCode(let c, let n):
      self = .submitPhoneEnrollmentCode(verificationCode: c, displayName: n)
    case .sendPhoneCode(let p, let v): self = .sendPhoneCode(phoneNumber: p, appVerification: v)
    case .submitPhoneCode(let c): self = .submitPhoneCode(verificationCode: c)
    case .idTokenRequested(let id, let f): self = .idTokenRequested(requestId: id, forceRefresh: f)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    let wire: Wire
    switch self {
    case .appLaunched: wire = .appLaunched
    case .signInAnonymouslyTapped: wire = .signInAnonymouslyTapped
    case .signInWithProviderTapped(let p):
      wire = p.hasGoogleSpellings ? .signInWithGoogleTapped : .signInWithProviderTapped(provider: p)
    case .linkProviderTapped(let p):
      wire = p.hasGoogleSpellings ? .linkGoogleTapped : .linkProviderTapped(provider: p)
    case .unlinkProviderTapped(let p): wire = .unlinkProviderTapped(provider: p)
    case .signInWithEmail(let e, let p): wire = .signInWithEmail(email: e, password: p)
    case .createAccount(let e, let p): wire = .createAccount(email: e, password: p)
    case .sendPasswordReset(let e): wire = .sendPasswordReset(email: e)
    case .migrationDecided(let c): wire = .migrationDecided(choice: c)
    case .migrationFinished: wire = .migrationFinished
    case .reauthenticateTapped(let p): wire = .reauthenticateTapped(provider: p)
    case .signOutTapped(let d): wire = .signOutTapped(discardAnonymousData: d)
    case .deleteAccountTapped: wire = .deleteAccountTapped
    case .cancelTapped: wire = .cancelTapped
    case .reloadRequested: wire = .reloadRequested
    case .sendEmailVerification: wire = .sendEmailVerification
    case .applyActionCode(let c): wire = .applyActionCode(code: c)
    case .checkActionCode(let c): wire = .checkActionCode(code: c)
    case .confirmPasswordReset(let c, let p): wire = .confirmPasswordReset(code: c, newPassword: p)
    case .signInWithCustomToken(let t): wire = .signInWithCustomToken(token: t)
    case .changePassword(let p): wire = .changePassword(newPassword: p)
    case .reauthenticateWithPassword(let p): wire = .reauthenticateWithPassword(password: p)
    case .changeEmail(let e): wire = .changeEmail(newEmail: e)
    case .updateProfile(let c):
      wire = .updateProfile(displayName: c.displayName, photoURL: c.photoURL)
    case .sendSignInLink(let e): wire = .sendSignInLink(email: e)
    case .signInWithEmailLink(let c, let e): wire = .signInWithEmailLink(code: c, email: e)
    case .sendSecondFactorCode(let f, let v):
      wire = .sendSecondFactorCode(factor: f, appVerification: v)
    case .submitSecondFactorCode(let f, let c):
      wire = .submitSecondFactorCode(factor: f, verificationCode: c)
    case .enrollTotp: wire = .enrollTotp
    case .submitTotpEnrollmentCode(let c, let n):
      wire = .submitTotpEnrollmentCode(verificationCode: c, displayName: n)
    case .withdrawSecondFactor(let f): wire = .withdrawSecondFactor(factor: f)
    case .enrollPhone(let p, let v): wire = .enrollPhone(phoneNumber: p, appVerification: v)
    case .submitPhoneEnrollmentCode(let c, let n):
      wire = .submitPhoneEnrollmentCode(verificationCode: c, displayName: n)
    case .sendPhoneCode(let p, let v): wire = .sendPhoneCode(phoneNumber: p, appVerification: v)
    case .submitPhoneCode(let c): wire = .submitPhoneCode(verificationCode: c)
    case .idTokenRequested(let id, let f): wire = .idTokenRequested(requestId: id, forceRefresh: f)
    }
    try wire.encode(to: encoder)
  }
}

extension RequestKind: Codable {}
