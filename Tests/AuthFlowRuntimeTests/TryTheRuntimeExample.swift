import AuthFlowCore
import AuthFlowRuntime
import Testing

@Test("an anonymous sign-in, then an ID token")
func anonymousSignIn() async throws {
  let interpreter = TestInterpreter()
  await interpreter.answer(
    .signUpAnonymously,
    with: .signedIn(
      session: Session(
        uid: "anon-1", anonymous: true, idToken: "id-1", refreshToken: "rt-1",
        expiresAt: Instant(1_767_261_600))))
  let clock = ManualClock(start: Instant(1_767_258_000))
  let runtime = AuthRuntime(interpreter: interpreter, store: InMemorySessionStore(), clock: clock)
  await runtime.start()
  await runtime.send(.signInAnonymouslyTapped)
  await runtime.settled()
  #expect(await runtime.state.name == "anonymous")
  #expect(try await runtime.idToken() == "id-1")
}
