import AuthFlowCore
import Foundation

/// The real interpreter: each provider's consent step, then Firebase over HTTP.
public struct HTTPInterpreter: AuthInterpreter {
  public var firebase: FirebaseAPI
  /// The consent step of each provider the app offers.
  public var consents: [ProviderID: any ProviderConsent]
  /// Where a provider's OAuth grant is revoked when its SDK session is disconnected after the
  /// account was deleted (Google's by default); the token revoked is the last one this
  /// interpreter received from that provider's consent step in this process.
  public var revocationEndpoints: [ProviderID: URL]
  let onSignOut: @Sendable (ProviderID, Bool) async -> Void
  let grants = Grants()

  /// An interpreter with a consent step per provider; `onSignOut` signs out of a provider's
  /// SDK (and disconnects it when its second argument is true: the account was deleted).
  public init(
    firebase: FirebaseAPI, consents: [ProviderID: any ProviderConsent],
    revocationEndpoints: [ProviderID: URL] = [
      .google: URL(string: "https://oauth2.googleapis.com/revoke")!
    ],
    onSignOut: @escaping @Sendable (ProviderID, Bool) async -> Void = { _, _ in }
  ) {
    self.firebase = firebase
    self.consents = consents
    self.revocationEndpoints = revocationEndpoints
    self.onSignOut = onSignOut
  }

  /// An interpreter that offers Google alone.
  public init(
    firebase: FirebaseAPI, consent: any ProviderConsent,
    onSignOut: @escaping @Sendable (ProviderID, Bool) async -> Void = { _, _ in }
  ) {
    self.init(firebase: firebase, consents: [.google: consent], onSignOut: onSignOut)
  }

  public func authorize(provider: ProviderID, intent: AuthorizationIntent, loginHint: String?)
    async -> AuthorizeAnswer
  {
    guard let consent = consents[provider] else {
      return .providerFailed(
        error: AuthError(
          code: "PROVIDER_NOT_CONFIGURED", message: "no consent step for \(provider)"))
    }
    let answer = await consent.authorize(provider: provider, intent: intent, loginHint: loginHint)
    if case .providerSucceeded(let c) = answer, let token = c.accessToken {
      await grants.keep(token, for: provider)
    }
    return answer
  }

  public func signUpAnonymously() async -> SessionAnswer { await firebase.signUpAnonymously() }

  public func signInWithIdp(credential: IdPCredential, linkTo: String?) async -> IdPAnswer {
    await firebase.signInWithIdp(credential, linkTo: linkTo)
  }

  public func signInWithPassword(email: String, password: String) async -> FirstFactorAnswer {
    await firebase.signIn(email: email, password: password)
  }

  public func startSecondFactorSignIn(
    pendingCredential: String, factor: String, appVerification: AppVerification?
  ) async -> SecondFactorCodeAnswer {
    await firebase.startSecondFactorSignIn(
      pendingCredential: pendingCredential, factor: factor, appVerification: appVerification)
  }

  public func finalizeSecondFactorSignIn(
    pendingCredential: String, factor: String, sessionInfo: String?, verificationCode: String,
    displayName: String?
  ) async -> SessionAnswer {
    await firebase.finalizeSecondFactorSignIn(
      pendingCredential: pendingCredential, factor: factor, sessionInfo: sessionInfo,
      verificationCode: verificationCode, displayName: displayName)
  }

  public func startTotpEnrollment(idToken: String) async -> TotpSecretAnswer {
    await firebase.startTotpEnrollment(idToken: idToken)
  }

  public func finalizeTotpEnrollment(
    idToken: String, sessionInfo: String, verificationCode: String, displayName: String
  ) async -> TotpEnrollmentAnswer {
    await firebase.finalizeTotpEnrollment(
      idToken: idToken, sessionInfo: sessionInfo, verificationCode: verificationCode,
      displayName: displayName)
  }

  public func startPhoneEnrollment(
    idToken: String, phoneNumber: String, appVerification: AppVerification?
  )
    async -> SecondFactorCodeAnswer
  {
    await firebase.startPhoneEnrollment(
      idToken: idToken, phoneNumber: phoneNumber, appVerification: appVerification)
  }

  public func finalizePhoneEnrollment(
    idToken: String, sessionInfo: String, verificationCode: String, displayName: String
  ) async -> PhoneEnrollmentAnswer {
    await firebase.finalizePhoneEnrollment(
      idToken: idToken, sessionInfo: sessionInfo, verificationCode: verificationCode,
      displayName: displayName)
  }

