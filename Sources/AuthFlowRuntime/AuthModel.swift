import AuthFlowCore
import Foundation
import Observation

/// An observable view of a runtime for SwiftUI (or any Observation client): the state, whether a
/// flow is running, the last error, and one method per intent.
@MainActor
@Observable
public final class AuthModel {
  /// The machine's state.
  public private(set) var state: AuthState = .starting
  /// The last error notification, cleared by `dismissError()`.
  public private(set) var lastError: AuthError?
  /// A pending migration the app must carry out (move data, then `migrationFinished()`).
  public private(set) var migration: (from: String, to: String)?
  /// The address a sign-in link was last sent to ("check your inbox at …"), until a permanent
  /// account is signed in.
  public private(set) var emailLinkAddress: String?
  /// True after a sign-in link was opened without a known address: ask for it and call
  /// `signIn(emailLink:email:)` again with it.
  public private(set) var needsEmailForLink = false
  /// The runtime underneath.
  @ObservationIgnored public let runtime: AuthRuntime
  /// Where `emailLinkAddress` outlives the process (`nil`: it does not).
  @ObservationIgnored public let emailLinkAddresses: (any EmailLinkAddressStore)?
  @ObservationIgnored private var tasks: [Task<Void, Never>] = []
  /// The last write to `emailLinkAddresses`: writes run one after another, in order.
  @ObservationIgnored private var lastAddressWrite: Task<Void, Never>?

  /// A model that follows `runtime`; call `start()` once. With `emailLinkAddresses`, the address
  /// of the last sign-in link is kept across launches, and `signIn(emailLink:)` uses it when the
  /// machine has none (the app was relaunched between sending the link and opening it).
  public init(runtime: AuthRuntime, emailLinkAddresses: (any EmailLinkAddressStore)? = nil) {
    self.runtime = runtime
    self.emailLinkAddresses = emailLinkAddresses
  }

  /// Subscribes to the runtime and reads the stored session.
  public func start() {
    let runtime = self.runtime
    if let store = emailLinkAddresses {
      tasks.append(
        Task { [weak self] in
          let kept = await store.load()
          guard let self, let kept, self.emailLinkAddress == nil else { return }
          // Not once a permanent account is signed in: the machine forgets it then too.
          if self.session?.anonymous == false {
            self.keepEmailLinkAddress(nil)
          } else {
            self.emailLinkAddress = kept
          }
        })
    }
    tasks.append(
      Task { [weak self] in
        for await state in await runtime.states() { self?.follow(state) }
      })
    tasks.append(
      Task { [weak self] in
        for await note in await runtime.notifications() { self?.handle(note) }
      })
    Task { await runtime.start() }
  }

  /// Stops following the runtime.
  public func stop() {
    for t in tasks { t.cancel() }
    tasks = []
  }

  /// True while a request of the current flow is in flight (show a spinner).
  public var isBusy: Bool {
    switch state {
    case .starting, .restoring, .signingInAnonymously, .googleAuthenticated,
      .providerAuthenticated, .migrating, .deletingAccount, .unlinkingProvider, .signingInWithEmail,
      .creatingAccount, .sendingPasswordReset, .reloadingAccount, .sendingVerificationEmail,
      .applyingActionCode, .checkingActionCode, .confirmingPasswordReset, .signingInWithCustomToken,
      .reauthenticatingWithPassword, .changingPassword, .changingEmail, .updatingProfile,
      .sendingSignInLink, .signingInWithEmailLink, .startingTotpEnrollment,
      .withdrawingSecondFactor, .startingPhoneEnrollment, .sendingPhoneCode:
      true
    case .secondFactorRequired(let step, _): step.request != nil
    case .enrollingTotp(let enrollment, _): enrollment.request != nil
    case .enrollingPhone(let enrollment, _): enrollment.request != nil
    case .awaitingPhoneCode(let flow, _): flow.request != nil
    case .signedOut, .anonymous, .awaitingProvider, .migrationRequired, .firebaseAuthenticated,
      .reauthenticationRequired, .accountExistsWithDifferentCredential:
      false
    }
  }

