import AuthFlowCore
import Foundation

/// Drives the machine by hand: feeds it events and carries out every effect it asks for.
/// (Most apps use `AuthRuntime`, which does all of this and more; see Docs/Embedding.md.)
@MainActor
final class SignInDriver {
  private var machine = AuthMachine(policy: Policy(migration: .ask))
  private let interpreter: any AuthInterpreter
  private var storedSession: Session?  // a real app keeps it in the keychain
  private var timers: [TimerID: Task<Void, Never>] = [:]
  private var tokenCallers: [TokenRequestID: (TokenResult) -> Void] = [:]
  private var lastTokenRequest = 0
  private var inFlight = 0  // requests and store reads not answered yet
  private var settledWaiters: [CheckedContinuation<Void, Never>] = []
  var onNotification: (AuthNotification) -> Void = { _ in }
  var state: AuthState { machine.state }

  init(interpreter: any AuthInterpreter) { self.interpreter = interpreter }

  func launch() { send(.intent(.appLaunched)) }

  /// Returns once every request the machine sent has been answered (a test's or a script's
  /// "wait until it settles"; timers may still be pending).
  func settled() async {
    if inFlight == 0 { return }
    await withCheckedContinuation { settledWaiters.append($0) }
  }

  /// Asks for an ID token; `answer` gets it (or why there is none) exactly once.
  func idToken(_ answer: @escaping (TokenResult) -> Void) {
    lastTokenRequest += 1
    let id = TokenRequestID(lastTokenRequest)
    tokenCallers[id] = answer
    send(.intent(.idTokenRequested(requestId: id, forceRefresh: false)))
  }

  func send(_ event: Event) {
    let now = Instant(Date().timeIntervalSince1970)
    for effect in machine.handle(event, now: now) {
      switch effect {
      case .request(let id, let request):  // to the world; the answer comes back as an event
        inFlight += 1
        Task { answered(.answer(await interpreter.perform(request, id: id))) }
      case .loadSession(let id):
        let stored = storedSession
        inFlight += 1
        Task { answered(.answer(.loadSession(id, .sessionLoaded(session: stored)))) }
      case .persistSession(let session): storedSession = session
      case .clearSession: storedSession = nil
      case .scheduleTimer(let timer, let at):
        timers[timer]?.cancel()
        timers[timer] = Task {
          try? await Task.sleep(nanoseconds: now.nanoseconds(until: at))
          if !Task.isCancelled { send(.timerFired(timer: timer)) }
        }
      case .cancelTimer(let timer): timers.removeValue(forKey: timer)?.cancel()
      case .deliverIDToken(let ids, let result):
        for id in ids { tokenCallers.removeValue(forKey: id)?(result) }
      case .signOutProvider(let provider, let revoke):
        Task { await interpreter.signOut(of: provider, revoke: revoke) }
      case .notify(let notification): onNotification(notification)
      }
    }
  }

  private func answered(_ event: Event) {
    inFlight -= 1
    send(event)  // may send more requests
    if inFlight == 0 {
      settledWaiters.forEach { $0.resume() }
      settledWaiters.removeAll()
    }
  }
}
