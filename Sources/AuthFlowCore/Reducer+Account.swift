// Account deletion as a resumable saga, and removing a provider from an account.
//
// Deletion: for each linked provider whose traits revoke with an authorization code before
// deletion (Apple), ask the provider for a fresh authorization, prove the user again with it
// (`signInWithIdp`), revoke the grant (`revokeToken`); then `deleteAccount`; then clear the
// session and sign out of SDKs (disconnecting those whose traits say so). Each step is recorded
// in the stored session (`pendingDeletion`), so a relaunch finishes the deletion. An account
// with nothing to revoke is deleted with one request, as it always was.

extension AuthMachine {
  /// Providers of the user's account that must be revoked before it is deleted, and are not yet.
  func providersToRevoke() -> [ProviderID] {
    guard let session = user?.session else { return [] }
    let done = session.pendingDeletion?.revoked ?? []
    var out: [ProviderID] = []
    for name in session.providers {
      let id = name
      if policy.providers.contains(id),
        policy.providers[id].revocation == .authorizationCodeBeforeDeletion, !done.contains(id)
      {
        out.append(id)
      }
    }
    return out
  }

  /// Starts (or continues) the deletion with the next step.
  mutating func startDeletion(now: Instant, fx: inout [Effect]) {
    guard let session = user?.session else { return }
    if let provider = providersToRevoke().first {
      if session.pendingDeletion == nil {
        user?.session.pendingDeletion = DeletionRecord()
        persist(&fx)
      }
      let r = send(
        .authorize(provider: provider, intent: .reauthenticate, loginHint: session.email), &fx)
      phase = .deletingAccount(Deletion(request: r, step: .authorizing(provider: provider)))
      return
    }
    if session.pendingDeletion != nil, session.pendingDeletion?.deleting != true {
      // Every revocation is behind: record that only the deletion is left.
      user?.session.pendingDeletion?.deleting = true
      persist(&fx)
    }
    guard let token = user?.session.idToken else { return }
    phase = .deletingAccount(
      Deletion(request: send(.deleteAccount(idToken: token), &fx), step: .deleting))
  }

  /// At launch, a stored session with a deletion under way: finish it.
  mutating func resumeDeletion(now: Instant, fx: inout [Effect]) {
    guard let record = user?.session.pendingDeletion else { return }
    if record.deleting, user?.refreshRequest != nil {
      // The stored token is about to expire and a refresh is under way: delete once it is back.
      phase = .deletingAccount(Deletion(request: nil, step: .waitingForToken))
      return
    }
    startDeletion(now: now, fx: &fx)
  }

  /// Gives up a deletion that has deleted nothing: the user stays signed in, the record goes.
  mutating func abortDeletion(_ error: AuthError?, fx: inout [Effect]) {
    phase = .resting
    // A record at its last step says a delete may have reached the server: a transient failure
    // of a later attempt (a consent step offline) must not forget it.
    let reachedServer = user?.session.pendingDeletion?.deleting == true
    if user?.session.pendingDeletion != nil, !(reachedServer && error?.kind.isRetryable == true) {
      user?.session.pendingDeletion = nil
      persist(&fx)
    }
    if let error { Self.report(error, &fx) }
  }

  /// Records a provider as revoked and goes on.
  mutating func revoked(_ provider: ProviderID, now: Instant, fx: inout [Effect]) {
    var record = user?.session.pendingDeletion ?? DeletionRecord()
    if !record.revoked.contains(provider) { record.revoked.append(provider) }
    user?.session.pendingDeletion = record
    persist(&fx)
    startDeletion(now: now, fx: &fx)
  }

  /// The deletion's consent step answered (for a fresh authorization code).
  mutating func deletionAuthorized(
    _ answer: AuthorizeAnswer, provider: ProviderID, fx: inout [Effect]
  ) {
    switch answer {
    case .providerSucceeded(let c) where c.provider == provider:
      let r = send(.signInWithIdp(credential: c, linkTo: nil), &fx)
      phase = .deletingAccount(Deletion(request: r, step: .reauthenticating(credential: c)))
    case .providerSucceeded:
      abortDeletion(.unexpectedResponse, fx: &fx)
    case .providerCancelled:
      abortDeletion(nil, fx: &fx)
    case .providerFailed(let error):
      abortDeletion(error, fx: &fx)
    }
  }