  /// A sign-in waiting for its second factor, if one is: the factors to offer (`factors`), and
  /// whether a code was texted (`codeSentTo`). Finish it with `sendSecondFactorCode(_:)` (a phone
  /// factor) and `submitSecondFactorCode(_:for:)`, or `cancel()`.
  public var secondFactor: SecondFactorPrompt? {
    guard case .secondFactorRequired(let step, _) = state else { return nil }
    return SecondFactorPrompt(
      factors: step.challenge.factors, email: step.challenge.email,
      codeSentTo: step.codeSent?.factor, isReauthentication: step.resume != .signIn)
  }

  /// The TOTP secret of an enrolment under way, if one is: show `sharedSecretKey`, or the QR
  /// code of `uri(account:issuer:)`, then pass the first code the authenticator app makes to
  /// `submitTotpEnrollmentCode(_:displayName:)` (or `cancel()`). A secret: never log it.
  public var totpSecret: TotpSecret? {
    guard case .enrollingTotp(let enrollment, _) = state else { return nil }
    return enrollment.secret
  }

  /// The number of a phone enrolment waiting for its texted code, if one is: pass the code to
  /// `submitPhoneEnrollmentCode(_:displayName:)` (or `cancel()`).
  public var phoneBeingEnrolled: String? {
    guard case .enrollingPhone(let enrollment, _) = state else { return nil }
    return enrollment.phoneNumber
  }

  /// The number a texted code is awaited for, if one is (a sign-in, an upgrade or a link by
  /// phone): pass the code to `submitPhoneCode(_:)`, `sendPhoneCode(_:appVerification:)` again
  /// for a new one, or `cancel()`.
  public var phoneCodeSentTo: String? {
    guard case .awaitingPhoneCode(let flow, _) = state else { return nil }
    return flow.phoneNumber
  }

  /// The signed-in session, if any.
  public var session: Session? { state.session }

  /// Whether the account's email is verified, as Firebase last said (`reload()` asks again).
  public var emailVerified: Bool { session?.emailVerified ?? false }

  /// The current ID token's custom claims, decoded and not verified (see `IDTokenClaims`);
  /// `idToken(forceRefresh: true)` brings claims an admin changed since the token was minted.
  public var claims: [String: ClaimValue] { session?.claims?.custom ?? [:] }

  private func follow(_ next: AuthState) {
    if next.session?.anonymous == false, emailLinkAddress != nil {
      keepEmailLinkAddress(nil)  // As the machine: a permanent account needs no link's address.
    }
    state = next
  }

  private func handle(_ note: AuthNotification) {
    switch note {
    case .error(let error), .signedOutAfterError(let error): lastError = error
    case .sessionExpired: lastError = AuthError(code: "SESSION_EXPIRED")
    case .userMismatch: lastError = AuthError(code: "USER_MISMATCH")
    case .migrationReady(let from, let to): migration = (from, to)
    case .passwordResetSent, .signedOutElsewhere, .userChanged, .verificationEmailSent,
      .actionCodeApplied, .actionCodeChecked, .passwordResetConfirmed, .passwordChanged,
      .totpEnrolled, .secondFactorWithdrawn, .phoneEnrolled:
      break  // The state shows it (or the app's own notification handler).
    case .signInLinkSent(let email): keepEmailLinkAddress(email)
    case .emailNeededForLink: needsEmailForLink = true
    }
  }

  /// Sets `emailLinkAddress` and writes it to `emailLinkAddresses`, after the writes before.
  private func keepEmailLinkAddress(_ address: String?) {
    emailLinkAddress = address
    guard let store = emailLinkAddresses else { return }
    let previous = lastAddressWrite
    lastAddressWrite = Task {
      await previous?.value
      await store.save(address)
    }
  }

  /// Forgets the last error.
  public func dismissError() { lastError = nil }

  private func send(_ intent: Intent) {
    let runtime = self.runtime
    Task { await runtime.send(intent) }
  }

