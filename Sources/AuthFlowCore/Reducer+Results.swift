// Answers: what came back for a request, typed by the request's kind. Each kind is dispatched
// to the one place that awaits a request of that kind with that id; an answer nobody awaits is
// stale (cancelled, replaced or signed out) and changes nothing. Each handler switches over its
// own request's outcomes only.

extension AuthMachine {
  mutating func handleAnswer(_ answer: Answer, now: Instant, fx: inout [Effect]) {
    switch answer {
    case .loadSession(let id, let a):
      guard case .restoring(let restore) = phase, restore.retryAt == nil, restore.request == id
      else { return }
      restored(a, waiters: restore.waiters, now: now, fx: &fx)
    case .signUpAnonymously(let id, let a):
      guard case .signingInAnonymously(let r) = phase, r == id else { return }
      signedIn(a.result, now: now, fx: &fx)
    case .signUpWithPassword(let id, let a):
      guard case .emailFlow(let flow) = phase, flow.request == id, flow.kind == .createAccount
      else { return }
      signedIn(a.result, now: now, fx: &fx)
    case .signInWithPassword(let id, let a):
      guard case .emailFlow(let flow) = phase, flow.request == id else { return }
      let resume: SecondFactorResume
      switch flow.kind {
      // A guest's sign-in to the account their upgrade met is a migration's: the guest stays
      // until it succeeds, then their data moves to the account.
      case .signIn: resume = guestWaitsForAccount ? .migrate(choice: .merge) : .signIn
      case .reauthenticate: resume = .reauthenticate(resume: flow.resume)
      case .createAccount, .passwordReset, .sendSignInLink, .linkSignIn: return
      }
      switch a {
      case .signedIn(let session): signInFinished(.success(session), resume, now: now, fx: &fx)
      case .requestFailed(let error): signInFinished(.failure(error), resume, now: now, fx: &fx)
      case .secondFactorRequired(let challenge):
        enterSecondFactor(challenge, resume, fx: &fx)
      }
    case .startSecondFactorSignIn(let id, let a):
      guard case .secondFactor(var step) = phase, step.request == id, step.sendingCode,
        let factor = step.factor
      else { return }
      step.request = nil
      step.factor = nil
      step.sendingCode = false
      switch a {
      case .secondFactorCodeSent(let info):
        step.codeSent = SentCode(factor: factor, sessionInfo: info)
        phase = .secondFactor(step)
      case .requestFailed(let error):
        secondFactorFailed(error, step: step, fx: &fx)
      }
    case .finalizeSecondFactorSignIn(let id, let a):
      guard case .secondFactor(var step) = phase, step.request == id, !step.sendingCode
      else { return }
      step.request = nil
      step.factor = nil
      switch a {
      case .signedIn(let session): signInFinished(.success(session), step.resume, now: now, fx: &fx)
      case .requestFailed(let error): secondFactorFailed(error, step: step, fx: &fx)
      }
    case .sendPasswordReset(let id, let a):
      guard case .emailFlow(let flow) = phase, flow.request == id, flow.kind == .passwordReset
      else { return }
      switch a {
      case .passwordResetSent:
        phase = .resting
        fx.append(.notify(notification: .passwordResetSent(email: flow.email)))
      case .requestFailed(let error):
        fail(error, origin: .resting, sensitive: nil, fx: &fx)
      }
    case .sendSignInLink(let id, let a):
      guard case .emailFlow(let flow) = phase, flow.request == id, flow.kind == .sendSignInLink
      else { return }
      switch a {
      case .signInLinkSent:
        phase = .resting
        emailLinkAddress = flow.email
        fx.append(.notify(notification: .signInLinkSent(email: flow.email)))
      case .requestFailed(let error):
        // The request carries no token of the session's: no answer to it is a verdict on it.
        phase = .resting
        Self.report(error, &fx)
      }
    case .signInWithEmailLink(let id, let a):
      guard case .emailFlow(let flow) = phase, flow.request == id, flow.kind == .linkSignIn
      else { return }
      switch a {
      case .signedIn(let session): signInFinished(.success(session), .signIn, now: now, fx: &fx)
      case .requestFailed(let error): signInFinished(.failure(error), .signIn, now: now, fx: &fx)
      case .secondFactorRequired(let challenge):
        // A guest's link upgrades the guest's own account: Firebase asks no second factor there.
        guard user == nil else {
          phase = .resting
          return Self.report(Self.secondFactorNotHere, &fx)
        }
        enterSecondFactor(challenge, .signIn, fx: &fx)
      }
    case .authorize(let id, let a):
      switch phase {
      case .providerFlow(let flow) where flow.request == id && flow.credential == nil:
        providerAnswered(a, flow: flow, fx: &fx)
      case .migrating(let m) where m.request == id && m.proof == nil:
        migrationAuthorized(a, migration: m, fx: &fx)
      case .deletingAccount(let d) where d.request == id:
        guard case .authorizing(let provider) = d.step else { return }
        deletionAuthorized(a, provider: provider, fx: &fx)
      case .starting, .restoring, .resting, .signingInAnonymously, .providerFlow,
        .migrationRequired, .migrating, .reauthenticationRequired, .deletingAccount,
        .unlinkingProvider, .emailFlow, .accountFlow, .secondFactor, .accountExists,
        .totpEnrollment, .phoneEnrollment, .phoneSignIn:
        return
      }
    case .signInWithIdp(let id, let a):
      switch phase {
      case .providerFlow(let flow) where flow.request == id:
        guard let credential = flow.credential else { return }
        idpAnswered(a, flow: flow, credential: credential, now: now, fx: &fx)
      case .migrating(let m) where m.request == id && m.credential != nil:
        migrationAnswered(a, migration: m, now: now, fx: &fx)
      case .deletingAccount(let d) where d.request == id:
        guard case .reauthenticating(let credential) = d.step else { return }
        deletionReauthenticated(a, credential: credential, now: now, fx: &fx)
      case .starting, .restoring, .resting, .signingInAnonymously, .providerFlow,
        .migrationRequired, .migrating, .reauthenticationRequired, .deletingAccount,
        .unlinkingProvider, .emailFlow, .accountFlow, .secondFactor, .accountExists,
        .totpEnrollment, .phoneEnrollment, .phoneSignIn:
        return
      }
    case .refreshToken(let id, let a):
      if let r = user?.refreshRequest, r == id { return refreshAnswered(a, now: now, fx: &fx) }
      if let r = user?.cleanupRequest, r == id, user?.cleanupRefreshing == true {
        return cleanupRefreshed(a, now: now, fx: &fx)
      }
    case .deleteAccount(let id, let a):
      if let r = user?.cleanupRequest, r == id, user?.cleanupRefreshing == false {
        return cleanupDeleted(a, fx: &fx)
      }
      guard case .deletingAccount(let d) = phase, d.request == id, case .deleting = d.step
      else { return }
      deleted(a, fx: &fx)
    case .revokeToken(let id, let a):
      guard case .deletingAccount(let d) = phase, d.request == id,
        case .revoking(let provider) = d.step
      else { return }
      revocationAnswered(a, provider: provider, now: now, fx: &fx)
    case .unlinkProvider(let id, let a):
      guard case .unlinkingProvider(let unlink) = phase, unlink.request == id else { return }
      unlinkAnswered(a, unlink: unlink, fx: &fx)
    case .lookupAccount(let id, let a):
      guard case .accountFlow(let f) = phase, f.request == id, f.kind == .reload else { return }
      reloaded(a, fx: &fx)
    case .sendVerificationEmail(let id, let a):
      guard case .accountFlow(let f) = phase, f.request == id, f.kind == .sendVerificationEmail
      else { return }
      switch a {
      case .verificationEmailSent:
        phase = .resting
        fx.append(.notify(notification: .verificationEmailSent(email: user?.session.email ?? "")))
      case .requestFailed(let error):
        fail(error, origin: .resting, sensitive: nil, fx: &fx)
      }
    case .applyActionCode(let id, let a):
      guard case .accountFlow(let f) = phase, f.request == id, f.kind == .applyActionCode
      else { return }
      actionCodeApplied(a, fx: &fx)
    case .checkActionCode(let id, let a):
      guard case .accountFlow(let f) = phase, f.request == id, f.kind == .checkActionCode
      else { return }
      // Like every code, it is not the session: a refusal is reported, nothing else.
      phase = .resting
      switch a {
      case .actionCodeChecked(let operation, let email):
        fx.append(.notify(notification: .actionCodeChecked(operation: operation, email: email)))
      case .requestFailed(let error): Self.report(error, &fx)
      }
    case .confirmPasswordReset(let id, let a):
      guard case .accountFlow(let f) = phase, f.request == id, f.kind == .confirmPasswordReset
      else { return }
      // Firebase ends the account's sessions; a session of it here finds out at its next
      // refresh (sessionExpired), as it would after a reset from another device.
      phase = .resting
      switch a {
      case .passwordResetConfirmed(let email):
        fx.append(.notify(notification: .passwordResetConfirmed(email: email)))
      case .requestFailed(let error): Self.report(error, &fx)
      }
    case .signInWithCustomToken(let id, let a):
      guard case .accountFlow(let f) = phase, f.request == id, f.kind == .customTokenSignIn
      else { return }
      customTokenAnswered(a, now: now, fx: &fx)
    case .updatePassword(let id, let a):
      guard case .accountFlow(let f) = phase, f.request == id, f.kind == .changePassword
      else { return }
      passwordChanged(a, newPassword: f.operation?.newPassword ?? "", now: now, fx: &fx)
    case .sendEmailChangeVerification(let id, let a):
      guard case .accountFlow(let f) = phase, f.request == id, f.kind == .changeEmail else {
        return
      }
      emailChangeAnswered(a, newEmail: f.operation?.newEmail ?? "", fx: &fx)
    case .updateProfile(let id, let a):
      guard case .accountFlow(let f) = phase, f.request == id, f.kind == .updateProfile else {
        return
      }
      profileUpdated(a, fx: &fx)
    case .startTotpEnrollment(let id, let a):
      guard case .accountFlow(let f) = phase, f.request == id, f.kind == .startTotpEnrollment
      else { return }
      switch a {
      case .totpSecretIssued(let secret): phase = .totpEnrollment(TotpEnrollment(secret: secret))
      case .requestFailed(let error): fail(error, origin: .resting, sensitive: .enrollTotp, fx: &fx)
      }
    case .withdrawSecondFactor(let id, let a):
      guard case .accountFlow(let f) = phase, f.request == id, f.kind == .withdrawSecondFactor,
        let operation = f.operation
      else { return }
      secondFactorWithdrawn(a, operation: operation, now: now, fx: &fx)
    case .finalizeTotpEnrollment(let id, let a):
      guard case .totpEnrollment(var enrollment) = phase, enrollment.request == id else { return }
      totpEnrollmentAnswered(a, enrollment: &enrollment, now: now, fx: &fx)
    case .sendVerificationCode(let id, let a):
      guard case .phoneSignIn(var flow) = phase, flow.request == id, flow.sendingCode else {
        return
      }
      flow.request = nil
      flow.sendingCode = false
      switch a {
      case .verificationCodeSent(let info):
        flow.sessionInfo = info
        phase = .phoneSignIn(flow)
      case .requestFailed(let error):
        // A failed new text leaves the code texted before, if any, usable.
        fail(
          error, origin: flow.sessionInfo == nil ? .resting : .phoneSignIn(flow), sensitive: nil,
          fx: &fx)
      }
    case .signInWithPhoneNumber(let id, let a):
      guard case .phoneSignIn(var flow) = phase, flow.request == id, !flow.sendingCode else {
        return
      }
      flow.request = nil
      switch a {
      case .signedIn(let session): signedIn(.success(session), now: now, fx: &fx)
      case .phoneNumberInUse(let number, let proof):
        // The code is spent either way. A guest may sign in to the number's owner instead, as
        // after a provider's conflict; anyone else is told.
        guard let user, user.session.anonymous else {
          return fail(
            user == nil ? .unexpectedResponse : .phoneNumberExists, origin: .resting,
            sensitive: nil, fx: &fx)
        }
        guestConflict(
          .phoneNumber(PhoneProof(phoneNumber: number, temporaryProof: proof)), email: nil,
          refused: .phoneNumberExists, origin: .resting, fx: &fx)
      case .requestFailed(let error):
        // A wrong code keeps the texted session for another; one that ended it (expired, used)
        // asks for a new text.
        let ended = Self.phoneCodeEnded.contains(error.code)
        fail(error, origin: ended ? .resting : .phoneSignIn(flow), sensitive: nil, fx: &fx)
      }
    case .startPhoneEnrollment(let id, let a):
      guard case .accountFlow(let f) = phase, f.request == id, f.kind == .startPhoneEnrollment,
        let operation = f.operation
      else { return }
      phoneEnrollmentStarted(a, operation: operation, fx: &fx)
    case .finalizePhoneEnrollment(let id, let a):
      guard case .phoneEnrollment(var enrollment) = phase, enrollment.request == id else { return }
      phoneEnrollmentAnswered(a, enrollment: &enrollment, now: now, fx: &fx)
    case .signInWithTemporaryProof(let id, let a):
      guard case .migrating(let m) = phase, m.request == id, case .phoneNumber? = m.proof else {
        return
      }
      switch a {
      case .signedIn(let owner): migrated(to: owner, choice: m.choice, now: now, fx: &fx)
      case .requestFailed(let error):
        // The proof was refused (expired, used) or not delivered: the guest stays, with
        // nothing deleted.
        phase = .resting
        Self.report(error, &fx)
      }
    }
  }