  /// The deletion's proof of the user (`signInWithIdp` with the fresh credential) answered.
  mutating func deletionReauthenticated(
    _ answer: IdPAnswer, credential: IdPCredential, now: Instant, fx: inout [Effect]
  ) {
    let session: Session
    switch answer {
    case .signedIn(let s): session = s
    case .credentialAlreadyInUse, .accountExistsWithDifferentCredential:
      // A reauthentication of the account's own provider cannot find another account.
      return abortDeletion(.unexpectedResponse, fx: &fx)
    case .secondFactorRequired(let challenge):
      // The account has second factors: the deletion waits for one, then goes on with this
      // credential (its authorization code revokes the grant).
      return enterSecondFactor(
        challenge, .deleteAccount(credential: credential), name: credential.fullName, fx: &fx)
    case .requestFailed(let error):
      if error.kind == .sessionDead {
        return signOut(
          waiterError: error, notification: .signedOutAfterError(error: error), fx: &fx)
      }
      return abortDeletion(error, fx: &fx)
    }
    deletionProven(session, credential: credential, now: now, fx: &fx)
  }

  /// The user proven again for a deletion (by the fresh credential, and a second factor if the
  /// account has one): revoke the grant with the credential's code, then delete.
  mutating func deletionProven(
    _ session: Session, credential: IdPCredential, now: Instant, fx: inout [Effect]
  ) {
    guard session.uid == user?.session.uid else {
      // Another account answered: never delete it, and never switch users.
      abortDeletion(nil, fx: &fx)
      return fx.append(.notify(notification: .userMismatch))
    }
    renewSession(with: session, now: now, fx: &fx)
    guard let code = credential.authorizationCode, let token = user?.session.idToken else {
      // Nothing to revoke with (a consent step that gives no code): delete anyway, and say so.
      Self.report(
        AuthError(
          code: "REVOCATION_FAILED", message: "no authorization code from \(credential.provider)"),
        &fx)
      return revoked(credential.provider, now: now, fx: &fx)
    }
    let r = send(
      .revokeToken(provider: credential.provider, authorizationCode: code, idToken: token), &fx)
    phase = .deletingAccount(Deletion(request: r, step: .revoking(provider: credential.provider)))
  }

  /// The revocation of a provider's grant answered.
  mutating func revocationAnswered(
    _ answer: RevokeAnswer, provider: ProviderID, now: Instant, fx: inout [Effect]
  ) {
    switch answer {
    case .tokenRevoked:
      revoked(provider, now: now, fx: &fx)
    case .requestFailed(let error):
      switch error.kind {
      case .transient, .throttled:
        // Nothing is deleted yet: stop, keep the user signed in; tapping again starts over with
        // a fresh authorization code (a code is single-use and lives five minutes).
        abortDeletion(error, fx: &fx)
      case .sessionDead:
        signOut(waiterError: error, notification: .signedOutAfterError(error: error), fx: &fx)
      case .reauthenticate, .invalidIDToken, .user:
        // Refused for good: the user asked for their account to go, so it goes; say what failed.
        Self.report(AuthError(code: "REVOCATION_FAILED", message: error.description), &fx)
        revoked(provider, now: now, fx: &fx)
      }
    }
  }

  /// `accounts:delete` answered.
  mutating func deleted(_ answer: DeleteAnswer, fx: inout [Effect]) {
    switch answer {
    case .accountDeleted:
      signOut(notification: nil, accountDeleted: true, fx: &fx)
    case .requestFailed(let error):
      // Not deleted. A transient failure keeps the record: the request may have reached the
      // server (after a relaunch it may even have succeeded), so the next launch or tap
      // finishes it. A session-dead answer (USER_NOT_FOUND) signs out at once: writing the
      // session first would store an account that no longer exists. Any other refusal drops
      // the record: the user stays, and must ask again.
      let kind = error.kind
      if !kind.isRetryable, kind != .sessionDead, user?.session.pendingDeletion != nil {
        user?.session.pendingDeletion = nil
        persist(&fx)
      }
      fail(error, origin: .resting, sensitive: .deleteAccount, fx: &fx)
    }
  }

