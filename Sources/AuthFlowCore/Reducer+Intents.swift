// Intents: what the user or the app did. Each method switches over the phases; an intent that
// means nothing in a phase is a benign race (a double tap, a stale button) and changes nothing.

extension AuthMachine {
  mutating func handleIntent(_ intent: Intent, now: Instant, fx: inout [Effect]) {
    if case .accountExists(let link) = phase, Self.leavesTheWait.contains(intent.kind) {
      // The user signs in the way the account has (or resets its password on the way): the
      // credential waits beside that flow, and comes back here if it ends without a session.
      pendingLink = link
      phase = .resting
    }
    switch intent {
    case .appLaunched:
      guard case .starting = phase else { return }  // Launch is said once; later ones are noise.
      let r = newRequest()
      phase = .restoring(Restore(request: r, waiters: [], retryAt: nil))
      fx.append(.loadSession(requestId: r))
    case .signInAnonymouslyTapped:
      guard case .resting = phase, user == nil else { return }
      phase = .signingInAnonymously(request: send(.signUpAnonymously, &fx))
    case .signInWithProviderTapped(let provider):
      providerTapped(provider, link: false, fx: &fx)
    case .linkProviderTapped(let provider):
      providerTapped(provider, link: true, fx: &fx)
    case .unlinkProviderTapped(let provider):
      unlinkTapped(provider, fx: &fx)
    case .signInWithEmail(let email, let password):
      guard case .resting = phase else { return }
      guard let user else {
        let r = send(.signInWithPassword(email: email, password: password), &fx)
        phase = .emailFlow(EmailFlow(kind: .signIn, request: r, email: email))
        return
      }
      if guestWaitsForAccount {
        // The account the guest's upgrade met, signed in to as a migration's sign-in.
        let r = send(.signInWithPassword(email: email, password: password), &fx)
        phase = .emailFlow(EmailFlow(kind: .signIn, request: r, email: email))
      } else if user.session.anonymous {
        // Signing in elsewhere would orphan the anonymous data: upgrade, or sign out first.
        Self.report(AuthError(code: "ANONYMOUS_USER_SIGNED_IN"), &fx)
      }
    case .createAccount(let email, let password):
      guard case .resting = phase, user?.session.anonymous ?? true else { return }
      let r = send(
        .signUpWithPassword(email: email, password: password, linkTo: user?.session.idToken), &fx)
      phase = .emailFlow(EmailFlow(kind: .createAccount, request: r, email: email))
    case .sendPasswordReset(let email):
      guard case .resting = phase, user == nil || guestWaitsForAccount else { return }
      let r = send(.sendPasswordReset(email: email), &fx)
      phase = .emailFlow(EmailFlow(kind: .passwordReset, request: r, email: email))
    case .migrationDecided(let choice):
      guard case .migrationRequired(let offer) = phase else { return }
      decideMigration(choice, proof: offer.proof, fx: &fx)
    case .migrationFinished:
      guard let cleanup = user?.session.pendingCleanup, !cleanup.dataMoved else { return }
      user?.session.pendingCleanup?.dataMoved = true
      persist(&fx)
      startCleanupIfDue(now: now, fx: &fx)
    case .reauthenticateTapped(let chosen):
      reauthenticateTapped(chosen, fx: &fx)
    case .signOutTapped(let discard):
      signOutTapped(discardAnonymousData: discard, fx: &fx)
    case .deleteAccountTapped:
      guard case .resting = phase, user != nil else { return }
      startDeletion(now: now, fx: &fx)
    case .cancelTapped:
      cancelTapped(fx: &fx)
    case .idTokenRequested(let requestId, let force):
      requestToken(requestId, force: force, now: now, fx: &fx)
    case .reloadRequested:
      // A reload reads; it waits for no flow and interrupts none (a tap while busy is stale).
      guard case .resting = phase, let token = user?.session.idToken else { return }
      let r = send(.lookupAccount(idToken: token), &fx)
      phase = .accountFlow(AccountFlow(kind: .reload, request: r))
    case .sendEmailVerification:
      guard case .resting = phase, let session = user?.session else { return }
      guard session.email != nil else {
        return Self.report(
          AuthError(code: "MISSING_EMAIL", message: "this account has no email to verify"), &fx)
      }
      let r = send(.sendVerificationEmail(idToken: session.idToken), &fx)
      phase = .accountFlow(AccountFlow(kind: .sendVerificationEmail, request: r))
    case .applyActionCode(let code):
      // Signed in or not: the link may have been opened on another device, or by someone else.
      guard case .resting = phase else { return }
      let r = send(.applyActionCode(code: code), &fx)
      phase = .accountFlow(AccountFlow(kind: .applyActionCode, request: r))
    case .checkActionCode(let code):
      guard case .resting = phase else { return }
      let r = send(.checkActionCode(code: code), &fx)
      phase = .accountFlow(AccountFlow(kind: .checkActionCode, request: r))
    case .confirmPasswordReset(let code, let password):
      guard case .resting = phase else { return }
      let r = send(.confirmPasswordReset(code: code, newPassword: password), &fx)
      phase = .accountFlow(AccountFlow(kind: .confirmPasswordReset, request: r))
    case .signInWithCustomToken(let token):
      // Signed in or not: a backend may mint a token for the current user (new claims, or an
      // anonymous user it now vouches for); whose token it is shows only in the answer.
      guard case .resting = phase else { return }
      let r = send(.signInWithCustomToken(token: token), &fx)
      phase = .accountFlow(AccountFlow(kind: .customTokenSignIn, request: r))
    case .changePassword(let password):
      change(.changePassword(newPassword: password), fx: &fx)
    case .changeEmail(let email):
      change(.changeEmail(newEmail: email), fx: &fx)
    case .updateProfile(let change):
      // Not a sensitive change: Firebase asks for no recent login. A change of nothing sends
      // nothing.
      guard case .resting = phase, let token = user?.session.idToken, !change.isEmpty else {
        return
      }
      let r = send(.updateProfile(idToken: token, change: change), &fx)
      phase = .accountFlow(AccountFlow(kind: .updateProfile, request: r))
    case .reauthenticateWithPassword(let password):
      reauthenticateWithPassword(password, fx: &fx)
    case .sendSignInLink(let email):
      // Nobody signed in, or a guest whom the link will upgrade.
      guard case .resting = phase, user?.session.anonymous ?? true else { return }
      let r = send(.sendSignInLink(email: email), &fx)
      phase = .emailFlow(EmailFlow(kind: .sendSignInLink, request: r, email: email))
    case .signInWithEmailLink(let code, let given):
      guard case .resting = phase, user?.session.anonymous ?? true else { return }
      guard let email = given ?? emailLinkAddress else {
        return fx.append(.notify(notification: .emailNeededForLink))
      }
      let r = send(
        .signInWithEmailLink(email: email, code: code, linkTo: user?.session.idToken), &fx)
      phase = .emailFlow(EmailFlow(kind: .linkSignIn, request: r, email: email))
    case .sendSecondFactorCode(let factor, let proof):
      sendSecondFactorCode(factor, appVerification: proof, fx: &fx)
    case .submitSecondFactorCode(let factor, let code):
      submitSecondFactorCode(factor, code: code, fx: &fx)
    case .enrollTotp:
      // Firebase decides who may enrol (a verified email, a recent login); a guest cannot.
      guard case .resting = phase, let session = user?.session, !session.anonymous else { return }
      sendChange(.enrollTotp, token: session.idToken, fx: &fx)
    case .withdrawSecondFactor(let factor):
      // Whether the account has that factor is Firebase's to say (the session's list may be
      // older than the account).
      guard case .resting = phase, let session = user?.session, !session.anonymous else { return }
      sendChange(.withdrawSecondFactor(factor: factor), token: session.idToken, fx: &fx)
    case .enrollPhone(let number, let proof):
      guard case .resting = phase, let session = user?.session, !session.anonymous else { return }
      sendChange(
        .enrollPhone(phoneNumber: number, appVerification: proof), token: session.idToken, fx: &fx)
    case .submitPhoneEnrollmentCode(let code, let name):
      guard case .phoneEnrollment(var enrollment) = phase, enrollment.request == nil,
        let token = user?.session.idToken
      else { return }
      enrollment.request = send(
        .finalizePhoneEnrollment(
          idToken: token, sessionInfo: enrollment.sessionInfo, verificationCode: code,
          displayName: name ?? Self.defaultPhoneName),
        &fx)
      phase = .phoneEnrollment(enrollment)
    case .sendPhoneCode(let number, let proof):
      sendPhoneCode(number, appVerification: proof, fx: &fx)
    case .submitPhoneCode(let code):
      guard case .phoneSignIn(var flow) = phase, flow.request == nil,
        let info = flow.sessionInfo
      else { return }
      flow.request = send(
        .signInWithPhoneNumber(
          sessionInfo: info, verificationCode: code, linkTo: user?.session.idToken),
        &fx)
      phase = .phoneSignIn(flow)
    case .submitTotpEnrollmentCode(let code, let name):
      guard case .totpEnrollment(var enrollment) = phase, enrollment.request == nil,
        let token = user?.session.idToken
      else { return }
      enrollment.request = send(
        .finalizeTotpEnrollment(
          idToken: token, sessionInfo: enrollment.secret.sessionInfo, verificationCode: code,
          displayName: name ?? Self.defaultTotpName),
        &fx)
      phase = .totpEnrollment(enrollment)
    }
  }