  /// What another account's conflict does to a guest, by the app's migration policy: ask, go
  /// ahead with a merge or a switch, or stay the guest and be told (`refused`).
  mutating func guestConflict(
    _ proof: OwnerProof, email: String?, refused: AuthError, origin: Phase, fx: inout [Effect]
  ) {
    switch policy.migration {
    case .ask: phase = .migrationRequired(MigrationOffer(proof: proof, email: email))
    case .merge: decideMigration(.merge, proof: proof, fx: &fx)
    case .switchWithoutData: decideMigration(.switchWithoutData, proof: proof, fx: &fx)
    case .stayAnonymous:
      phase = origin
      Self.report(refused, &fx)
    }
  }

  /// `loadSession` answered.
  mutating func restored(
    _ answer: LoadAnswer, waiters: [TokenRequestID], now: Instant, fx: inout [Effect]
  ) {
    switch answer {
    case .sessionLoaded(let session?):
      begin(session, waiters: waiters, persist: false, now: now, fx: &fx)
      phase = .resting
      if let cleanup = session.pendingCleanup, !cleanup.dataMoved {
        // The app had not moved the data before the relaunch: ask again.
        fx.append(.notify(notification: .migrationReady(from: cleanup.uid, to: session.uid)))
      }
      startCleanupIfDue(now: now, fx: &fx)
      // A deletion the app did not live to finish: finish it.
      resumeDeletion(now: now, fx: &fx)
    case .sessionLoaded(nil):
      phase = .resting
      Self.deliver(.failure(error: .notSignedIn), to: waiters, &fx)
    case .requestFailed(let error):
      if error.kind.isRetryable {
        // Storage not readable yet (a locked keychain): wait and read again; never sign out.
        let at = now + policy.backoffBase
        phase = .restoring(Restore(request: newRequest(), waiters: waiters, retryAt: at))
        fx.append(.scheduleTimer(timer: .restoreRetry, at: at))
        return
      }
      // Unreadable for good: start clean rather than crash or loop.
      phase = .resting
      fx.append(.clearSession)
      Self.deliver(.failure(error: .notSignedIn), to: waiters, &fx)
      Self.report(error, &fx)
    }
  }