  /// The token came back while a deletion waited for it: delete now.
  mutating func continueDeletionAfterRefresh(fx: inout [Effect]) {
    guard case .deletingAccount(let d) = phase, case .waitingForToken = d.step,
      let token = user?.session.idToken
    else { return }
    phase = .deletingAccount(
      Deletion(request: send(.deleteAccount(idToken: token), &fx), step: .deleting))
  }

  /// `lookupAccount` answered: the server's view of the account replaces the parts of the
  /// session it owns, written once, and only when something changed. A name the server does
  /// not have (Apple's, given once) is kept; a dead session signs out.
  mutating func reloaded(_ answer: LookupAnswer, fx: inout [Effect]) {
    let profile: Profile
    switch answer {
    case .accountReloaded(let p): profile = p
    case .requestFailed(let error):
      return fail(error, origin: .resting, sensitive: nil, fx: &fx)
    }
    phase = .resting
    guard var session = user?.session else { return }
    let before = session
    session.email = profile.email
    session.emailVerified = profile.emailVerified
    session.providers = profile.providers
    session.displayName = profile.displayName ?? session.displayName
    session.photoURL = profile.photoURL
    if let factors = profile.secondFactors { session.secondFactors = factors }
    guard session != before else { return }
    user?.session = session
    persist(&fx)
  }

  /// `updateProfile` answered: the display name and photo URL the server has after the change
  /// replace the session's (a removed one is gone), written once when they changed; nothing else
  /// in the session changes. A dead session signs out; another failure is reported and changes
  /// nothing.
  mutating func profileUpdated(_ answer: ProfileAnswer, fx: inout [Effect]) {
    let profile: Profile
    switch answer {
    case .profileUpdated(let p): profile = p
    case .requestFailed(let error):
      return fail(error, origin: .resting, sensitive: nil, fx: &fx)
    }
    phase = .resting
    guard var session = user?.session else { return }
    let before = session
    session.displayName = profile.displayName
    session.photoURL = profile.photoURL
    guard session != before else { return }
    user?.session = session
    persist(&fx)
  }

  /// `applyActionCode` answered. The code is not the session (the request carries no token, and
  /// the link may be another account's), so no failure of it signs anyone out: it is reported.
  /// A verified email that is the signed-in user's is taken into the session, written once, and
  /// a refresh brings an ID token that says so (`email_verified`).
  mutating func actionCodeApplied(_ answer: ActionCodeAnswer, fx: inout [Effect]) {
    phase = .resting
    switch answer {
    case .requestFailed(let error):
      Self.report(error, &fx)
    case .actionCodeApplied(let email, let emailVerified):
      if emailVerified, let email, let session = user?.session, session.email == email,
        !session.emailVerified
      {
        user?.session.emailVerified = true
        persist(&fx)
        forceRefreshIfIdle(fx: &fx)
      }
      fx.append(.notify(notification: .actionCodeApplied(email: email)))
    }
  }

  /// `signInWithCustomToken` answered. Nobody signed in: a sign-in like any other. Someone
  /// signed in: the token must be theirs, and their session is renewed with the answer's tokens
  /// (an anonymous user's included: same uid, so the data stays with the account, which is no
  /// longer anonymous); another user's answer is refused (`userMismatch`) and its tokens are
  /// never used or stored. The token is not the session, so a refusal of it is reported only.
  mutating func customTokenAnswered(_ answer: SignInAnswer, now: Instant, fx: inout [Effect]) {
    guard let current = user?.session.uid else {
      switch answer {
      case .signedIn(let s): return signedIn(.success(s), now: now, fx: &fx)
      case .requestFailed(let e): return signedIn(.failure(e), now: now, fx: &fx)
      }
    }
    phase = .resting
    switch answer {
    case .signedIn(let s) where s.uid == current: renewSession(with: s, now: now, fx: &fx)
    case .signedIn: fx.append(.notify(notification: .userMismatch))
    case .requestFailed(let error): Self.report(error, &fx)
    }
  }