  /// The intents that leave the wait after `needConfirmation` for a sign-in the account's way
  /// (the credential waiting beside it).
  static let leavesTheWait: Set<Intent.Kind> = [
    .signInWithEmail, .signInWithProviderTapped, .signInWithGoogleTapped, .sendPasswordReset,
  ]
  /// The name a TOTP factor is enrolled under when the app gives none (Firebase wants one).
  static let defaultTotpName = "Authenticator app"
  /// The name a phone factor is enrolled under when the app gives none.
  static let defaultPhoneName = "Phone"

  /// Text a code to a phone number to sign in with, upgrade the guest or add to the account:
  /// from rest, or again while the code is awaited (a new code). A code texted before is kept,
  /// in case the new text fails, only for the same number: another number starts afresh.
  mutating func sendPhoneCode(
    _ number: String, appVerification: AppVerification?, fx: inout [Effect]
  ) {
    var flow: PhoneSignIn
    if case .resting = phase {
      flow = PhoneSignIn(phoneNumber: number)
    } else if case .phoneSignIn(let f) = phase, f.request == nil {
      flow = f.phoneNumber == number ? f : PhoneSignIn(phoneNumber: number)
    } else {
      return  // Another flow is under way, or a text is on its way.
    }
    flow.request = send(
      .sendVerificationCode(phoneNumber: number, appVerification: appVerification), &fx)
    flow.sendingCode = true
    phase = .phoneSignIn(flow)
  }