  /// A sign-in that may have needed a second factor finished (with its first factor, or with
  /// the second): a sign-in begins the session, a reauthentication renews the same user's and
  /// resumes what waited for it.
  mutating func signInFinished(
    _ result: Result<Session, AuthError>, _ resume: SecondFactorResume, now: Instant,
    fx: inout [Effect]
  ) {
    let session: Session
    switch result {
    case .success(let s): session = s
    case .failure(let error): return signInFailed(error, resume, fx: &fx)
    }
    switch resume {
    case .signIn: signedIn(.success(session), now: now, fx: &fx)
    case .reauthenticate(let operation):
      reauthenticated(.success(session), resume: operation, now: now, fx: &fx)
    case .deleteAccount(let credential):
      deletionProven(session, credential: credential, now: now, fx: &fx)
    case .migrate(let choice): migrated(to: session, choice: choice, now: now, fx: &fx)
    }
  }

  /// A sign-in that may have needed a second factor failed for good (its first factor, or a
  /// challenge that ended): back to where the flow started, with the error.
  mutating func signInFailed(_ error: AuthError, _ resume: SecondFactorResume, fx: inout [Effect]) {
    switch resume {
    case .signIn, .reauthenticate:
      fail(error, origin: resume.origin, sensitive: nil, fx: &fx)
    case .deleteAccount:
      // The deletion stops, visibly (a dead session signs out); nothing was revoked.
      if error.kind == .sessionDead {
        return signOut(
          waiterError: error, notification: .signedOutAfterError(error: error), fx: &fx)
      }
      abortDeletion(error, fx: &fx)
    case .migrate:
      // About the owner's account: the anonymous user stays signed in, nothing deleted.
      phase = .resting
      Self.report(error, &fx)
    }
  }

