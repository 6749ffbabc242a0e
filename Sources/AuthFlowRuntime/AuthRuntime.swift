import AuthFlowCore
import Foundation

/// Why `idToken()` could not give a token.
public struct TokenUnavailable: Error, Equatable, Sendable {
  /// The machine's reason (NOT_SIGNED_IN, NETWORK, TOKEN_EXPIRED, …).
  public var error: AuthError

  /// Wraps the machine's error.
  public init(error: AuthError) { self.error = error }
}

/// Owns one `AuthMachine` and runs its effects: requests through the interpreter, the session
/// through the store, timers on the clock. Apps send intents and read states, notifications and
/// ID tokens; every change goes through the pure reducer.
public actor AuthRuntime {
  private var machine: AuthMachine
  private let interpreter: any AuthInterpreter
  private let store: any SessionStore
  private let clock: any AuthClock
  private var timers: [TimerID: Task<Void, Never>] = [:]
  private var writes: Task<Void, Never>?
  private var tokenWaiters: [TokenRequestID: CheckedContinuation<String, Error>] = [:]
  private var nextTokenRequest = 0
  private var stateSubscribers: [Int: AsyncStream<AuthState>.Continuation] = [:]
  private var notificationSubscribers: [Int: AsyncStream<AuthNotification>.Continuation] = [:]
  private var nextSubscriber = 0
  private var inFlight = 0
  private var idleWaiters: [CheckedContinuation<Void, Never>] = []
  private var storeWatch: SessionStoreWatch?
  private var storeWatchTask: Task<Void, Never>?

  /// A session runtime; call `start()` (it sends `appLaunched`).
  public init(
    policy: Policy = Policy(), interpreter: any AuthInterpreter, store: any SessionStore,
    clock: any AuthClock = SystemClock()
  ) {
    machine = AuthMachine(policy: policy)
    self.interpreter = interpreter
    self.store = store
    self.clock = clock
  }

  deinit {
    for t in timers.values { t.cancel() }
    storeWatchTask?.cancel()
    storeWatch?.stop()
  }

  /// The current state.
  public var state: AuthState { machine.state }

  /// How many `idToken()` callers are waiting for an answer.
  public var waitingForToken: Int { tokenWaiters.count }

  /// Reads the stored session (sends `appLaunched`) and returns once it has been read, so an
  /// intent sent next finds the machine signed in, anonymous or signed out. (A store that cannot
  /// be read yet, say a locked keychain, is read again later; `start` does not wait for that.)
  ///
  /// With a store several processes share (`SharedSessionStore`, such as `FileSessionStore`),
  /// it also starts watching it: another process's writes reach the machine as `storeChanged`,
  /// and token refreshes go through the store's lease, one process at a time.
  public func start() async {
    watchStore()
    send(.appLaunched)
    await settled()
  }

  /// Feeds another process's writes to the machine, in the order they were seen.
  private func watchStore() {
    guard storeWatch == nil, let shared = store as? any SharedSessionStore else { return }
    let (changes, continuation) = AsyncStream<Session?>.makeStream(
      bufferingPolicy: .bufferingNewest(16))
    do {
      storeWatch = try shared.watch { continuation.yield($0) }
    } catch {
      return  // Not watchable: this process still works, it just learns later.
    }
    storeWatchTask = Task { [weak self] in
      for await session in changes {
        await self?.receive(.storeChanged(session: session))
      }
    }
  }

  /// Sends an intent.
  public func send(_ intent: Intent) { receive(.intent(intent)) }

  /// States as they change; each subscriber gets the current state first.
  public func states() -> AsyncStream<AuthState> {
    let (stream, continuation) = AsyncStream<AuthState>.makeStream(
      bufferingPolicy: .bufferingNewest(64))
    let id = subscriberID()
    stateSubscribers[id] = continuation
    continuation.yield(machine.state)
    continuation.onTermination = { _ in Task { await self.unsubscribeState(id) } }
    return stream
  }

  /// Notifications the app must act on (migrationReady, sessionExpired, errors).
  public func notifications() -> AsyncStream<AuthNotification> {
    let (stream, continuation) = AsyncStream<AuthNotification>.makeStream(
      bufferingPolicy: .bufferingNewest(64))
    let id = subscriberID()
    notificationSubscribers[id] = continuation
    continuation.onTermination = { _ in Task { await self.unsubscribeNotification(id) } }
    return stream
  }

  /// A valid ID token: from the session, or from the one refresh in flight that every
  /// concurrent caller shares. A cancelled caller gets `CancellationError`; the refresh goes on
  /// for the others. Throws `TokenUnavailable` when there is no token to give.
  public func idToken(forceRefresh: Bool = false) async throws -> String {
    nextTokenRequest += 1
    let id = TokenRequestID(nextTokenRequest)
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        if Task.isCancelled {
          continuation.resume(throwing: CancellationError())
          return
        }
        tokenWaiters[id] = continuation
        receive(.intent(.idTokenRequested(requestId: id, forceRefresh: forceRefresh)))
      }
    } onCancel: {
      Task { await self.cancelTokenRequest(id) }
    }
  }

  /// Waits until no request, write or event is being processed (timers may still be pending).
  public func settled() async {
    if inFlight == 0 { return }
    await withCheckedContinuation { idleWaiters.append($0) }
  }

  // MARK: - Driving the machine

  private func receive(_ event: Event) {
    let before = machine.state
    let effects = machine.handle(event, now: clock.now())
    for effect in effects { execute(effect) }
    if machine.state != before {
      for c in stateSubscribers.values { c.yield(machine.state) }
    }
  }

  private func execute(_ effect: Effect) {
    switch effect {
    case .loadSession(let id):
      track {
        let answer: LoadAnswer
        do {
          answer = .sessionLoaded(session: try await self.store.load())
        } catch let error as SessionStoreError {
          answer = .requestFailed(error: error.authError)
        } catch {
          answer = .requestFailed(
            error: AuthError(code: "STORAGE_UNAVAILABLE", message: "\(error)"))
        }
        await self.receive(.answer(.loadSession(id, answer)))
      }
    case .persistSession(let session):
      write { try await $0.save(session) }
    case .clearSession:
      write { try await $0.clear() }
    case .scheduleTimer(let timer, let at):
      timers[timer]?.cancel()
      let clock = self.clock
      // Weak: a sleeping timer must not keep a runtime the app has let go of alive for an hour.
      timers[timer] = Task { [weak self] in
        do {
          try await clock.sleep(until: at)
        } catch {
          return  // Cancelled: replaced or cancelled by the machine.
        }
        await self?.timerFired(timer)
      }
    case .cancelTimer(let timer):
      timers.removeValue(forKey: timer)?.cancel()
    case .deliverIDToken(let ids, let result):
      for id in ids {
        // A caller that was cancelled has already been answered.
        guard let continuation = tokenWaiters.removeValue(forKey: id) else { continue }
        switch result {
        case .token(let token): continuation.resume(returning: token)
        case .failure(let error): continuation.resume(throwing: TokenUnavailable(error: error))
        }
      }
    case .notify(let notification):
      for c in notificationSubscribers.values { c.yield(notification) }
    case .signOutProvider(let provider, let revoke):
      let interpreter = self.interpreter
      track { await interpreter.signOut(of: provider, revoke: revoke) }
    case .request(let id, .refreshToken(let token)):
      let interpreter = self.interpreter
      guard let shared = store as? any SharedSessionStore, machine.user?.refreshRequest == id,
        let session = machine.user?.session
      else {
        // Not shared, or the migration cleanup's own refresh (the old anonymous account): told
        // apart by the request's id, never by its token.
        return track {
          await self.receive(.answer(.refreshToken(id, await interpreter.refreshToken(token))))
        }
      }
      let clock = self.clock
      track {
        // One refresh for every process sharing the store: this one's, or a peer's tokens.
        let refreshed = await shared.sharedRefresh(
          of: session, now: { clock.now() }, refresh: { await interpreter.refreshToken(token) })
        await self.receive(.answer(.refreshToken(id, refreshed.answer)), then: refreshed.finish)
      }
    case .request(let id, let request):
      let interpreter = self.interpreter
      track { await self.receive(.answer(await interpreter.perform(request, id: id))) }
    }
  }

  /// Feeds `event`, then runs `finish` once the writes it caused are done (a shared refresh's
  /// lease is let go after its one write).
  private func receive(_ event: Event, then finish: @escaping @Sendable () -> Void) {
    receive(event)
    write { _ in finish() }
  }

  private func timerFired(_ timer: TimerID) {
    timers[timer] = nil
    receive(.timerFired(timer: timer))
  }

  /// Writes run one after another, in the order the machine asked for them.
  private func write(_ body: @escaping @Sendable (any SessionStore) async throws -> Void) {
    let previous = writes
    let store = self.store
    inFlight += 1
    writes = Task {
      await previous?.value
      do {
        try await body(store)
      } catch let error as SessionStoreError {
        self.receive(.persistFailed(error: error.authError))
      } catch {
        self.receive(
          .persistFailed(error: AuthError(code: "PERSIST_FAILED", message: "\(error)")))
      }
      self.finished()
    }
  }

  private func track(_ body: @escaping @Sendable () async -> Void) {
    inFlight += 1
    Task {
      await body()
      self.finished()
    }
  }

  private func finished() {
    inFlight -= 1
    if inFlight == 0 {
      let waiters = idleWaiters
      idleWaiters = []
      for w in waiters { w.resume() }
    }
  }

  private func cancelTokenRequest(_ id: TokenRequestID) {
    tokenWaiters.removeValue(forKey: id)?.resume(throwing: CancellationError())
  }

  private func subscriberID() -> Int {
    nextSubscriber += 1
    return nextSubscriber
  }

  private func unsubscribeState(_ id: Int) { stateSubscribers[id] = nil }
  private func unsubscribeNotification(_ id: Int) { notificationSubscribers[id] = nil }
}
