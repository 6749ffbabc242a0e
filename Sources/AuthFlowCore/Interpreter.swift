/// Performs the machine's requests against the world: the HTTP interpreter talks to the
/// providers and Firebase, `TestInterpreter` answers from a queue, and an app can supply its own
/// (say, the GoogleSignIn SDK for Google's consent step). One method per request kind, each
/// returning that kind's own answer type, so a new request kind is a compile error in every
/// interpreter until it handles it. Failures are answers too (`requestFailed`,
/// `providerFailed`), never thrown, so every request is answered. Storage and timers are the
/// runtime's job, not this.
public protocol AuthInterpreter: Sendable {
  /// `accounts:signUp` with no email: a new anonymous user.
  func signUpAnonymously() async -> SessionAnswer
  /// A provider's consent step.
  func authorize(provider: ProviderID, intent: AuthorizationIntent, loginHint: String?) async
    -> AuthorizeAnswer
  /// `accounts:signInWithIdp`; `linkTo` is the current user's ID token when linking.
  func signInWithIdp(credential: IdPCredential, linkTo: String?) async -> IdPAnswer
  /// `accounts:signInWithPassword`.
  func signInWithPassword(email: String, password: String) async -> FirstFactorAnswer
  /// `accounts:signUp` with email and password; `linkTo` links the anonymous user.
  func signUpWithPassword(email: String, password: String, linkTo: String?) async
    -> SessionAnswer
  /// `accounts:sendOobCode` with `PASSWORD_RESET`.
  func sendPasswordReset(email: String) async -> ResetAnswer
  /// Secure Token `/v1/token`.
  func refreshToken(_ refreshToken: String) async -> RefreshAnswer
  /// `accounts:delete`.
  func deleteAccount(idToken: String) async -> DeleteAnswer
  /// `accounts:revokeToken` (v2) with a provider's authorization code.
  func revokeToken(provider: ProviderID, authorizationCode: String, idToken: String) async
    -> RevokeAnswer
  /// `accounts:update` with `deleteProvider`.
  func unlinkProvider(provider: ProviderID, idToken: String) async -> UnlinkAnswer
  /// `accounts:lookup`: the account as the server sees it now.
  func lookupAccount(idToken: String) async -> LookupAnswer
  /// `accounts:sendOobCode` with `VERIFY_EMAIL` for the account of `idToken`.
  func sendVerificationEmail(idToken: String) async -> VerificationEmailAnswer
  /// `accounts:update` with `oobCode`: apply a code from an email link.
  func applyActionCode(code: String) async -> ActionCodeAnswer
  /// `accounts:resetPassword` with `oobCode` alone: what the code is for.
  func checkActionCode(code: String) async -> CheckCodeAnswer
  /// `accounts:resetPassword` with `oobCode` and `newPassword`.
  func confirmPasswordReset(code: String, newPassword: String) async -> PasswordResetAnswer
  /// `accounts:signInWithCustomToken` with a token the app's backend minted.
  func signInWithCustomToken(token: String) async -> SignInAnswer
  /// `accounts:update` with `password` for the account of `idToken`.
  func updatePassword(idToken: String, newPassword: String) async -> PasswordChangeAnswer
  /// `accounts:sendOobCode` `VERIFY_AND_CHANGE_EMAIL` for the account of `idToken`: mail a
  /// link to `newEmail` that changes the account's email when it is applied.
  func sendEmailChangeVerification(idToken: String, newEmail: String) async
    -> VerificationEmailAnswer
  /// `accounts:update` with `displayName`, `photoUrl` and `deleteAttribute` for the account of
  /// `idToken`.
  func updateProfile(idToken: String, change: ProfileChange) async -> ProfileAnswer
  /// `accounts:sendOobCode` with `EMAIL_SIGNIN`: mail a sign-in link to `email`.
  func sendSignInLink(email: String) async -> SignInLinkAnswer
  /// `accounts:signInWithEmailLink` with the link's code; `linkTo` (an anonymous user's ID
  /// token) upgrades that account.
  func signInWithEmailLink(email: String, code: String, linkTo: String?) async -> FirstFactorAnswer
  /// `mfaSignIn:start` (v2): text a code to the phone factor `factor` of the challenge whose
  /// pending credential this is, with the app's proof (`appVerification`) passed through.
  func startSecondFactorSignIn(
    pendingCredential: String, factor: String, appVerification: AppVerification?
  )
    async -> SecondFactorCodeAnswer
  /// `mfaSignIn:finalize` (v2): finish the sign-in with `factor`'s code (a TOTP factor's, or
  /// the one texted for `sessionInfo`); then give the account `displayName`, the name the first
  /// factor's provider gave once, when it has none.
  func finalizeSecondFactorSignIn(
    pendingCredential: String, factor: String, sessionInfo: String?, verificationCode: String,
    displayName: String?
  ) async -> SessionAnswer
  /// `mfaEnrollment:start` (v2) with `totpEnrollmentInfo`: a TOTP secret for the account of
  /// `idToken` to enrol.
  func startTotpEnrollment(idToken: String) async -> TotpSecretAnswer
  /// `mfaEnrollment:finalize` (v2) with `totpVerificationInfo`: enrol the secret of the session
  /// `sessionInfo` with the first code made with it, under `displayName`.
  func finalizeTotpEnrollment(
    idToken: String, sessionInfo: String, verificationCode: String, displayName: String
  ) async -> TotpEnrollmentAnswer
  /// `mfaEnrollment:withdraw` (v2): remove the second factor `factor` from the account of
  /// `idToken`.
  func withdrawSecondFactor(idToken: String, factor: String) async
    -> SecondFactorWithdrawnAnswer
  /// `mfaEnrollment:start` (v2) with `phoneEnrollmentInfo`: text a code to `phoneNumber` to
  /// enrol it as a second factor of the account of `idToken`, with the app's proof
  /// (`appVerification`) passed through.
  func startPhoneEnrollment(idToken: String, phoneNumber: String, appVerification: AppVerification?)
    async
    -> SecondFactorCodeAnswer
  /// `mfaEnrollment:finalize` (v2) with `phoneVerificationInfo`: enrol the number of the session
  /// `sessionInfo` with the code texted to it, under `displayName`.
  func finalizePhoneEnrollment(
    idToken: String, sessionInfo: String, verificationCode: String, displayName: String
  ) async -> PhoneEnrollmentAnswer
  /// `accounts:sendVerificationCode`: text a code to `phoneNumber`, with the app's proof
  /// (`appVerification`) passed through.
  func sendVerificationCode(phoneNumber: String, appVerification: AppVerification?) async
    -> PhoneCodeAnswer
  /// `accounts:signInWithPhoneNumber` with the code texted for `sessionInfo`; `linkTo` adds the
  /// number to that user's account.
  func signInWithPhoneNumber(sessionInfo: String, verificationCode: String, linkTo: String?)
    async -> PhoneSignInAnswer
  /// `accounts:signInWithPhoneNumber` with Firebase's temporary proof for a number that is
  /// another account's: signs in to that account.
  func signInWithTemporaryProof(_ proof: PhoneProof) async -> SessionAnswer