  /// A guest's upgrade found that another account has the provider's email: the guest stays
  /// signed in while the user signs in to that account, which then gets the guest's data and
  /// the credential.
  mutating func guestMeetsAccount(
    _ credential: IdPCredential, email: String?, providers: [ProviderID]
  ) {
    pendingLink = nil
    phase = .accountExists(
      PendingLink(
        credential: credential, email: email, providers: providers, guest: user?.session.uid))
  }

  /// `text` when it reads as an email address (one `@`, something either side, no spaces).
  static func address(_ text: String?) -> String? {
    guard let text, !text.contains(" ") else { return nil }
    let parts = text.split(separator: "@", omittingEmptySubsequences: false)
    return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty ? text : nil
  }

  /// Whether the signed-in guest is waiting for a sign-in to the account that has their
  /// upgrade's email (the wait left for that sign-in, or the sign-in under way).
  var guestWaitsForAccount: Bool {
    guard let guest = pendingLink?.guest, let session = user?.session else { return false }
    return session.anonymous && session.uid == guest
  }

  /// After each event, while a provider credential waits to be linked (`pendingLink`): a flow
  /// that ended without a session returns to `accountExists`; a session this machine signed in
  /// to the account with the credential's email gets the link at once; any other session (
  /// another process's, another account's) drops the credential, the latter visibly.
  mutating func settlePendingLink(after event: Event, now: Instant, fx: inout [Effect]) {
    guard let link = pendingLink else { return }
    if guestWaitsForAccount {
      // The guest still waits: a flow under way goes on; one that ended without the account
      // comes back to the wait, the guest as before.
      if case .resting = phase {
        pendingLink = nil
        phase = .accountExists(link)
      }
      return
    }
    if link.guest != nil, user == nil {
      pendingLink = nil  // The guest signed out meanwhile: nothing is linked to nobody.
      return
    }
    guard let session = user?.session else {
      if case .resting = phase {
        pendingLink = nil
        phase = .accountExists(link)
      }
      return
    }
    pendingLink = nil
    if case .storeChanged = event { return }  // Another process's sign-in, not this flow's.
    guard case .resting = phase else { return }
    if let email = link.email, session.email?.lowercased() != email.lowercased() {
      return Self.report(
        AuthError(
          code: "ACCOUNT_MISMATCH",
          message: "signed in to another account than \(email): \(link.credential.provider) "
            + "was not linked"), &fx)
    }
    resume(.link(credential: link.credential), now: now, fx: &fx)
  }