  /// Text a code to a phone factor of the challenge (again, for a new code).
  mutating func sendSecondFactorCode(
    _ factor: String, appVerification: AppVerification?, fx: inout [Effect]
  ) {
    guard case .secondFactor(var step) = phase, step.request == nil else { return }
    guard let chosen = step.challenge.factor(factor) else {
      return Self.report(Self.unknownFactor(factor), &fx)
    }
    guard chosen.kind == .phone else {
      return Self.report(
        AuthError(
          code: "NO_CODE_TO_SEND",
          message: "\(factor) is an authenticator app's factor: submit its code"), &fx)
    }
    step.factor = factor
    step.sendingCode = true
    step.request = send(
      .startSecondFactorSignIn(
        pendingCredential: step.challenge.pendingCredential, factor: factor,
        appVerification: appVerification), &fx)
    phase = .secondFactor(step)
  }

  /// Finish the half-done sign-in with a factor's code.
  mutating func submitSecondFactorCode(_ factor: String, code: String, fx: inout [Effect]) {
    guard case .secondFactor(var step) = phase, step.request == nil else { return }
    guard let chosen = step.challenge.factor(factor) else {
      return Self.report(Self.unknownFactor(factor), &fx)
    }
    var sessionInfo: String? = nil
    if chosen.kind == .phone {
      guard let sent = step.codeSent, sent.factor == factor else {
        return Self.report(
          AuthError(
            code: "SECOND_FACTOR_CODE_NOT_SENT",
            message: "no code was texted for \(factor): send one first"), &fx)
      }
      sessionInfo = sent.sessionInfo
    }
    step.factor = factor
    step.sendingCode = false
    step.request = send(
      .finalizeSecondFactorSignIn(
        pendingCredential: step.challenge.pendingCredential, factor: factor,
        sessionInfo: sessionInfo, verificationCode: code, displayName: step.displayName), &fx)
    phase = .secondFactor(step)
  }

