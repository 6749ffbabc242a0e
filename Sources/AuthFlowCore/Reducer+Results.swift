// Results: what an interpreter answered. A result whose id is not awaited is stale and changes
// nothing; a result of the wrong kind for its request is treated as UNEXPECTED_RESPONSE.

extension AuthMachine {
  mutating func handleResult(
    _ id: RequestID, _ result: RequestResult, now: Instant, fx: inout [Effect]
  ) {
    if let r = user?.refreshRequest, r == id {
      return handleRefreshResult(result, now: now, fx: &fx)
    }
    if let r = user?.cleanupRequest, r == id {
      return handleCleanupResult(result, now: now, fx: &fx)
    }
    // Below, a result that is not the phase's own request is stale: cancelled, replaced or
    // signed out.
    switch phase {
    case .restoring(let restore):
      guard restore.retryAt == nil, restore.request == id else { return }
      restored(result, waiters: restore.waiters, now: now, fx: &fx)
    case .signingInAnonymously(let r):
      guard r == id else { return }
      signedIn(result, now: now, fx: &fx)
    case .emailFlow(let flow):
      guard flow.request == id else { return }
      switch flow.kind {
      case .signIn, .createAccount:
        signedIn(result, now: now, fx: &fx)
      case .passwordReset:
        guard case .passwordResetSent = result else {
          return fail(result, origin: .resting, sensitive: nil, fx: &fx)
        }
        phase = .resting
        fx.append(.notify(notification: .passwordResetSent(email: flow.email)))
      }
    case .providerFlow(let flow):
      guard flow.request == id else { return }
      if let credential = flow.credential {
        idpAnswered(result, flow: flow, credential: credential, now: now, fx: &fx)
      } else {
        providerAnswered(result, flow: flow, fx: &fx)
      }
    case .migrating(let migration):
      guard migration.request == id else { return }
      migrationAnswered(result, migration: migration, now: now, fx: &fx)
    case .deletingAccount(let deletion):
      guard deletion.request == id else { return }
      deletionAnswered(result, deletion: deletion, now: now, fx: &fx)
    case .unlinkingProvider(let unlink):
      guard unlink.request == id else { return }
      unlinkAnswered(result, unlink: unlink, fx: &fx)
    case .starting, .resting, .migrationRequired, .reauthenticationRequired:
      return  // These phases await no request of their own.
    }
  }