  public func sendVerificationCode(phoneNumber: String, appVerification: AppVerification?) async
    -> PhoneCodeAnswer
  {
    await firebase.sendVerificationCode(phoneNumber: phoneNumber, appVerification: appVerification)
  }

  public func signInWithPhoneNumber(sessionInfo: String, verificationCode: String, linkTo: String?)
    async -> PhoneSignInAnswer
  {
    await firebase.signInWithPhoneNumber(
      sessionInfo: sessionInfo, verificationCode: verificationCode, linkTo: linkTo)
  }

  public func signInWithTemporaryProof(_ proof: PhoneProof) async -> SessionAnswer {
    await firebase.signInWithTemporaryProof(proof)
  }

  public func withdrawSecondFactor(idToken: String, factor: String) async
    -> SecondFactorWithdrawnAnswer
  {
    await firebase.withdrawSecondFactor(idToken: idToken, factor: factor)
  }

  public func signUpWithPassword(email: String, password: String, linkTo: String?) async
    -> SessionAnswer
  {
    await firebase.signUp(email: email, password: password, linkTo: linkTo)
  }

  public func sendPasswordReset(email: String) async -> ResetAnswer {
    await firebase.sendPasswordReset(email: email)
  }

  public func refreshToken(_ refreshToken: String) async -> RefreshAnswer {
    await firebase.refresh(refreshToken)
  }

  public func deleteAccount(idToken: String) async -> DeleteAnswer {
    await firebase.delete(idToken: idToken)
  }

  public func revokeToken(provider: ProviderID, authorizationCode: String, idToken: String) async
    -> RevokeAnswer
  {
    await firebase.revokeToken(
      provider: provider, authorizationCode: authorizationCode, idToken: idToken)
  }

  public func unlinkProvider(provider: ProviderID, idToken: String) async -> UnlinkAnswer {
    await firebase.unlink(provider: provider, idToken: idToken)
  }

  public func lookupAccount(idToken: String) async -> LookupAnswer {
    await firebase.reload(idToken: idToken)
  }

  public func sendVerificationEmail(idToken: String) async -> VerificationEmailAnswer {
    await firebase.sendVerificationEmail(idToken: idToken)
  }

  public func sendEmailChangeVerification(idToken: String, newEmail: String) async
    -> VerificationEmailAnswer
  {
    await firebase.sendEmailChangeVerification(idToken: idToken, newEmail: newEmail)
  }

  public func updateProfile(idToken: String, change: ProfileChange) async -> ProfileAnswer {
    await firebase.updateProfile(idToken: idToken, change: change)
  }

  public func applyActionCode(code: String) async -> ActionCodeAnswer {
    await firebase.applyActionCode(code)
  }

  public func checkActionCode(code: String) async -> CheckCodeAnswer {
    await firebase.checkActionCode(code)
  }

  public func confirmPasswordReset(code: String, newPassword: String) async
    -> PasswordResetAnswer
  {
    await firebase.confirmPasswordReset(code, newPassword: newPassword)
  }

  public func signInWithCustomToken(token: String) async -> SignInAnswer {
    await firebase.signIn(customToken: token)
  }

  public func updatePassword(idToken: String, newPassword: String) async -> PasswordChangeAnswer {
    await firebase.updatePassword(idToken: idToken, newPassword: newPassword)
  }

  public func sendSignInLink(email: String) async -> SignInLinkAnswer {
    await firebase.sendSignInLink(email: email)
  }

  public func signInWithEmailLink(email: String, code: String, linkTo: String?) async
    -> FirstFactorAnswer
  {
    await firebase.signInWithEmailLink(email: email, code: code, linkTo: linkTo)
  }

  public func signOut(of provider: ProviderID, revoke: Bool) async {
    let token = await grants.take(provider)
    if revoke, let token, let endpoint = revocationEndpoints[provider] {
      // Best effort: the account is already deleted; a grant left behind is reported by the
      // provider's own account page, and revoking an already revoked token succeeds.
      var c = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)
      c?.queryItems = [URLQueryItem(name: "token", value: token)]
      if let url = c?.url {
        _ = await firebase.transport.send(
          HTTPRequest(
            method: "POST", url: url,
            headers: ["Content-Type": "application/x-www-form-urlencoded"],
            timeout: firebase.timeout))
      }
    }
    await onSignOut(provider, revoke)
  }
}

/// The last access token each provider's consent step gave, for revocation (memory only).
actor Grants {
  private var tokens: [ProviderID: String] = [:]
  func keep(_ token: String, for provider: ProviderID) { tokens[provider] = token }
  func take(_ provider: ProviderID) -> String? { tokens.removeValue(forKey: provider) }
}