  /// A reauthentication with the account's password answered: the same user's new session, then
  /// the operation that waited; another user changes nothing (`userMismatch`); a failure goes
  /// back where it started (a wrong password keeps the waiting operation).
  mutating func reauthenticated(
    _ result: Result<Session, AuthError>, resume: SensitiveOperation?, now: Instant,
    fx: inout [Effect]
  ) {
    let origin: Phase = resume.map { .reauthenticationRequired(operation: $0) } ?? .resting
    switch result {
    case .success(let session):
      guard session.uid == user?.session.uid else {
        phase = origin
        return fx.append(.notify(notification: .userMismatch))
      }
      renewSession(with: session, now: now, fx: &fx)
      phase = .resting
      if let resume { self.resume(resume, now: now, fx: &fx) }
    case .failure(let error):
      fail(error, origin: origin, sensitive: nil, fx: &fx)
    }
  }

  /// `updatePassword` answered: the new tokens are stored at once (Firebase ended the old
  /// ones); a login too old for the change waits for a reauthentication, then resumes.
  mutating func passwordChanged(
    _ answer: PasswordChangeAnswer, newPassword: String, now: Instant, fx: inout [Effect]
  ) {
    switch answer {
    case .passwordChanged(let session):
      phase = .resting
      guard session.uid == user?.session.uid else { return Self.report(.unexpectedResponse, &fx) }
      renewSession(with: session, now: now, fx: &fx)
      fx.append(.notify(notification: .passwordChanged))
    case .requestFailed(let error):
      fail(
        error, origin: .resting, sensitive: .changePassword(newPassword: newPassword), fx: &fx)
    }
  }

  /// `finalizeTotpEnrollment` answered. Enrolled: the new tokens replace the session's (Firebase
  /// may end its other sessions). A wrong code, or a failure that leaves the enrolment session
  /// alive, keeps the secret on screen for another code; one that ended it (`SESSION_EXPIRED`
  /// and its kin) returns to rest, and a login too old for it waits for a reauthentication, then
  /// starts again with a new secret.
  mutating func totpEnrollmentAnswered(
    _ answer: TotpEnrollmentAnswer, enrollment: inout TotpEnrollment, now: Instant,
    fx: inout [Effect]
  ) {
    enrollment.request = nil
    switch answer {
    case .totpEnrolled(let tokens):
      enrolled(tokens, .totpEnrolled, now: now, fx: &fx)
    case .requestFailed(let error):
      let ended = Self.enrollmentEnded.contains(error.code)
      fail(
        error, origin: ended ? .resting : .totpEnrollment(enrollment), sensitive: .enrollTotp,
        fx: &fx)
    }
  }

  /// `startPhoneEnrollment` answered: the code is on its way to the number, and the machine
  /// waits for it. Refused: a login too old for it waits for a reauthentication, then starts
  /// again with the same app's proof (it was never used); other failures are reported.
  mutating func phoneEnrollmentStarted(
    _ answer: SecondFactorCodeAnswer, operation: SensitiveOperation, fx: inout [Effect]
  ) {
    guard case .enrollPhone(let number, _) = operation else { return }
    switch answer {
    case .secondFactorCodeSent(let info):
      phase = .phoneEnrollment(PhoneEnrollment(phoneNumber: number, sessionInfo: info))
    case .requestFailed(let error):
      fail(error, origin: .resting, sensitive: operation, fx: &fx)
    }
  }

  /// `finalizePhoneEnrollment` answered. Enrolled: the new tokens replace the session's, as for
  /// an authenticator app. A wrong code, or a failure that leaves the enrolment session alive,
  /// keeps waiting for a code; one that ended it returns to rest, and so does a login too old
  /// for it: the app's proof was spent on the text, and a new text needs a new one, so the app
  /// reauthenticates and enrols again.
  mutating func phoneEnrollmentAnswered(
    _ answer: PhoneEnrollmentAnswer, enrollment: inout PhoneEnrollment, now: Instant,
    fx: inout [Effect]
  ) {
    enrollment.request = nil
    switch answer {
    case .phoneEnrolled(let tokens):
      enrolled(tokens, .phoneEnrolled, now: now, fx: &fx)
    case .requestFailed(let error):
      let ended = Self.enrollmentEnded.contains(error.code) || error.kind == .reauthenticate
      fail(error, origin: ended ? .resting : .phoneEnrollment(enrollment), sensitive: nil, fx: &fx)
    }
  }