  /// A second factor where AuthFlow does not finish one (a deletion's reauthentication, a link).
  static let secondFactorNotHere = AuthError(
    code: "SECOND_FACTOR_REQUIRED",
    message: "the account has second factors: reauthenticate first, then try again")

  /// Codes that end a second-factor challenge: the pending credential is expired, unknown or
  /// used up, or the factor is gone; only the first factor again can start a new one.
  static let challengeEnded: Set<String> = [
    "INVALID_MFA_PENDING_CREDENTIAL", "TOTP_CHALLENGE_TIMEOUT", "INVALID_PENDING_TOKEN",
    "INVALID_MFA_ENROLLMENT_ID", "MFA_ENROLLMENT_NOT_FOUND", "MISSING_CREDENTIAL",
    "MISSING_MFA_PENDING_CREDENTIAL",
  ]

  /// Codes that end a texted code (not the challenge): send a new one.
  static let codeEnded: Set<String> = ["SESSION_EXPIRED", "INVALID_SESSION_INFO"]

  /// A second-factor request failed. A wrong code, a network failure or a throttle leave the
  /// challenge as it was, to try again; an expired texted code must be sent again; a challenge
  /// that ended (or an account gone) returns to where the flow started, with the error.
  mutating func secondFactorFailed(_ error: AuthError, step: SecondFactorStep, fx: inout [Effect]) {
    if Self.challengeEnded.contains(error.code) || error.kind == .sessionDead {
      return signInFailed(error, step.resume, fx: &fx)
    }
    var next = step
    if Self.codeEnded.contains(error.code) { next.codeSent = nil }
    phase = .secondFactor(next)
    Self.report(error, &fx)
  }