  static func unknownFactor(_ factor: String) -> AuthError {
    AuthError(
      code: "UNKNOWN_SECOND_FACTOR", message: "\(factor) is not one of the challenge's factors")
  }

  /// Sign in with, or link, a provider: the new-user, upgrade and link cases start here.
  mutating func providerTapped(_ provider: ProviderID, link: Bool, fx: inout [Effect]) {
    guard case .resting = phase else { return }  // A flow is already under way.
    if guestWaitsForAccount, !link {
      // The account the guest's upgrade met, signed in to the way it has: a migration's
      // sign-in (its consent step, then `signInWithIdp` without `linkTo`), asked once.
      let r = send(.authorize(provider: provider, intent: .signIn, loginHint: nil), &fx)
      phase = .migrating(
        Migration(
          choice: .merge, request: r, credential: nil, provider: provider, reauthorized: true))
      return
    }
    let purpose: ProviderPurpose
    switch (user?.session.anonymous, link) {
    case (nil, false): purpose = .signIn
    case (true?, _): purpose = .upgrade  // Either spelling upgrades an anonymous user.
    case (false?, true): purpose = .link
    case (nil, true), (false?, false): return  // Nothing to link to, or already signed in.
    }
    let intent: AuthorizationIntent = user == nil ? .signIn : .link
    let r = send(.authorize(provider: provider, intent: intent, loginHint: nil), &fx)
    phase = .providerFlow(
      ProviderFlow(provider: provider, purpose: purpose, request: r, credential: nil))
  }

  /// Reauthenticate a permanent user, resuming the operation that waits for it, if any.
  mutating func reauthenticateTapped(_ chosen: ProviderID?, fx: inout [Effect]) {
    guard let session = user?.session else { return }
    let resume: SensitiveOperation?
    switch phase {
    case .resting:
      guard !session.anonymous else { return }  // An anonymous user has nothing to prove.
      resume = nil
    case .reauthenticationRequired(let op): resume = op
    case .starting, .restoring, .signingInAnonymously, .providerFlow, .migrationRequired,
      .migrating, .deletingAccount, .unlinkingProvider, .emailFlow, .accountFlow, .secondFactor,
      .accountExists, .totpEnrollment, .phoneEnrollment, .phoneSignIn:
      return  // Busy: the tap is stale.
    }
    guard let provider = chosen ?? policy.providers.reauthenticationProvider(for: session) else {
      return
    }
    let r = send(
      .authorize(provider: provider, intent: .reauthenticate, loginHint: session.email), &fx)
    phase = .providerFlow(
      ProviderFlow(
        provider: provider, purpose: .reauthenticate(resume: resume), request: r, credential: nil))
  }