  /// `withdrawSecondFactor` answered. Withdrawn: new tokens, when Firebase sends them, replace
  /// the session's; then the account is reloaded for its factors. A login too old waits for a
  /// reauthentication, then withdraws again; other failures are reported.
  mutating func secondFactorWithdrawn(
    _ answer: SecondFactorWithdrawnAnswer, operation: SensitiveOperation, now: Instant,
    fx: inout [Effect]
  ) {
    switch answer {
    case .secondFactorWithdrawn(let tokens):
      phase = .resting
      if let tokens { renewTokens(tokens, now: now, fx: &fx) }
      fx.append(.notify(notification: .secondFactorWithdrawn))
      reloadAfterFactorChange(fx: &fx)
    case .requestFailed(let error):
      fail(error, origin: .resting, sensitive: operation, fx: &fx)
    }
  }

  /// A factor enrolled: back to rest, the new tokens taken and stored, the app told, and the
  /// account reloaded for its factors.
  mutating func enrolled(
    _ tokens: Tokens, _ notification: AuthNotification, now: Instant, fx: inout [Effect]
  ) {
    phase = .resting
    renewTokens(tokens, now: now, fx: &fx)
    fx.append(.notify(notification: notification))
    reloadAfterFactorChange(fx: &fx)
  }

  /// The same user's session with new `tokens` (an enrolment's or a withdrawal's answer), renewed
  /// and stored at once.
  mutating func renewTokens(_ tokens: Tokens, now: Instant, fx: inout [Effect]) {
    guard var session = user?.session else { return }
    session.idToken = tokens.idToken
    session.refreshToken = tokens.refreshToken
    session.expiresAt = tokens.expiresAt
    renewSession(with: session, now: now, fx: &fx)
  }

  /// After an enrolment or a withdrawal: the account's factors changed on the server, so it is
  /// reloaded (`lookupAccount`), as the Firebase SDKs do, for the session's list.
  mutating func reloadAfterFactorChange(fx: inout [Effect]) {
    guard case .resting = phase, let token = user?.session.idToken else { return }
    let r = send(.lookupAccount(idToken: token), &fx)
    phase = .accountFlow(AccountFlow(kind: .reload, request: r))
  }

  /// Codes with which Firebase ends an enrolment session (an authenticator app's or a phone
  /// number's): start again for a new secret or a new text.
  static let enrollmentEnded: Set<String> = [
    "SESSION_EXPIRED", "INVALID_SESSION_INFO", "MISSING_SESSION_INFO",
    "TOO_MANY_ENROLLMENT_ATTEMPTS", "MFA_ENROLLMENT_ALREADY_COMPLETE",
  ]

  /// `sendEmailChangeVerification` answered: the link is on its way to the new address, and the
  /// session keeps its email until that link is applied (a reload then shows the new one); a
  /// login too old for the change waits for a reauthentication, then resumes.
  mutating func emailChangeAnswered(
    _ answer: VerificationEmailAnswer, newEmail: String, fx: inout [Effect]
  ) {
    switch answer {
    case .verificationEmailSent:
      phase = .resting
      fx.append(.notify(notification: .verificationEmailSent(email: newEmail)))
    case .requestFailed(let error):
      fail(error, origin: .resting, sensitive: .changeEmail(newEmail: newEmail), fx: &fx)
    }
  }

  /// `unlinkProvider` answered.
  mutating func unlinkAnswered(_ answer: UnlinkAnswer, unlink: Unlink, fx: inout [Effect]) {
    let providers: [ProviderID]
    switch answer {
    case .providerUnlinked(let p): providers = p
    case .requestFailed(let error):
      return fail(error, origin: .resting, sensitive: .unlink(provider: unlink.provider), fx: &fx)
    }
    phase = .resting
    user?.session.providers = providers
    persist(&fx)
    if policy.providers.contains(unlink.provider), policy.providers[unlink.provider].sdkSignOut {
      fx.append(.signOutProvider(provider: unlink.provider, revoke: false))
    }
  }
}