  /// A sign-in (anonymous, email, provider) or a link answered; a link must keep the uid.
  mutating func signedIn(_ result: Result<Session, AuthError>, now: Instant, fx: inout [Effect]) {
    let session: Session
    switch result {
    case .success(let s): session = s
    case .failure(let error): return fail(error, origin: .resting, sensitive: nil, fx: &fx)
    }
    phase = .resting
    guard let current = user?.session.uid else {
      return begin(session, waiters: [], persist: true, now: now, fx: &fx)
    }
    guard session.uid == current else {
      // A link that changes the uid would drop the user's data: refuse it.
      return Self.report(.unexpectedResponse, &fx)
    }
    renewSession(with: session, now: now, fx: &fx)
  }

  /// The provider's consent step answered.
  mutating func providerAnswered(_ answer: AuthorizeAnswer, flow: ProviderFlow, fx: inout [Effect])
  {
    let origin = Self.origin(of: flow.purpose)
    switch answer {
    case .providerSucceeded(let credential) where credential.provider == flow.provider:
      var next = flow
      var linkTo: String? = nil
      if flow.purpose == .upgrade || flow.purpose == .link { linkTo = user?.session.idToken }
      next.request = send(.signInWithIdp(credential: credential, linkTo: linkTo), &fx)
      next.credential = credential
      phase = .providerFlow(next)
    case .providerSucceeded:
      // A credential for another provider is a broken interpreter.
      phase = origin
      Self.report(.unexpectedResponse, &fx)
    case .providerCancelled:
      phase = origin
    case .providerFailed(let error):
      phase = origin
      Self.report(error, &fx)
    }
  }

  /// `signInWithIdp` answered.
  mutating func idpAnswered(
    _ answer: IdPAnswer, flow: ProviderFlow, credential: IdPCredential, now: Instant,
    fx: inout [Effect]
  ) {
    let origin = Self.origin(of: flow.purpose)
    switch answer {
    case .signedIn(let session):
      guard case .reauthenticate(let resume) = flow.purpose else {
        return signedIn(.success(session), now: now, fx: &fx)
      }
      guard let uid = user?.session.uid, session.uid == uid else {
        // Reauthentication never switches users: the original session stays.
        phase = origin
        return fx.append(.notify(notification: .userMismatch))
      }
      renewSession(with: session, now: now, fx: &fx)
      phase = .resting
      if let resume { self.resume(resume, now: now, fx: &fx) }
    case .secondFactorRequired(let challenge):
      switch flow.purpose {
      case .signIn: enterSecondFactor(challenge, .signIn, name: credential.fullName, fx: &fx)
      case .reauthenticate(let resume):
        enterSecondFactor(
          challenge, .reauthenticate(resume: resume), name: credential.fullName, fx: &fx)
      case .upgrade, .link:
        // A link is made for a signed-in user: Firebase asks no second factor there.
        phase = origin
        Self.report(Self.secondFactorNotHere, &fx)
      }
    case .accountExistsWithDifferentCredential(let email, let providers):
      switch flow.purpose {
      case .signIn:
        // Sign in the way the account has, then the credential is linked to it.
        pendingLink = nil
        phase = .accountExists(
          PendingLink(credential: credential, email: email, providers: providers))
      case .upgrade, .link, .reauthenticate:
        // Only a sign-in looks for an account by email (a link is answered `EMAIL_EXISTS`,
        // below); anything else is reported, the user as before.
        phase = origin
        Self.report(AuthError(code: "NEED_CONFIRMATION", message: email), &fx)
      }
    case .requestFailed(let error) where flow.purpose == .upgrade && error.code == "EMAIL_EXISTS":
      // The provider's email is another account's: the guest waits for that account's sign-in.
      // The answer's detail text, when it is an address, is that email.
      guestMeetsAccount(
        credential, email: Self.address(error.message) ?? credential.email, providers: [])
    case .credentialAlreadyInUse(let conflict, let email):
      guard flow.purpose == .upgrade else {
        // A permanent user's provider account belongs to someone else. Nothing changes.
        phase = origin
        return Self.report(.credentialAlreadyInUse, &fx)
      }
      guestConflict(
        .credential(conflict), email: email, refused: .credentialAlreadyInUse, origin: origin,
        fx: &fx)
    case .requestFailed(let error):
      let sensitive: SensitiveOperation? =
        flow.purpose == .link ? .link(credential: credential) : nil
      fail(error, origin: origin, sensitive: sensitive, fx: &fx)
    }
  }