  /// A password or email change asked for: for a signed-in account with an email, at rest.
  mutating func change(_ operation: SensitiveOperation, fx: inout [Effect]) {
    guard case .resting = phase, let session = user?.session, !session.anonymous else { return }
    guard session.email != nil else {
      return Self.report(
        AuthError(code: "MISSING_EMAIL", message: "this account has no email to sign in with"),
        &fx)
    }
    sendChange(operation, token: session.idToken, fx: &fx)
  }

  /// Sends a password or email change with the session's ID token `token`.
  mutating func sendChange(_ operation: SensitiveOperation, token: String, fx: inout [Effect]) {
    let r: RequestID
    let kind: AccountFlow.Kind
    switch operation {
    case .changePassword(let password):
      r = send(.updatePassword(idToken: token, newPassword: password), &fx)
      kind = .changePassword
    case .changeEmail(let email):
      r = send(.sendEmailChangeVerification(idToken: token, newEmail: email), &fx)
      kind = .changeEmail
    case .enrollTotp:
      r = send(.startTotpEnrollment(idToken: token), &fx)
      kind = .startTotpEnrollment
    case .enrollPhone(let number, let proof):
      r = send(
        .startPhoneEnrollment(idToken: token, phoneNumber: number, appVerification: proof), &fx)
      kind = .startPhoneEnrollment
    case .withdrawSecondFactor(let factor):
      r = send(.withdrawSecondFactor(idToken: token, factor: factor), &fx)
      kind = .withdrawSecondFactor
    case .deleteAccount, .link, .unlink: return
    }
    phase = .accountFlow(AccountFlow(kind: kind, request: r, operation: operation))
  }

  /// Reauthenticate with the account's email and `password`, resuming the operation that waits
  /// for it, if any.
  mutating func reauthenticateWithPassword(_ password: String, fx: inout [Effect]) {
    guard let session = user?.session, !session.anonymous else { return }
    let resume: SensitiveOperation?
    switch phase {
    case .resting: resume = nil
    case .reauthenticationRequired(let op): resume = op
    case .starting, .restoring, .signingInAnonymously, .providerFlow, .migrationRequired,
      .migrating, .deletingAccount, .unlinkingProvider, .emailFlow, .accountFlow, .secondFactor,
      .accountExists, .totpEnrollment, .phoneEnrollment, .phoneSignIn:
      return  // Busy: the tap is stale.
    }
    guard let email = session.email else {
      return Self.report(
        AuthError(code: "MISSING_EMAIL", message: "this account has no email to sign in with"),
        &fx)
    }
    let r = send(.signInWithPassword(email: email, password: password), &fx)
    phase = .emailFlow(EmailFlow(kind: .reauthenticate, request: r, email: email, resume: resume))
  }

  /// Starts the sign-in to the existing account, or stays anonymous.
  mutating func decideMigration(_ choice: MigrationChoice, proof: OwnerProof, fx: inout [Effect]) {
    switch (choice, proof) {
    case (.stayAnonymous, _):
      phase = .resting
    case (.merge, .phoneNumber(let p)), (.switchWithoutData, .phoneNumber(let p)):
      // The number's owner signs in with Firebase's proof; no provider to ask again.
      let r = send(.signInWithTemporaryProof(p), &fx)
      phase = .migrating(
        Migration(choice: choice, request: r, proof: proof, provider: proof.provider))
    case (.merge, .credential(let credential)), (.switchWithoutData, .credential(let credential)):
      // The anonymous account is kept until this sign-in succeeds.
      let provider = credential.provider
      if !credential.hasToken, policy.providers[provider].afterLinkConflict == .retryThenReauthorize
      {
        // The conflict answer carries nothing to sign in with: ask the provider again.
        let r = send(.authorize(provider: provider, intent: .signIn, loginHint: nil), &fx)
        phase = .migrating(
          Migration(
            choice: choice, request: r, credential: nil, provider: provider, reauthorized: true))
        return
      }
      let r = send(.signInWithIdp(credential: credential, linkTo: nil), &fx)
      phase = .migrating(
        Migration(choice: choice, request: r, credential: credential, provider: provider))
    }
  }

