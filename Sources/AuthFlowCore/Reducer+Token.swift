// The ID token's life beside every phase: requests, refresh, backoff, timers, and the deletion
// of a migrated anonymous account. All of it edits `user` in place.

extension AuthMachine {
  /// `idTokenRequested`: answer from the session, join the refresh in flight, or start one.
  mutating func requestToken(
    _ id: TokenRequestID, force: Bool, now: Instant, fx: inout [Effect]
  ) {
    switch phase {
    case .starting:
      fx.append(
        .deliverIDToken(
          requestIds: TokenRequestIDs(single: id), result: .failure(error: .notStarted)))
    case .restoring(var restore):
      // Never answer "signed out" before the stored session was read: wait for it. An id that
      // already waits (an app that reused one) waits once and is answered once.
      guard !restore.waiters.contains(id) else { return }
      restore.waiters.append(id)
      phase = .restoring(restore)
    case .resting, .signingInAnonymously, .providerFlow, .migrationRequired, .migrating,
      .reauthenticationRequired, .deletingAccount, .unlinkingProvider, .emailFlow,
      .accountFlow, .secondFactor, .accountExists, .totpEnrollment, .phoneEnrollment, .phoneSignIn:
      guard let token = user?.token else {
        return fx.append(
          .deliverIDToken(
            requestIds: TokenRequestIDs(single: id), result: .failure(error: .notSignedIn)))
      }
      if !force, let idToken = idleToken(at: now) {
        return fx.append(
          .deliverIDToken(requestIds: TokenRequestIDs(single: id), result: .token(idToken: idToken))
        )
      }
      switch token {
      case .refreshing(let r, let waiters, let failures):
        guard !waiters.contains(id) else { return }  // Already waiting: one answer per id.
        user?.token = .refreshing(request: r, waiters: waiters + [id], failures: failures)
      case .fresh:
        startRefresh(waiters: [id], failures: 0, fx: &fx)
      case .backingOff(_, let failures):
        startRefresh(waiters: [id], failures: failures, fx: &fx)
      }
    }
  }

  /// Sends one `refreshToken` and marks it in flight.
  mutating func startRefresh(waiters: [TokenRequestID], failures: Int, fx: inout [Effect]) {
    guard let refreshToken = user?.session.refreshToken else { return }
    let r = send(.refreshToken(refreshToken: refreshToken), &fx)
    user?.token = .refreshing(request: r, waiters: waiters, failures: failures)
  }

  /// Starts a refresh unless one is in flight (after an INVALID_ID_TOKEN).
  mutating func forceRefreshIfIdle(fx: inout [Effect]) {
    guard let user, user.refreshRequest == nil else { return }
    startRefresh(waiters: [], failures: 0, fx: &fx)
  }

  /// A timer came due.
  mutating func handleTimer(_ timer: TimerID, now: Instant, fx: inout [Effect]) {
    switch timer {
    case .restoreRetry:
      guard case .restoring(var restore) = phase, let retryAt = restore.retryAt else {
        return  // A late or duplicate timer: nothing is waiting for it.
      }
      guard now >= retryAt else {
        // Fired early (a clock change): arm it again, or nothing would ever read the store.
        return fx.append(.scheduleTimer(timer: .restoreRetry, at: retryAt))
      }
      restore.retryAt = nil
      phase = .restoring(restore)
      fx.append(.loadSession(requestId: restore.request))
    case .tokenRefresh:
      guard let user else { return }  // Fired after sign-out: stale.
      switch user.token {
      case .refreshing:
        return  // A refresh is already in flight; it will schedule the next timer.
      case .fresh:
        guard now >= user.session.expiresAt - policy.refreshMargin else {
          // Fired early: arm it again so the token is still refreshed in time.
          return fx.append(
            .scheduleTimer(timer: .tokenRefresh, at: refreshMoment(user.session, now: now)))
        }
        startRefresh(waiters: [], failures: 0, fx: &fx)
      case .backingOff(let until, let failures):
        guard now >= until else {
          return fx.append(.scheduleTimer(timer: .tokenRefresh, at: until))
        }
        startRefresh(waiters: [], failures: failures, fx: &fx)
      }
    }
  }

  /// The answer to the refresh in flight.
  mutating func refreshAnswered(_ answer: RefreshAnswer, now: Instant, fx: inout [Effect]) {
    guard case .refreshing(_, let waiters, let failures)? = user?.token else { return }
    switch answer {
    case .tokenRefreshed(let tokens):
      user?.session.idToken = tokens.idToken
      user?.session.refreshToken = tokens.refreshToken
      user?.session.expiresAt = tokens.expiresAt
      user?.token = .fresh
      guard let session = user?.session else { return }
      fx.append(.persistSession(session: session))
      fx.append(.scheduleTimer(timer: .tokenRefresh, at: refreshMoment(session, now: now)))
      Self.deliver(.token(idToken: tokens.idToken), to: waiters, &fx)
      continueDeletionAfterRefresh(fx: &fx)
    case .requestFailed(let error) where error.kind == .sessionDead:
      signOut(waiterError: error, notification: .sessionExpired, fx: &fx)
    case .requestFailed(let error):
      // Anything else keeps the user signed in and retries later, doubling the delay.
      Self.deliver(.failure(error: error), to: waiters, &fx)
      let delay = policy.backoffDelay(failures: failures + 1, throttled: error.kind == .throttled)
      let until = now + delay
      user?.token = .backingOff(until: until, failures: failures + 1)
      fx.append(.scheduleTimer(timer: .tokenRefresh, at: until))
    }
  }