  /// Runs the operation that waited for a successful reauthentication.
  mutating func resume(_ operation: SensitiveOperation, now: Instant, fx: inout [Effect]) {
    guard let token = user?.session.idToken else { return }
    switch operation {
    case .deleteAccount:
      startDeletion(now: now, fx: &fx)
    case .link(let credential):
      let provider = credential.provider
      if policy.providers[provider].nonce == .hashed || credential.rawNonce != nil {
        // That credential was sent once with its nonce and can never be sent again: ask anew.
        let r = send(.authorize(provider: provider, intent: .link, loginHint: nil), &fx)
        phase = .providerFlow(
          ProviderFlow(provider: provider, purpose: .link, request: r, credential: nil))
        return
      }
      let r = send(.signInWithIdp(credential: credential, linkTo: token), &fx)
      phase = .providerFlow(
        ProviderFlow(provider: provider, purpose: .link, request: r, credential: credential))
    case .unlink(let provider):
      let r = send(.unlinkProvider(provider: provider, idToken: token), &fx)
      phase = .unlinkingProvider(Unlink(provider: provider, request: r))
    case .changePassword, .changeEmail, .enrollTotp, .enrollPhone, .withdrawSecondFactor:
      sendChange(operation, token: token, fx: &fx)
    }
  }

  /// Codes with which Firebase ends a texted code's session (an expired one, or a right code
  /// spent on a number that cannot be added): text a new one.
  static let phoneCodeEnded: Set<String> = [
    "SESSION_EXPIRED", "INVALID_SESSION_INFO", "MISSING_SESSION_INFO",
    "PHONE_NUMBER_EXISTS", "UNSUPPORTED_FIRST_FACTOR",
  ]

  /// Codes with which a provider refuses a retry of a conflict's answer: ask it again instead.
  static let retryRefusals: Set<String> = [
    "MISSING_OR_INVALID_NONCE", "INVALID_IDP_RESPONSE", "INVALID_PENDING_TOKEN",
  ]

  /// The provider's consent step, asked again during a migration for a credential to sign in to
  /// the owner with.
  mutating func migrationAuthorized(
    _ answer: AuthorizeAnswer, migration m: Migration, fx: inout [Effect]
  ) {
    switch answer {
    case .providerSucceeded(let c) where c.provider == m.provider:
      let r = send(.signInWithIdp(credential: c, linkTo: nil), &fx)
      phase = .migrating(
        Migration(
          choice: m.choice, request: r, credential: c, provider: m.provider, reauthorized: true))
    case .providerSucceeded:
      phase = .resting  // Back to anonymous; nothing deleted.
      Self.report(.unexpectedResponse, &fx)
    case .providerCancelled:
      phase = .resting
    case .providerFailed(let error):
      phase = .resting
      Self.report(error, &fx)
    }
  }

