import AuthFlowCore
import AuthFlowRuntime
import Foundation
import Testing

/// An interpreter that answers a sign-up and every refresh with a token the server says lives
/// for `expiresIn` seconds (stamped as an instant, as an interpreter does when the answer
/// arrives).
func hugeExpiryInterpreter(expiresIn: Double) async -> TestInterpreter {
  let interpreter = TestInterpreter()
  await interpreter.answer(.signUpAnonymously) { _ in
    .signedIn(
      session: Session(
        uid: "anon-1", anonymous: true, idToken: "id-1", refreshToken: "rt-1",
        expiresAt: Instant(Date().timeIntervalSince1970) + 3600))
  }
  await interpreter.answer(.refreshToken) { _ in
    .refreshed(idToken: "id-2", refreshToken: "rt-2", expiresIn: expiresIn)
  }
  return interpreter
}

@Suite("Regressions: input that used to crash")
struct HostileInputTests {
  @Test(
    "a server's huge or non-finite expiresIn never reaches the system clock",
    arguments: [99_999_999_999, 1e300, Double.infinity, Double.nan, -5])
  func hugeExpiresIn(expiresIn: Double) async throws {
    let runtime = AuthRuntime(
      interpreter: await hugeExpiryInterpreter(expiresIn: expiresIn), store: InMemorySessionStore(),
      clock: SystemClock())
    await runtime.start()
    await runtime.settled()
    await runtime.send(.signInAnonymouslyTapped)
    await runtime.settled()
    // The forced refresh is answered with the absurd lifetime: refused, the user stays.
    await #expect(throws: TokenUnavailable.self) { try await runtime.idToken(forceRefresh: true) }
    #expect(await runtime.state.name == "anonymous")
    #expect(try await runtime.idToken() == "id-1")
  }

  @Test(
    "a stored session with a huge expiry is corrupt: cleared and reported at launch, no crash",
    arguments: ["99999999999", "1e300", "-1", "253402300800"])
  func storedHugeExpiry(expiresAt: String) async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/session.json"
    let text =
      #"{"session":{"anonymous":false,"expiresAt":"# + expiresAt
      + #","idToken":"id-1","providers":["google.com"],"refreshToken":"rt-1","uid":"user-1"},"version":1}"#
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    let runtime = AuthRuntime(
      interpreter: await hugeExpiryInterpreter(expiresIn: 3600),
      store: FileSessionStore(path: path),
      clock: SystemClock())
    let notes = await runtime.notifications()
    await runtime.start()
    await runtime.settled()
    #expect(await runtime.state == .signedOut)
    #expect(try await FileSessionStore(path: path).load() == nil, "the corrupt file is cleared")
    var iterator = notes.makeAsyncIterator()
    guard case .error(let error)? = await iterator.next() else {
      Issue.record("no notification")
      return
    }
    #expect(error.code == "CORRUPT_SESSION")
  }

  @Test(
    "the system clock sleeps until any instant without trapping",
    arguments: [1e300, Double.infinity, Double.nan, -1e300])
  func clockSaturates(seconds: Double) async {
    let sleeper = Task { try await SystemClock().sleep(until: Instant(seconds)) }
    try? await Task.sleep(nanoseconds: 20_000_000)
    sleeper.cancel()
    // A past or "not a number" deadline returns at once; a far one is cancelled: either way,
    // no Double-to-UInt64 trap.
    _ = await sleeper.result
  }
}