  public func signInAnonymously() { send(.signInAnonymouslyTapped) }
  /// Sign in with a provider (for an anonymous user: the upgrade).
  public func signIn(with provider: ProviderID) {
    send(.signInWithProviderTapped(provider: provider))
  }
  /// Link a provider to the signed-in account.
  public func link(_ provider: ProviderID) { send(.linkProviderTapped(provider: provider)) }
  /// Remove a provider from the account (refused for its last way to sign in).
  public func unlink(_ provider: ProviderID) { send(.unlinkProviderTapped(provider: provider)) }
  public func signInWithGoogle() { signIn(with: .google) }
  public func linkGoogle() { link(.google) }
  public func signIn(email: String, password: String) {
    send(.signInWithEmail(email: email, password: password))
  }
  public func createAccount(email: String, password: String) {
    send(.createAccount(email: email, password: password))
  }
  public func sendPasswordReset(email: String) { send(.sendPasswordReset(email: email)) }
  public func decideMigration(_ choice: MigrationChoice) { send(.migrationDecided(choice: choice)) }
  /// Call once the anonymous user's data is moved.
  public func migrationFinished() {
    migration = nil
    send(.migrationFinished)
  }
  /// Prove again who the user is; `nil` uses the account's own provider.
  public func reauthenticate(with provider: ProviderID? = nil) {
    send(.reauthenticateTapped(provider: provider))
  }
  public func signOut(discardAnonymousData: Bool = false) {
    send(.signOutTapped(discardAnonymousData: discardAnonymousData))
  }
  public func deleteAccount() { send(.deleteAccountTapped) }
  /// Ask Firebase for the account as it is now (email verified, providers, name); a disabled
  /// or deleted account, or revoked tokens, sign out.
  public func reload() { send(.reloadRequested) }
  /// Email the signed-in user a link that verifies their address.
  public func sendEmailVerification() { send(.sendEmailVerification) }
  /// Apply the `oobCode` of an email link the app was opened with (a verification).
  public func applyActionCode(_ code: String) { send(.applyActionCode(code: code)) }
  /// Ask what an email link's code is for (`actionCodeChecked`), without using it.
  public func checkActionCode(_ code: String) { send(.checkActionCode(code: code)) }
  /// Finish a password reset with the reset mail's code and the new password.
  public func confirmPasswordReset(code: String, newPassword: String) {
    send(.confirmPasswordReset(code: code, newPassword: newPassword))
  }
  /// Sign in with a custom token from the app's backend; signed in already, it must be the same
  /// user's (another user's is refused: `lastError` `USER_MISMATCH`).
  public func signIn(customToken: String) { send(.signInWithCustomToken(token: customToken)) }
  /// Change the signed-in account's password; a login too old for it shows
  /// `reauthenticationRequired`, and `reauthenticate(password:)` (or a provider's
  /// reauthentication) resumes it.
  public func changePassword(_ newPassword: String) {
    send(.changePassword(newPassword: newPassword))
  }
  /// Change the signed-in account's email, verified first: Firebase mails `newEmail` a link, and
  /// the email changes when that link is applied (`apply(actionCode:)`, then `reload()`); a
  /// login too old for it shows `reauthenticationRequired`, as for a password change.
  public func changeEmail(_ newEmail: String) { send(.changeEmail(newEmail: newEmail)) }
  /// Set or remove the display name and photo URL: a field left `nil` stays, `""` removes it.
  /// The session shows what the server answered (`session?.displayName`, `session?.photoURL`).
  public func updateProfile(displayName: String? = nil, photoURL: String? = nil) {
    send(.updateProfile(change: ProfileChange(displayName: displayName, photoURL: photoURL)))
  }
  /// Prove again who the user is with the account's email and `password` (also resumes a
  /// waiting operation).
  public func reauthenticate(password: String) {
    send(.reauthenticateWithPassword(password: password))
  }
  /// Mail a sign-in link to `email` (nobody signed in, or a guest, whom the link upgrades).
  public func sendSignInLink(to email: String) { send(.sendSignInLink(email: email)) }
  /// Sign in with the `oobCode` of the sign-in link the app was opened with; `email` is needed
  /// only when `needsEmailForLink` says so (the link was sent from another device, or before a
  /// relaunch without `emailLinkAddresses`). Without `email`, the address kept is sent.
  public func signIn(emailLink code: String, email: String? = nil) {
    needsEmailForLink = false
    send(.signInWithEmailLink(code: code, email: email ?? emailLinkAddress))
  }
  public func cancel() { send(.cancelTapped) }