  /// The sign-in to the owner of the conflicting account answered.
  mutating func migrationAnswered(
    _ answer: IdPAnswer, migration m: Migration, now: Instant, fx: inout [Effect]
  ) {
    let error: AuthError
    switch answer {
    case .signedIn(let session):
      return migrated(to: session, choice: m.choice, now: now, fx: &fx)
    case .secondFactorRequired(let challenge):
      // The owner's account has second factors: the anonymous user waits for them.
      return enterSecondFactor(
        challenge, .migrate(choice: m.choice), name: m.credential?.fullName, fx: &fx)
    case .credentialAlreadyInUse:
      error = .unexpectedResponse  // A sign-in without `linkTo` cannot conflict: a broken answer.
    case .accountExistsWithDifferentCredential(let email, _):
      // The owner has the credential's account: Firebase cannot find another. The guest stays.
      error = AuthError(code: "NEED_CONFIRMATION", message: email)
    case .requestFailed(let e):
      error = e
    }
    if !m.reauthorized, Self.retryRefusals.contains(error.code),
      policy.providers[m.provider].afterLinkConflict == .retryThenReauthorize
    {
      // The retry with the conflict's answer was refused: ask the provider once more.
      let r = send(.authorize(provider: m.provider, intent: .signIn, loginHint: nil), &fx)
      phase = .migrating(
        Migration(
          choice: m.choice, request: r, credential: nil, provider: m.provider, reauthorized: true))
      return
    }
    // Any other failure returns to anonymous with nothing deleted.
    phase = .resting
    Self.report(error, &fx)
  }

  /// Signed in to the owner of the anonymous user's provider account: the owner's session
  /// begins with the anonymous account's cleanup recorded in it.
  mutating func migrated(
    to owner: Session, choice: MigrationChoice, now: Instant, fx: inout [Effect]
  ) {
    guard let anonymous = user, owner.uid != anonymous.session.uid else {
      phase = .resting  // The "owner" is the anonymous user itself: a broken answer.
      return Self.report(.unexpectedResponse, &fx)
    }
    var session = owner
    let old = anonymous.session
    session.pendingCleanup = AnonymousCleanup(
      uid: old.uid, idToken: old.idToken, dataMoved: choice == .switchWithoutData,
      refreshToken: old.refreshToken, expiresAt: old.expiresAt)
    begin(session, waiters: anonymous.tokenWaiters, persist: true, now: now, fx: &fx)
    phase = .resting
    if choice == .merge {
      fx.append(.notify(notification: .migrationReady(from: old.uid, to: session.uid)))
    }
    startCleanupIfDue(now: now, fx: &fx)
  }

  /// A first factor answered with a challenge: wait for the second, holding the flow it
  /// interrupts (a challenge offering no factor is a broken answer).
  mutating func enterSecondFactor(
    _ challenge: SecondFactorChallenge, _ resume: SecondFactorResume, name: String? = nil,
    fx: inout [Effect]
  ) {
    guard !challenge.factors.isEmpty else {
      phase = resume.origin
      return Self.report(.unexpectedResponse, &fx)
    }
    // A provider that gives the name once gave it with this first factor: the finalize sends it.
    phase = .secondFactor(
      SecondFactorStep(challenge: challenge, resume: resume, displayName: name))
  }

  /// A request of the current flow failed.
  mutating func fail(
    _ error: AuthError, origin: Phase, sensitive: SensitiveOperation?, fx: inout [Effect]
  ) {
    guard user != nil else {
      phase = origin
      return Self.report(error, &fx)
    }
    if error.kind == .reauthenticate, let sensitive {
      phase = .reauthenticationRequired(operation: sensitive)
      return
    }
    switch error.kind {
    case .sessionDead:
      signOut(waiterError: error, notification: .signedOutAfterError(error: error), fx: &fx)
    case .invalidIDToken:
      // Refresh once; that refresh decides whether the session is dead.
      phase = origin
      Self.report(error, &fx)
      forceRefreshIfIdle(fx: &fx)
    case .transient, .throttled, .user, .reauthenticate:
      phase = origin
      Self.report(error, &fx)
    }
  }
}

extension SessionAnswer {
  /// The session, or why there is none.
  var result: Result<Session, AuthError> {
    switch self {
    case .signedIn(let s): .success(s)
    case .requestFailed(let e): .failure(e)
    }
  }
}
