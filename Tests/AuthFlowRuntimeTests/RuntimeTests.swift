import AuthFlowCore
import AuthFlowRuntime
import Foundation
import Testing

@Suite("AuthRuntime")
struct RuntimeTests {
  @Test("restores the stored session; each state subscriber gets the current state first")
  func restore() async throws {
    let clock = ManualClock()
    let runtime = AuthRuntime(
      interpreter: TestInterpreter(),
      store: InMemorySessionStore(Sessions.permanent(expiresIn: 3600)),
      clock: clock)
    var early = await runtime.states().makeAsyncIterator()
    #expect(await early.next() == .starting)
    await runtime.start()
    await runtime.settled()
    #expect(await runtime.state.name == "firebaseAuthenticated")
    var late = await runtime.states().makeAsyncIterator()
    #expect(await late.next()?.name == "firebaseAuthenticated")
    #expect(await early.next()?.name == "restoring")
    #expect(try await runtime.idToken() == "id-old")
  }

  @Test("1,000 concurrent idToken() calls on an expiring session: one refresh, one token for all")
  func singleFlight() async throws {
    let clock = ManualClock()
    let interpreter = await heldRefreshInterpreter(clock: clock)
    let runtime = AuthRuntime(
      interpreter: interpreter, store: InMemorySessionStore(Sessions.permanent(expiresIn: 3600)),
      clock: clock)
    await runtime.start()
    await runtime.settled()
    clock.advance(by: 3350)  // 250 s before expiry: inside the 300 s margin
    let tokens = try await withThrowingTaskGroup(of: String.self) { group in
      for _ in 0..<1000 { group.addTask { try await runtime.idToken() } }
      #expect(await eventually { await runtime.waitingForToken == 1000 })
      await interpreter.release(.refreshToken)
      var out: [String] = []
      for try await t in group { out.append(t) }
      return out
    }
    #expect(tokens.count == 1000)
    #expect(Set(tokens) == ["id-new"])
    #expect(await interpreter.count(.refreshToken) == 1)
  }

  @Test("a cancelled caller gets CancellationError; the refresh goes on for the others")
  func cancellation() async throws {
    let interpreter = await heldRefreshInterpreter()
    let runtime = AuthRuntime(
      interpreter: interpreter, store: InMemorySessionStore(Sessions.permanent(expiresIn: 3600)),
      clock: ManualClock())
    await runtime.start()
    await runtime.settled()
    let cancelled = Task { try await runtime.idToken(forceRefresh: true) }
    let patient = Task { try await runtime.idToken(forceRefresh: true) }
    #expect(await eventually { await runtime.waitingForToken == 2 })
    cancelled.cancel()
    await #expect(throws: CancellationError.self) { try await cancelled.value }
    await interpreter.release(.refreshToken)
    #expect(try await patient.value == "id-new")
    #expect(await interpreter.count(.refreshToken) == 1)
  }

  @Test("the refresh timer fires on the injected clock at expiry minus the margin")
  func timer() async {
    let interpreter = await heldRefreshInterpreter()
    await interpreter.release(.refreshToken)
    let clock = ManualClock()
    let store = InMemorySessionStore(Sessions.permanent(expiresIn: 3600))
    let runtime = AuthRuntime(interpreter: interpreter, store: store, clock: clock)
    await runtime.start()
    await runtime.settled()
    #expect(await eventually { clock.sleeperCount == 1 })
    clock.advance(by: 3299)
    try? await Task.sleep(nanoseconds: 50_000_000)
    #expect(await interpreter.count(.refreshToken) == 0)
    clock.advance(by: 1)
    #expect(await eventually { await interpreter.count(.refreshToken) == 1 })
    #expect(await eventually { await store.load()?.idToken == "id-new" })
  }

  @Test("without a user, idToken() throws the machine's reason")
  func noUser() async {
    let runtime = AuthRuntime(
      interpreter: TestInterpreter(), store: InMemorySessionStore(), clock: ManualClock())
    await runtime.start()
    await runtime.settled()
    await #expect(throws: TokenUnavailable(error: .notSignedIn)) { try await runtime.idToken() }
  }

  @Test("an anonymous sign-in is written to the store; sign-out clears it")
  func persistence() async {
    let interpreter = await heldRefreshInterpreter()
    let anonymous = Session(
      uid: "anon-1", anonymous: true, idToken: "id-a", refreshToken: "rt-a",
      expiresAt: Sessions.t0 + 3600)
    await interpreter.answerAlways(.signUpAnonymously, .signedIn(session: anonymous))
    let store = InMemorySessionStore()
    let runtime = AuthRuntime(interpreter: interpreter, store: store, clock: ManualClock())
    await runtime.start()
    await runtime.settled()
    await runtime.send(.signInAnonymouslyTapped)
    #expect(await eventually { await store.load() == anonymous })
    await runtime.send(.signOutTapped(discardAnonymousData: true))
    await runtime.settled()
    #expect(await store.load() == nil)
    #expect(await runtime.state == .signedOut)
  }

  @Test("a hostile refresh answer is a typed error and the user stays signed in")
  func hostile() async throws {
    let interpreter = await heldRefreshInterpreter()
    await interpreter.release(.refreshToken)
    let runtime = AuthRuntime(
      interpreter: interpreter, store: InMemorySessionStore(Sessions.permanent(expiresIn: 3600)),
      clock: ManualClock())
    await runtime.start()
    await runtime.settled()
    await interpreter.answerAlways(
      .refreshToken, .requestFailed(error: AuthError(code: "UNEXPECTED_RESPONSE")))
    await #expect(throws: TokenUnavailable(error: AuthError(code: "UNEXPECTED_RESPONSE"))) {
      try await runtime.idToken(forceRefresh: true)
    }
    #expect(await runtime.state.name == "firebaseAuthenticated")
  }
}

extension TestInterpreter {
  /// Answers every request of `queue`'s kind with `answer`.
  func answerAlways<A: Sendable>(_ queue: Queue<A>, _ answer: A) {
    self.answer(queue) { _ in answer }
  }
}

@Suite("AuthRuntime lifetime")
struct LifetimeTests {
  @Test("a runtime the app lets go of is freed, even with its refresh timer scheduled")
  func freed() async {
    let clock = ManualClock()
    let box = WeakBox()
    do {
      let runtime = AuthRuntime(
        interpreter: TestInterpreter(),
        store: InMemorySessionStore(Sessions.permanent(expiresIn: 3600)), clock: clock)
      box.value = runtime
      await runtime.start()
      await runtime.settled()
      #expect(await eventually { clock.sleeperCount == 1 })
    }
    #expect(await eventually { box.value == nil })
    #expect(await eventually { clock.sleeperCount == 0 })
  }
}

/// Holds a runtime weakly, to see it freed.
final class WeakBox: @unchecked Sendable {
  weak var value: AuthRuntime?
}