  mutating func signOutTapped(discardAnonymousData: Bool, fx: inout [Effect]) {
    switch phase {
    case .starting, .restoring:
      return  // Nothing to sign out of yet.
    case .resting, .signingInAnonymously, .providerFlow, .migrationRequired, .migrating,
      .reauthenticationRequired, .deletingAccount, .unlinkingProvider, .emailFlow,
      .accountFlow, .secondFactor, .accountExists, .totpEnrollment, .phoneEnrollment, .phoneSignIn:
      guard let user else {
        phase = .resting  // A sign-in in flight: abandon it; its result will be stale.
        return
      }
      if user.session.anonymous && !discardAnonymousData {
        Self.report(.discardConsentRequired, &fx)
        return
      }
      signOut(notification: nil, fx: &fx)
    }
  }

  mutating func cancelTapped(fx: inout [Effect]) {
    switch phase {
    case .emailFlow(let flow) where flow.kind == .reauthenticate:
      phase = flow.resume.map { .reauthenticationRequired(operation: $0) } ?? .resting
    case .signingInAnonymously, .emailFlow, .migrationRequired, .migrating,
      .reauthenticationRequired:
      // Back to rest: signed out, or the user the flow started from (the anonymous user keeps
      // their account in a migration).
      phase = .resting
    case .providerFlow(let flow):
      phase = Self.origin(of: flow.purpose)
    case .secondFactor(let step):
      // At any step, a request in flight included: its answer will be stale, and the pending
      // credential is dropped with the step (a deletion waiting for it stops, its record gone).
      if case .deleteAccount = step.resume { return abortDeletion(nil, fx: &fx) }
      phase = step.resume.origin
    case .accountExists:
      // The provider's credential is not linked: the user before (nobody, or the guest) stays.
      phase = .resting
    case .totpEnrollment(let e):
      // The secret is dropped; a code already sent cannot be taken back.
      if e.request == nil { phase = .resting }
    case .phoneEnrollment(let e):
      // The enrolment session is dropped; a code already sent cannot be taken back.
      if e.request == nil { phase = .resting }
    case .phoneSignIn(let f):
      // Back to the user before, while no code is being checked (a text on its way changes
      // nothing: its answer will be stale); a code being checked cannot be taken back.
      if f.request == nil || f.sendingCode { phase = .resting }
    case .deletingAccount(let d):
      // Only while the consent step is up: nothing has been sent that could not be taken back.
      if case .authorizing = d.step { abortDeletion(nil, fx: &fx) }
    case .starting, .restoring, .resting, .unlinkingProvider, .accountFlow:
      return  // Nothing to cancel (a request already sent cannot be taken back).
    }
  }

  /// Remove a provider from a permanent account, never its last way to sign in.
  mutating func unlinkTapped(_ provider: ProviderID, fx: inout [Effect]) {
    guard case .resting = phase, let session = user?.session, !session.anonymous else { return }
    guard session.providers.contains(provider) else {
      return Self.report(
        AuthError(
          code: "PROVIDER_NOT_LINKED", message: "\(provider) is not linked to this account"),
        &fx)
    }
    guard session.providers.contains(where: { $0 != provider }) else {
      return Self.report(
        AuthError(
          code: "LAST_SIGN_IN_METHOD",
          message: "\(provider) is the only way to sign in to this account: link another first"),
        &fx)
    }
    let r = send(.unlinkProvider(provider: provider, idToken: session.idToken), &fx)
    phase = .unlinkingProvider(Unlink(provider: provider, request: r))
  }

  /// Where a provider flow returns to when it ends without a new session.
  static func origin(of purpose: ProviderPurpose) -> Phase {
    switch purpose {
    case .signIn, .upgrade, .link, .reauthenticate(nil): .resting
    case .reauthenticate(let resume?): .reauthenticationRequired(operation: resume)
    }
  }
}
