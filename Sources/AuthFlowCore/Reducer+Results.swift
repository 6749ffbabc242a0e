// Results: what an interpreter answered. A result whose id is not awaited is stale and changes
// nothing; a result of the wrong kind for its request is treated as UNEXPECTED_RESPONSE.

extension AuthMachine {
  mutating func handleResult(
    _ id: RequestID, _ result: RequestResult, now: Instant, fx: inout [Effect]
  ) {
    if let user = state.user {
      if case .refreshing(let r, let waiters, let failures) = user.token, r == id {
        handleRefreshResult(
          result, user: user, waiters: waiters, failures: failures, now: now, fx: &fx)
        return
      }
      if user.cleanupRequest == id {
        handleCleanupResult(result, user: user, fx: &fx)
        return
      }
    }
    guard state.pendingRequest == id else { return }  // Stale: cancelled, replaced or signed out.
    switch state {
    case .restoring(_, let waiters, _):
      restored(result, waiters: waiters, now: now, fx: &fx)
    case .signingInAnonymously, .signingInWithEmail:
      guard case .signedIn(let session) = result else {
        return fail(result, origin: .signedOut, user: nil, sensitive: nil, fx: &fx)
      }
      let user = enter(session, waiters: [], persist: true, now: now, fx: &fx)
      state = Self.resting(user)
    case .sendingPasswordReset(_, let email):
      guard case .passwordResetSent = result else {
        return fail(result, origin: .signedOut, user: nil, sensitive: nil, fx: &fx)
      }
      state = .signedOut
      fx.append(.notify(notification: .passwordResetSent(email: email)))
    case .creatingAccount(_, _, let user):
      guard case .signedIn(let session) = result else {
        return fail(
          result, origin: user.map(Self.resting) ?? .signedOut, user: user, sensitive: nil,
          fx: &fx)
      }
      signedIn(session, linking: user, now: now, fx: &fx)
    case .awaitingProvider(let purpose, _, let user):
      providerAnswered(result, purpose: purpose, user: user, fx: &fx)
    case .googleAuthenticated(let purpose, _, let credential, let user):
      idpAnswered(result, purpose: purpose, credential: credential, user: user, now: now, fx: &fx)
    case .migrating(let choice, _, _, let user):
      migrationAnswered(result, choice: choice, user: user, now: now, fx: &fx)
    case .deletingAccount(_, let user):
      guard case .accountDeleted = result else {
        return fail(
          result, origin: Self.resting(user), user: user, sensitive: .deleteAccount, fx: &fx)
      }
      signOut(user, notification: nil, fx: &fx)
    case .starting, .signedOut, .anonymous, .firebaseAuthenticated, .migrationRequired,
      .reauthenticationRequired:
      return  // Unreachable: these states await no request.
    }
  }

  /// `loadSession` answered.
  mutating func restored(
    _ result: RequestResult, waiters: [RequestID], now: Instant, fx: inout [Effect]
  ) {
    switch result {
    case .sessionLoaded(let session?):
      let user = enter(session, waiters: waiters, persist: false, now: now, fx: &fx)
      state = Self.resting(user)
      if let cleanup = session.pendingCleanup, !cleanup.dataMoved {
        // The app had not moved the data before the relaunch: ask again.
        fx.append(
          .notify(notification: .migrationReady(from: cleanup.uid, to: session.uid)))
      }
      startCleanupIfDue(fx: &fx)
    case .sessionLoaded(nil):
      state = .signedOut
      if !waiters.isEmpty {
        fx.append(
          .deliverIDToken(requestIds: RequestIDs(waiters), result: .failure(error: .notSignedIn)))
      }
    default:
      var error = AuthError.unexpectedResponse
      if case .requestFailed(let e) = result { error = e }
      if error.kind.isRetryable {
        // Storage not readable yet (a locked keychain): wait and read again; never sign out.
        let r = newRequest()
        let at = now + policy.backoffBase
        state = .restoring(request: r, waiters: waiters, retryAt: at)
        fx.append(.scheduleTimer(timer: .restoreRetry, at: at))
        return
      }
      // Unreadable for good: start clean rather than crash or loop.
      state = .signedOut
      fx.append(.clearSession)
      if !waiters.isEmpty {
        fx.append(
          .deliverIDToken(requestIds: RequestIDs(waiters), result: .failure(error: .notSignedIn)))
      }
      Self.report(error, &fx)
    }
  }

  /// A sign-in or a link succeeded; a link must keep the uid.
  mutating func signedIn(
    _ session: Session, linking user: SignedInUser?, now: Instant, fx: inout [Effect]
  ) {
    guard let user else {
      state = Self.resting(enter(session, waiters: [], persist: true, now: now, fx: &fx))
      return
    }
    guard session.uid == user.session.uid else {
      // A link that changes the uid would drop the user's data: refuse it.
      state = Self.resting(user)
      Self.report(.unexpectedResponse, &fx)
      return
    }
    state = Self.resting(replaceSession(of: user, with: session, now: now, fx: &fx))
  }