  /// Signs out of a provider's SDK (the `signOutProvider` effect); with `revoke` (the account
  /// was deleted) also disconnects, revoking the grant the SDK holds (GoogleSignIn's
  /// `disconnect`).
  func signOut(of provider: ProviderID, revoke: Bool) async

  /// Performs `request` and returns its answer, tagged with `id`: what a runtime feeds back
  /// as `Event.answer`. By default it calls the method for the request's kind; an
  /// `AnsweringInterpreter` answers here instead.
  func perform(_ request: Request, id: RequestID) async -> Answer
}

extension AuthInterpreter {
  /// By default there is no provider SDK to sign out of.
  public func signOut(of provider: ProviderID, revoke: Bool) async {}

  /// Calls the method for the request's kind and tags its answer with `id`.
  public func perform(_ request: Request, id: RequestID) async -> Answer {
    switch request {
    case .signUpAnonymously:
      .signUpAnonymously(id, await signUpAnonymously())
    case .authorize(let p, let intent, let hint):
      .authorize(id, await authorize(provider: p, intent: intent, loginHint: hint))
    case .signInWithIdp(let c, let linkTo):
      .signInWithIdp(id, await signInWithIdp(credential: c, linkTo: linkTo))
    case .signInWithPassword(let e, let p):
      .signInWithPassword(id, await signInWithPassword(email: e, password: p))
    case .signUpWithPassword(let e, let p, let linkTo):
      .signUpWithPassword(id, await signUpWithPassword(email: e, password: p, linkTo: linkTo))
    case .sendPasswordReset(let e):
      .sendPasswordReset(id, await sendPasswordReset(email: e))
    case .refreshToken(let t):
      .refreshToken(id, await refreshToken(t))
    case .deleteAccount(let t):
      .deleteAccount(id, await deleteAccount(idToken: t))
    case .revokeToken(let p, let code, let t):
      .revokeToken(id, await revokeToken(provider: p, authorizationCode: code, idToken: t))
    case .unlinkProvider(let p, let t):
      .unlinkProvider(id, await unlinkProvider(provider: p, idToken: t))
    case .lookupAccount(let t):
      .lookupAccount(id, await lookupAccount(idToken: t))
    case .sendVerificationEmail(let t):
      .sendVerificationEmail(id, await sendVerificationEmail(idToken: t))
    case .applyActionCode(let code):
      .applyActionCode(id, await applyActionCode(code: code))
    case .checkActionCode(let code):
      .checkActionCode(id, await checkActionCode(code: code))
    case .confirmPasswordReset(let code, let password):
      .confirmPasswordReset(id, await confirmPasswordReset(code: code, newPassword: password))
    case .signInWithCustomToken(let token):
      .signInWithCustomToken(id, await signInWithCustomToken(token: token))
    case .updatePassword(let token, let password):
      .updatePassword(id, await updatePassword(idToken: token, newPassword: password))
    case .sendEmailChangeVerification(let token, let email):
      .sendEmailChangeVerification(
        id, await sendEmailChangeVerification(idToken: token, newEmail: email))
    case .updateProfile(let token, let change):
      .updateProfile(id, await updateProfile(idToken: token, change: change))
    case .sendSignInLink(let email):
      .sendSignInLink(id, await sendSignInLink(email: email))
    case .signInWithEmailLink(let email, let code, let linkTo):
      .signInWithEmailLink(id, await signInWithEmailLink(email: email, code: code, linkTo: linkTo))
    case .startSecondFactorSignIn(let pending, let factor, let proof):
      .startSecondFactorSignIn(
        id,
        await startSecondFactorSignIn(
          pendingCredential: pending, factor: factor, appVerification: proof))
    case .finalizeSecondFactorSignIn(let pending, let factor, let info, let code, let name):
      .finalizeSecondFactorSignIn(
        id,
        await finalizeSecondFactorSignIn(
          pendingCredential: pending, factor: factor, sessionInfo: info, verificationCode: code,
          displayName: name))
    case .startTotpEnrollment(let token):
      .startTotpEnrollment(id, await startTotpEnrollment(idToken: token))
    case .finalizeTotpEnrollment(let token, let info, let code, let name):
      .finalizeTotpEnrollment(
        id,
        await finalizeTotpEnrollment(
          idToken: token, sessionInfo: info, verificationCode: code, displayName: name))
    case .withdrawSecondFactor(let token, let factor):
      .withdrawSecondFactor(id, await withdrawSecondFactor(idToken: token, factor: factor))
    case .startPhoneEnrollment(let token, let number, let proof):
      .startPhoneEnrollment(
        id,
        await startPhoneEnrollment(idToken: token, phoneNumber: number, appVerification: proof))
    case .sendVerificationCode(let number, let proof):
      .sendVerificationCode(
        id, await sendVerificationCode(phoneNumber: number, appVerification: proof))
    case .signInWithPhoneNumber(let info, let code, let linkTo):
      .signInWithPhoneNumber(
        id,
        await signInWithPhoneNumber(sessionInfo: info, verificationCode: code, linkTo: linkTo))
    case .signInWithTemporaryProof(let proof):
      .signInWithTemporaryProof(id, await signInWithTemporaryProof(proof))
    case .finalizePhoneEnrollment(let token, let info, let code, let name):
      .finalizePhoneEnrollment(
        id,
        await finalizePhoneEnrollment(
          idToken: token, sessionInfo: info, verificationCode: code, displayName: name))
    }
  }
}