  /// Texts a code to the phone factor `factor` (an id from `secondFactor?.factors`);
  /// `appVerification` is the app's proof (a reCAPTCHA token), passed through to Firebase.
  public func sendSecondFactorCode(_ factor: String, appVerification: AppVerification? = nil) {
    send(.sendSecondFactorCode(factor: factor, appVerification: appVerification))
  }

  /// Finishes the sign-in waiting for its second factor with `factor`'s code.
  public func submitSecondFactorCode(_ code: String, for factor: String) {
    send(.submitSecondFactorCode(factor: factor, verificationCode: code))
  }

  /// Enrols an authenticator app as a second factor of the signed-in account: Firebase issues
  /// a secret (`totpSecret`); a login too old for it shows `reauthenticationRequired` first.
  public func enrollTotp() { send(.enrollTotp) }

  /// Finishes the enrolment with the first code the authenticator app made with `totpSecret`,
  /// naming the factor `displayName` ("Authenticator app" when `nil`). A wrong code keeps the
  /// secret for another try.
  public func submitTotpEnrollmentCode(_ code: String, displayName: String? = nil) {
    send(.submitTotpEnrollmentCode(verificationCode: code, displayName: displayName))
  }

  /// Enrols `phoneNumber` (E.164) as a second factor of the signed-in account: Firebase texts a
  /// code to it (`phoneBeingEnrolled`); `appVerification` is the app's proof that it is the app
  /// (a reCAPTCHA token), passed through. A login too old for it shows
  /// `reauthenticationRequired` first.
  public func enrollPhone(_ phoneNumber: String, appVerification: AppVerification? = nil) {
    send(.enrollPhone(phoneNumber: phoneNumber, appVerification: appVerification))
  }

  /// Finishes the phone enrolment with the texted code, naming the factor `displayName`
  /// ("Phone" when `nil`). A wrong code keeps waiting for another try.
  public func submitPhoneEnrollmentCode(_ code: String, displayName: String? = nil) {
    send(.submitPhoneEnrollmentCode(verificationCode: code, displayName: displayName))
  }

  /// Texts a code to `phoneNumber` (E.164) to sign in with it (nobody signed in), upgrade the
  /// guest, or add the number to the signed-in account; `appVerification` is the app's proof
  /// that it is the app (a reCAPTCHA token), passed through. While the code is awaited, sends
  /// a new one.
  public func sendPhoneCode(_ phoneNumber: String, appVerification: AppVerification? = nil) {
    send(.sendPhoneCode(phoneNumber: phoneNumber, appVerification: appVerification))
  }

  /// Signs in (or upgrades, or links) with the texted code. A wrong code keeps waiting.
  public func submitPhoneCode(_ code: String) { send(.submitPhoneCode(verificationCode: code)) }

  /// Withdraws the second factor whose id is `factor` (one of `session?.secondFactors`); a
  /// login too old for it shows `reauthenticationRequired` first. The account is reloaded
  /// after, so `session?.secondFactors` lists what is left.
  public func withdrawSecondFactor(_ factor: String) { send(.withdrawSecondFactor(factor: factor)) }

  /// A valid ID token for an API call.
  public func idToken(forceRefresh: Bool = false) async throws -> String {
    try await runtime.idToken(forceRefresh: forceRefresh)
  }
}

/// What a view shows while a sign-in waits for its second factor (no secret in it).
public struct SecondFactorPrompt: Hashable, Sendable {
  /// The account's factors: offer each (a phone factor's `phoneHint` shows its last digits).
  public var factors: [SecondFactor]
  /// The account's email, when Firebase said.
  public var email: String?
  /// The phone factor a code was texted for, if one was: show the code field for it.
  public var codeSentTo: String?
  /// Whether the signed-in user is proving themselves again (not a new sign-in).
  public var isReauthentication: Bool
}