  /// `loadSession` answered.
  mutating func restored(
    _ result: RequestResult, waiters: [TokenRequestID], now: Instant, fx: inout [Effect]
  ) {
    switch result {
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
    case .providerSucceeded, .providerCancelled, .providerFailed, .signedIn,
      .credentialAlreadyInUse, .requestFailed, .tokenRefreshed, .accountDeleted,
      .passwordResetSent, .tokenRevoked, .providerUnlinked:
      let error = result.failure
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

  /// A sign-in (anonymous, email, provider) or a link answered; a link must keep the uid.
  mutating func signedIn(_ result: RequestResult, now: Instant, fx: inout [Effect]) {
    guard case .signedIn(let session) = result else {
      return fail(result, origin: .resting, sensitive: nil, fx: &fx)
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
  mutating func providerAnswered(
    _ result: RequestResult, flow: ProviderFlow, fx: inout [Effect]
  ) {
    let origin = Self.origin(of: flow.purpose)
    switch result {
    case .providerSucceeded(let credential) where credential.provider == flow.provider:
      var next = flow
      var linkTo: String? = nil
      if flow.purpose == .upgrade || flow.purpose == .link { linkTo = user?.session.idToken }
      next.request = send(.signInWithIdp(credential: credential, linkTo: linkTo), &fx)
      next.credential = credential
      phase = .providerFlow(next)
    case .providerCancelled:
      phase = origin
    case .providerSucceeded, .providerFailed, .sessionLoaded, .signedIn, .credentialAlreadyInUse,
      .requestFailed, .tokenRefreshed, .accountDeleted, .passwordResetSent, .tokenRevoked,
      .providerUnlinked:
      // A credential for another provider is a broken interpreter, like any wrong answer.
      phase = origin
      Self.report(result.failure, &fx)
    }
  }

  /// `signInWithIdp` answered.
  mutating func idpAnswered(
    _ result: RequestResult, flow: ProviderFlow, credential: IdPCredential, now: Instant,
    fx: inout [Effect]
  ) {
    let origin = Self.origin(of: flow.purpose)
    switch (result, flow.purpose) {
    case (.signedIn(let session), .reauthenticate(let resume)):
      guard let uid = user?.session.uid, session.uid == uid else {
        // Reauthentication never switches users: the original session stays.
        phase = origin
        return fx.append(.notify(notification: .userMismatch))
      }
      renewSession(with: session, now: now, fx: &fx)
      phase = .resting
      if let resume { self.resume(resume, now: now, fx: &fx) }
    case (.signedIn, .signIn), (.signedIn, .upgrade), (.signedIn, .link):
      signedIn(result, now: now, fx: &fx)
    case (.credentialAlreadyInUse(let conflict, let email), .upgrade):
      switch policy.migration {
      case .ask:
        phase = .migrationRequired(MigrationOffer(credential: conflict, email: email))
      case .merge: decideMigration(.merge, credential: conflict, fx: &fx)
      case .switchWithoutData: decideMigration(.switchWithoutData, credential: conflict, fx: &fx)
      case .stayAnonymous:
        phase = origin
        Self.report(.credentialAlreadyInUse, &fx)
      }
    case (.credentialAlreadyInUse, .signIn), (.credentialAlreadyInUse, .link),
      (.credentialAlreadyInUse, .reauthenticate):
      // A permanent user's provider account belongs to someone else. Nothing changes.
      phase = origin
      Self.report(.credentialAlreadyInUse, &fx)
    case (.sessionLoaded, _), (.providerSucceeded, _), (.providerCancelled, _),
      (.providerFailed, _), (.requestFailed, _), (.tokenRefreshed, _), (.accountDeleted, _),
      (.passwordResetSent, _), (.tokenRevoked, _), (.providerUnlinked, _):
      let sensitive: SensitiveOperation? =
        flow.purpose == .link ? .link(credential: credential) : nil
      fail(result, origin: origin, sensitive: sensitive, fx: &fx)
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
    }
  }

  /// Codes with which a provider refuses a retry of a conflict's answer: ask it again instead.
  static let retryRefusals: Set<String> = [
    "MISSING_OR_INVALID_NONCE", "INVALID_IDP_RESPONSE", "INVALID_PENDING_TOKEN",
  ]

  /// A step of the sign-in to the owner of the conflicting account answered.
  mutating func migrationAnswered(
    _ result: RequestResult, migration m: Migration, now: Instant, fx: inout [Effect]
  ) {
    if m.credential == nil {
      // The provider's consent step, asked again for a credential to sign in with.
      guard case .providerSucceeded(let c) = result, c.provider == m.provider else {
        phase = .resting  // Back to anonymous; nothing deleted.
        if case .providerCancelled = result { return }
        return Self.report(result.failure, &fx)
      }
      let r = send(.signInWithIdp(credential: c, linkTo: nil), &fx)
      phase = .migrating(
        Migration(
          choice: m.choice, request: r, credential: c, provider: m.provider, reauthorized: true))
      return
    }
    guard case .signedIn(var session) = result, let anonymous = user,
      session.uid != anonymous.session.uid
    else {
      let error = result.failure
      if !m.reauthorized, Self.retryRefusals.contains(error.code),
        policy.providers[m.provider].afterLinkConflict == .retryThenReauthorize
      {
        // The retry with the conflict's answer was refused: ask the provider once more.
        let r = send(.authorize(provider: m.provider, intent: .signIn, loginHint: nil), &fx)
        phase = .migrating(
          Migration(
            choice: m.choice, request: r, credential: nil, provider: m.provider, reauthorized: true)
        )
        return
      }
      // Any other failure returns to anonymous with nothing deleted.
      phase = .resting
      return Self.report(error, &fx)
    }
    let old = anonymous.session
    session.pendingCleanup = AnonymousCleanup(
      uid: old.uid, idToken: old.idToken, dataMoved: m.choice == .switchWithoutData,
      refreshToken: old.refreshToken, expiresAt: old.expiresAt)
    begin(session, waiters: anonymous.tokenWaiters, persist: true, now: now, fx: &fx)
    phase = .resting
    if m.choice == .merge {
      fx.append(.notify(notification: .migrationReady(from: old.uid, to: session.uid)))
    }
    startCleanupIfDue(now: now, fx: &fx)
  }

  /// A request of the current flow failed (or answered with the wrong kind of result).
  mutating func fail(
    _ result: RequestResult, origin: Phase, sensitive: SensitiveOperation?, fx: inout [Effect]
  ) {
    let error = result.failure
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