/// An interpreter that answers every request in one place, whatever its kind: a test's queue
/// (`TestInterpreter`), a benchmark's instant answers, a recorder. It implements
/// `respond(to:id:)` alone; the per-kind methods are derived from it, so a new request kind
/// needs no code in it. An interpreter that talks to the world should implement the per-kind
/// methods instead, so that a new kind is a compile error there until it is handled.
public protocol AnsweringInterpreter: AuthInterpreter {
  /// The answer to `request`, tagged with `id`. An answer of another kind than the request's
  /// is taken as the request's failure (`WRONG_ANSWER`).
  func respond(to request: Request, id: RequestID) async -> Answer
}

extension AnsweringInterpreter {
  public func perform(_ request: Request, id: RequestID) async -> Answer {
    let answer = await respond(to: request, id: id)
    return answer.kind == request.kind
      ? answer : Answer.failed(request.kind, id, wrongAnswer(answer))
  }

  /// The outcome `respond(to:id:)` gives `request` (an id of 0: called outside a runtime).
  private func outcome<O>(_ request: Request, _ slot: RequestSlot<O>) async -> O {
    let answer = await respond(to: request, id: RequestID(0))
    return slot.outcome(of: answer) ?? .failure(wrongAnswer(answer))
  }

  private func wrongAnswer(_ answer: Answer) -> AuthError {
    AuthError(code: "WRONG_ANSWER", message: "answered with a \(answer.kind.rawValue) answer")
  }