  /// Deletes the migrated anonymous account once its data is moved; when its ID token has
  /// expired since the migration (the app moved the data much later), refreshes it first with
  /// the anonymous account's refresh token.
  mutating func startCleanupIfDue(now: Instant, fx: inout [Effect]) {
    guard let user, user.cleanupRequest == nil, let cleanup = user.session.pendingCleanup,
      cleanup.dataMoved
    else { return }
    if let refreshToken = cleanup.refreshToken, let expiresAt = cleanup.expiresAt,
      expiresAt - now <= policy.refreshMargin
    {
      let r = send(.refreshToken(refreshToken: refreshToken), &fx)
      self.user?.cleanupRequest = r
      self.user?.cleanupRefreshing = true
      return
    }
    let r = send(.deleteAccount(idToken: cleanup.idToken), &fx)
    self.user?.cleanupRequest = r
    self.user?.cleanupRefreshing = false
  }

  /// The answer to the refresh of the migrated anonymous account's token.
  mutating func cleanupRefreshed(_ answer: RefreshAnswer, now: Instant, fx: inout [Effect]) {
    user?.cleanupRequest = nil
    user?.cleanupRefreshing = false
    switch answer {
    case .tokenRefreshed(let tokens):
      user?.session.pendingCleanup?.idToken = tokens.idToken
      user?.session.pendingCleanup?.refreshToken = tokens.refreshToken
      user?.session.pendingCleanup?.expiresAt = tokens.expiresAt
      persist(&fx)
      startCleanupIfDue(now: now, fx: &fx)
    case .requestFailed(let error):
      cleanupFailed(error, fx: &fx)
    }
  }

  /// The answer to the deletion of the migrated anonymous account.
  mutating func cleanupDeleted(_ answer: DeleteAnswer, fx: inout [Effect]) {
    user?.cleanupRequest = nil
    user?.cleanupRefreshing = false
    switch answer {
    case .accountDeleted: finishCleanup(fx: &fx)
    case .requestFailed(let error): cleanupFailed(error, fx: &fx)
    }
  }

  /// The cleanup's request failed.
  private mutating func cleanupFailed(_ error: AuthError, fx: inout [Effect]) {
    if error.kind.isRetryable {
      // Keep the record: the next launch tries again.
      return Self.report(error, &fx)
    }
    // Already gone is what we wanted; anything else leaves an orphan on the server: say so.
    if error.code != "USER_NOT_FOUND" { Self.report(error, &fx) }
    finishCleanup(fx: &fx)
  }

  /// Drops the cleanup record (the account is gone, or cannot be deleted with what we hold).
  private mutating func finishCleanup(fx: inout [Effect]) {
    user?.session.pendingCleanup = nil
    persist(&fx)
  }
}

// MARK: - Another process's writes

extension AuthMachine {
  /// The shared store now holds `stored`, written by another process.
  mutating func storeChanged(_ stored: Session?, now: Instant, fx: inout [Effect]) {
    guard !phase.isLaunching else { return }  // The launch reads the store itself.
    guard let stored, stored.hasValidTimes(at: now) else {
      // Signed out (or the account deleted) elsewhere. A flow with nobody signed in yet goes on.
      guard user != nil else { return }
      return signOut(notification: .signedOutElsewhere, storeCleared: true, fx: &fx)
    }
    if let current = user, current.session.uid == stored.uid {
      guard current.session != stored else { return }  // Nothing new (our own write).
      // An older write of the same user's (a peer that had not seen the newer tokens yet)
      // never replaces newer tokens.
      if stored.expiresAt < current.session.expiresAt { return }
      // The same user's newer tokens (another process refreshed, or relinked): take them.
      var session = stored
      if session.displayName == nil { session.displayName = current.session.displayName }
      user?.session = session
      if session.isFresh(at: now, margin: policy.refreshMargin) {
        // A refresh of ours in flight is now stale: its waiters get the new token.
        Self.deliver(.token(idToken: session.idToken), to: current.tokenWaiters, &fx)
        user?.token = .fresh
        fx.append(.scheduleTimer(timer: .tokenRefresh, at: refreshMoment(session, now: now)))
      } else if current.refreshRequest == nil {
        startRefresh(waiters: [], failures: 0, fx: &fx)
      }
      return
    }
    // Someone else is signed in now (or someone, where nobody was).
    let previous = user
    if let previous {
      fx.append(.cancelTimer(timer: .tokenRefresh))
      for provider in policy.providers.sdkProviders(of: previous.session) {
        fx.append(.signOutProvider(provider: provider, revoke: false))
      }
    }
    user = nil
    phase = .resting  // A flow of ours is abandoned: its answer will be stale.
    begin(stored, waiters: previous?.tokenWaiters ?? [], persist: false, now: now, fx: &fx)
    fx.append(
      .notify(notification: .userChanged(from: previous?.session.uid, to: stored.uid)))
  }
}