  /// The Google consent step answered.
  mutating func providerAnswered(
    _ result: RequestResult, purpose: ProviderPurpose, user: SignedInUser?, fx: inout [Effect]
  ) {
    switch result {
    case .providerSucceeded(let credential):
      let r = newRequest()
      var linkTo: String? = nil
      if case .upgrade = purpose { linkTo = user?.session.idToken }
      if case .link = purpose { linkTo = user?.session.idToken }
      state = .googleAuthenticated(
        purpose: purpose, request: r, credential: credential, user: user)
      fx.append(.signInWithIdp(requestId: r, credential: credential, linkTo: linkTo))
    case .providerCancelled:
      state = Self.origin(of: purpose, user: user)
    case .providerFailed(let error), .requestFailed(let error):
      state = Self.origin(of: purpose, user: user)
      Self.report(error, &fx)
    default:
      state = Self.origin(of: purpose, user: user)
      Self.report(.unexpectedResponse, &fx)
    }
  }

  /// `signInWithIdp` answered.
  mutating func idpAnswered(
    _ result: RequestResult, purpose: ProviderPurpose, credential: GoogleCredential,
    user: SignedInUser?, now: Instant, fx: inout [Effect]
  ) {
    let origin = Self.origin(of: purpose, user: user)
    switch (result, purpose) {
    case (.signedIn(let session), .reauthenticate(let resume)):
      guard let user, session.uid == user.session.uid else {
        // Reauthentication never switches users: the original session stays.
        state = origin
        fx.append(.notify(notification: .userMismatch))
        return
      }
      let renewed = replaceSession(of: user, with: session, now: now, fx: &fx)
      state = .firebaseAuthenticated(user: renewed)
      if let resume { self.resume(resume, user: renewed, fx: &fx) }
    case (.signedIn(let session), _):
      signedIn(session, linking: user, now: now, fx: &fx)
    case (.credentialAlreadyInUse(let conflict, let email), .upgrade):
      guard let user else { return }
      switch policy.migration {
      case .ask:
        state = .migrationRequired(credential: conflict, email: email, user: user)
      case .merge: decideMigration(.merge, credential: conflict, user: user, fx: &fx)
      case .switchWithoutData:
        decideMigration(.switchWithoutData, credential: conflict, user: user, fx: &fx)
      case .stayAnonymous:
        state = origin
        Self.report(.credentialAlreadyInUse, &fx)
      }
    case (.credentialAlreadyInUse, _):
      // Case 4: a permanent user's Google account belongs to someone else. Nothing changes.
      state = origin
      Self.report(.credentialAlreadyInUse, &fx)
    default:
      var sensitive: SensitiveOperation? = nil
      if case .link = purpose { sensitive = .linkGoogle(credential: credential) }
      fail(result, origin: origin, user: user, sensitive: sensitive, fx: &fx)
    }
  }

  /// Runs the operation that waited for a successful reauthentication.
  mutating func resume(_ operation: SensitiveOperation, user: SignedInUser, fx: inout [Effect]) {
    let r = newRequest()
    switch operation {
    case .deleteAccount:
      state = .deletingAccount(request: r, user: user)
      fx.append(.deleteAccount(requestId: r, idToken: user.session.idToken))
    case .linkGoogle(let credential):
      state = .googleAuthenticated(purpose: .link, request: r, credential: credential, user: user)
      fx.append(.signInWithIdp(requestId: r, credential: credential, linkTo: user.session.idToken))
    }
  }

  /// The sign-in to the existing account (case 2) answered.
  mutating func migrationAnswered(
    _ result: RequestResult, choice: MigrationChoice, user: SignedInUser, now: Instant,
    fx: inout [Effect]
  ) {
    guard case .signedIn(var session) = result, session.uid != user.session.uid else {
      // Any failure returns to anonymous with nothing deleted.
      state = .anonymous(user: user)
      var error = AuthError.unexpectedResponse
      if case .requestFailed(let e) = result { error = e }
      if case .providerFailed(let e) = result { error = e }
      Self.report(error, &fx)
      return
    }
    let anonymous = user.session
    session.pendingCleanup = AnonymousCleanup(
      uid: anonymous.uid, idToken: anonymous.idToken, dataMoved: choice == .switchWithoutData)
    var waiters: [RequestID] = []
    if case .refreshing(_, let w, _) = user.token { waiters = w }
    state = .firebaseAuthenticated(
      user: enter(session, waiters: waiters, persist: true, now: now, fx: &fx))
    if choice == .merge {
      fx.append(.notify(notification: .migrationReady(from: anonymous.uid, to: session.uid)))
    }
    startCleanupIfDue(fx: &fx)
  }

  /// A request of the current flow failed (or answered with the wrong kind of result).
  mutating func fail(
    _ result: RequestResult, origin: AuthState, user: SignedInUser?,
    sensitive: SensitiveOperation?, fx: inout [Effect]
  ) {
    var error = AuthError.unexpectedResponse
    switch result {
    case .requestFailed(let e), .providerFailed(let e): error = e
    default: break
    }
    guard let user else {
      state = origin
      Self.report(error, &fx)
      return
    }
    switch error.kind {
    case .reauthenticate where sensitive != nil:
      state = .reauthenticationRequired(operation: sensitive!, user: user)
    case .sessionDead:
      signOut(
        user, waiterError: error, notification: .signedOutAfterError(error: error), fx: &fx)
    case .invalidIDToken:
      // Refresh once; that refresh decides whether the session is dead.
      state = origin
      Self.report(error, &fx)
      forceRefreshIfIdle(fx: &fx)
    default:
      state = origin
      Self.report(error, &fx)
    }
  }
}