  public func signUpAnonymously() async -> SessionAnswer {
    await outcome(.signUpAnonymously, .signUpAnonymously)
  }

  public func authorize(provider: ProviderID, intent: AuthorizationIntent, loginHint: String?)
    async -> AuthorizeAnswer
  {
    await outcome(.authorize(provider: provider, intent: intent, loginHint: loginHint), .authorize)
  }

  public func signInWithIdp(credential: IdPCredential, linkTo: String?) async -> IdPAnswer {
    await outcome(.signInWithIdp(credential: credential, linkTo: linkTo), .signInWithIdp)
  }

  public func signInWithPassword(email: String, password: String) async -> FirstFactorAnswer {
    await outcome(.signInWithPassword(email: email, password: password), .signInWithPassword)
  }

  public func signUpWithPassword(email: String, password: String, linkTo: String?) async
    -> SessionAnswer
  {
    await outcome(
      .signUpWithPassword(email: email, password: password, linkTo: linkTo), .signUpWithPassword)
  }

  public func sendPasswordReset(email: String) async -> ResetAnswer {
    await outcome(.sendPasswordReset(email: email), .sendPasswordReset)
  }

  public func refreshToken(_ refreshToken: String) async -> RefreshAnswer {
    await outcome(.refreshToken(refreshToken: refreshToken), .refreshToken)
  }

  public func deleteAccount(idToken: String) async -> DeleteAnswer {
    await outcome(.deleteAccount(idToken: idToken), .deleteAccount)
  }

  public func revokeToken(provider: ProviderID, authorizationCode: String, idToken: String) async
    -> RevokeAnswer
  {
    await outcome(
      .revokeToken(provider: provider, authorizationCode: authorizationCode, idToken: idToken),
      .revokeToken)
  }

  public func unlinkProvider(provider: ProviderID, idToken: String) async -> UnlinkAnswer {
    await outcome(.unlinkProvider(provider: provider, idToken: idToken), .unlinkProvider)
  }

  public func lookupAccount(idToken: String) async -> LookupAnswer {
    await outcome(.lookupAccount(idToken: idToken), .lookupAccount)
  }

  public func sendVerificationEmail(idToken: String) async -> VerificationEmailAnswer {
    await outcome(.sendVerificationEmail(idToken: idToken), .sendVerificationEmail)
  }

  public func applyActionCode(code: String) async -> ActionCodeAnswer {
    await outcome(.applyActionCode(code: code), .applyActionCode)
  }

  public func checkActionCode(code: String) async -> CheckCodeAnswer {
    await outcome(.checkActionCode(code: code), .checkActionCode)
  }

  public func confirmPasswordReset(code: String, newPassword: String) async
    -> PasswordResetAnswer
  {
    await outcome(
      .confirmPasswordReset(code: code, newPassword: newPassword), .confirmPasswordReset)
  }

  public func signInWithCustomToken(token: String) async -> SignInAnswer {
    await outcome(.signInWithCustomToken(token: token), .signInWithCustomToken)
  }

