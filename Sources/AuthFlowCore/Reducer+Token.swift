// The ID token's life inside every signed-in state: requests, refresh, backoff, timers,
// and the deletion of a migrated anonymous account.

extension AuthMachine {
  /// `idTokenRequested`: answer from the session, join the refresh in flight, or start one.
  mutating func requestToken(
    _ requestId: RequestID, force: Bool, now: Instant, fx: inout [Effect]
  ) {
    switch state {
    case .starting:
      fx.append(
        .deliverIDToken(
          requestIds: RequestIDs(single: requestId), result: .failure(error: .notStarted)))
    case .restoring(let r, var waiters, let retryAt):
      // Never answer "signed out" before the stored session was read: wait for it.
      waiters.append(requestId)
      state = .restoring(request: r, waiters: waiters, retryAt: retryAt)
    default:
      if !force, let (token, expiresAt) = state.idleToken, expiresAt - now > policy.refreshMargin {
        // The hot path: answered from the session, nothing copied, nothing allocated.
        fx.append(
          .deliverIDToken(requestIds: RequestIDs(single: requestId), result: .token(idToken: token))
        )
        return
      }
      guard var user = state.user else {
        fx.append(
          .deliverIDToken(
            requestIds: RequestIDs(single: requestId), result: .failure(error: .notSignedIn)))
        return
      }
      switch user.token {
      case .refreshing(let r, var waiters, let failures):
        waiters.append(requestId)
        user.token = .refreshing(request: r, waiters: waiters, failures: failures)
      case .fresh, .backingOff:
        if !force && user.session.expiresAt - now > policy.refreshMargin {
          fx.append(
            .deliverIDToken(
              requestIds: RequestIDs(single: requestId),
              result: .token(idToken: user.session.idToken)))
          return
        }
        var failures = 0
        if case .backingOff(_, let f) = user.token { failures = f }
        startRefresh(&user, waiters: [requestId], failures: failures, fx: &fx)
      }
      state.replaceUser(user)
    }
  }

  /// Sends one `refreshToken` and marks it in flight.
  mutating func startRefresh(
    _ user: inout SignedInUser, waiters: [RequestID], failures: Int, fx: inout [Effect]
  ) {
    let r = newRequest()
    user.token = .refreshing(request: r, waiters: waiters, failures: failures)
    fx.append(.refreshToken(requestId: r, refreshToken: user.session.refreshToken))
  }

  /// Starts a refresh unless one is in flight (after an INVALID_ID_TOKEN).
  mutating func forceRefreshIfIdle(fx: inout [Effect]) {
    guard var user = state.user else { return }
    if case .refreshing = user.token { return }
    startRefresh(&user, waiters: [], failures: 0, fx: &fx)
    state.replaceUser(user)
  }

  /// A timer came due.
  mutating func handleTimer(_ timer: TimerID, now: Instant, fx: inout [Effect]) {
    switch timer {
    case .restoreRetry:
      guard case .restoring(let r, let waiters, let retryAt?) = state else {
        return  // A late or duplicate timer: nothing is waiting for it.
      }
      guard now >= retryAt else {
        // Fired early (a clock change): arm it again, or nothing would ever read the store.
        fx.append(.scheduleTimer(timer: .restoreRetry, at: retryAt))
        return
      }
      state = .restoring(request: r, waiters: waiters, retryAt: nil)
      fx.append(.loadSession(requestId: r))
    case .tokenRefresh:
      guard var user = state.user else { return }  // Fired after sign-out: stale.
      switch user.token {
      case .refreshing:
        return  // A refresh is already in flight; it will schedule the next timer.
      case .fresh:
        let due = user.session.expiresAt + (-policy.refreshMargin)
        guard now >= due else {
          // Fired early: arm it again so the token is still refreshed in time.
          fx.append(.scheduleTimer(timer: .tokenRefresh, at: due))
          return
        }
        startRefresh(&user, waiters: [], failures: 0, fx: &fx)
      case .backingOff(let until, let failures):
        guard now >= until else {
          fx.append(.scheduleTimer(timer: .tokenRefresh, at: until))
          return
        }
        startRefresh(&user, waiters: [], failures: failures, fx: &fx)
      }
      state.replaceUser(user)
    }
  }

  /// The answer to the refresh in flight.
  mutating func handleRefreshResult(
    _ result: RequestResult, user: SignedInUser, waiters: [RequestID], failures: Int,
    now: Instant, fx: inout [Effect]
  ) {
    var user = user
    switch result {
    case .tokenRefreshed(let idToken, let refreshToken, let expiresIn):
      user.session.idToken = idToken
      user.session.refreshToken = refreshToken
      user.session.expiresAt = now + expiresIn
      user.token = .fresh
      fx.append(.persistSession(session: user.session))
      fx.append(.scheduleTimer(timer: .tokenRefresh, at: refreshMoment(user.session, now: now)))
      if !waiters.isEmpty {
        fx.append(
          .deliverIDToken(requestIds: RequestIDs(waiters), result: .token(idToken: idToken)))
      }
      state.replaceUser(user)
    case .requestFailed(let error) where error.kind == .sessionDead:
      signOut(user, waiterError: error, notification: .sessionExpired, fx: &fx)
    default:
      var error = AuthError.unexpectedResponse
      if case .requestFailed(let e) = result { error = e }
      // Anything else keeps the user signed in and retries later, doubling the delay.
      if !waiters.isEmpty {
        fx.append(.deliverIDToken(requestIds: RequestIDs(waiters), result: .failure(error: error)))
      }
      let delay = policy.backoffDelay(failures: failures + 1, throttled: error.kind == .throttled)
      let until = now + delay
      user.token = .backingOff(until: until, failures: failures + 1)
      fx.append(.scheduleTimer(timer: .tokenRefresh, at: until))
      state.replaceUser(user)
    }
  }

  /// Deletes the migrated anonymous account once its data is moved.
  mutating func startCleanupIfDue(fx: inout [Effect]) {
    guard var user = state.user, user.cleanupRequest == nil,
      let cleanup = user.session.pendingCleanup, cleanup.dataMoved
    else { return }
    let r = newRequest()
    user.cleanupRequest = r
    fx.append(.deleteAccount(requestId: r, idToken: cleanup.idToken))
    state.replaceUser(user)
  }

  /// The answer to the anonymous account's deletion.
  mutating func handleCleanupResult(
    _ result: RequestResult, user: SignedInUser, fx: inout [Effect]
  ) {
    var user = user
    user.cleanupRequest = nil
    var error: AuthError? = nil
    switch result {
    case .accountDeleted: break
    case .requestFailed(let e): error = e
    default: error = .unexpectedResponse
    }
    if let error, error.kind.isRetryable {
      // Keep the record: the next launch tries again.
      Self.report(error, &fx)
      state.replaceUser(user)
      return
    }
    if let error, error.code != "USER_NOT_FOUND" {
      // The account cannot be deleted with what we hold; it stays an orphan on the server.
      Self.report(error, &fx)
    }
    user.session.pendingCleanup = nil
    fx.append(.persistSession(session: user.session))
    state.replaceUser(user)
  }
}