  public func updatePassword(idToken: String, newPassword: String) async -> PasswordChangeAnswer {
    await outcome(.updatePassword(idToken: idToken, newPassword: newPassword), .updatePassword)
  }

  public func sendEmailChangeVerification(idToken: String, newEmail: String) async
    -> VerificationEmailAnswer
  {
    await outcome(
      .sendEmailChangeVerification(idToken: idToken, newEmail: newEmail),
      .sendEmailChangeVerification)
  }

  public func updateProfile(idToken: String, change: ProfileChange) async -> ProfileAnswer {
    await outcome(.updateProfile(idToken: idToken, change: change), .updateProfile)
  }

  public func sendSignInLink(email: String) async -> SignInLinkAnswer {
    await outcome(.sendSignInLink(email: email), .sendSignInLink)
  }

  public func signInWithEmailLink(email: String, code: String, linkTo: String?) async
    -> FirstFactorAnswer
  {
    await outcome(
      .signInWithEmailLink(email: email, code: code, linkTo: linkTo), .signInWithEmailLink)
  }

  public func startSecondFactorSignIn(
    pendingCredential: String, factor: String, appVerification: AppVerification?
  ) async -> SecondFactorCodeAnswer {
    await outcome(
      .startSecondFactorSignIn(
        pendingCredential: pendingCredential, factor: factor, appVerification: appVerification),
      .startSecondFactorSignIn)
  }

  public func finalizeSecondFactorSignIn(
    pendingCredential: String, factor: String, sessionInfo: String?, verificationCode: String,
    displayName: String?
  ) async -> SessionAnswer {
    await outcome(
      .finalizeSecondFactorSignIn(
        pendingCredential: pendingCredential, factor: factor, sessionInfo: sessionInfo,
        verificationCode: verificationCode, displayName: displayName), .finalizeSecondFactorSignIn)
  }

  public func startTotpEnrollment(idToken: String) async -> TotpSecretAnswer {
    await outcome(.startTotpEnrollment(idToken: idToken), .startTotpEnrollment)
  }

  public func finalizeTotpEnrollment(
    idToken: String, sessionInfo: String, verificationCode: String, displayName: String
  ) async -> TotpEnrollmentAnswer {
    await outcome(
      .finalizeTotpEnrollment(
        idToken: idToken, sessionInfo: sessionInfo, verificationCode: verificationCode,
        displayName: displayName), .finalizeTotpEnrollment)
  }

  public func withdrawSecondFactor(idToken: String, factor: String) async
    -> SecondFactorWithdrawnAnswer
  {
    await outcome(.withdrawSecondFactor(idToken: idToken, factor: factor), .withdrawSecondFactor)
  }

  public func startPhoneEnrollment(
    idToken: String, phoneNumber: String, appVerification: AppVerification?
  )
    async -> SecondFactorCodeAnswer
  {
    await outcome(
      .startPhoneEnrollment(
        idToken: idToken, phoneNumber: phoneNumber, appVerification: appVerification),
      .startPhoneEnrollment)
  }

  public func finalizePhoneEnrollment(
    idToken: String, sessionInfo: String, verificationCode: String, displayName: String
  ) async -> PhoneEnrollmentAnswer {
    await outcome(
      .finalizePhoneEnrollment(
        idToken: idToken, sessionInfo: sessionInfo, verificationCode: verificationCode,
        displayName: displayName), .finalizePhoneEnrollment)
  }

  public func sendVerificationCode(phoneNumber: String, appVerification: AppVerification?) async
    -> PhoneCodeAnswer
  {
    await outcome(
      .sendVerificationCode(phoneNumber: phoneNumber, appVerification: appVerification),
      .sendVerificationCode)
  }

  public func signInWithPhoneNumber(sessionInfo: String, verificationCode: String, linkTo: String?)
    async -> PhoneSignInAnswer
  {
    await outcome(
      .signInWithPhoneNumber(
        sessionInfo: sessionInfo, verificationCode: verificationCode, linkTo: linkTo),
      .signInWithPhoneNumber)
  }

  public func signInWithTemporaryProof(_ proof: PhoneProof) async -> SessionAnswer {
    await outcome(.signInWithTemporaryProof(proof), .signInWithTemporaryProof)
  }
}
