import AuthFlowCore
import AuthFlowRuntime
import Foundation

/// Holds tasks until released.
actor Gate {
  private var open = false
  private var waiting: [CheckedContinuation<Void, Never>] = []

  func wait() async {
    if open { return }
    await withCheckedContinuation { waiting.append($0) }
  }

  func release() {
    open = true
    for w in waiting { w.resume() }
    waiting = []
  }
}

/// The public `TestInterpreter` as these tests use it: refreshes are held until released and
/// then succeed with a new token that lives an hour on `clock`.
func heldRefreshInterpreter(clock: any AuthClock = SystemClock()) async -> TestInterpreter {
  let interpreter = TestInterpreter()
  await interpreter.hold(.refreshToken)
  await interpreter.answer(.refreshToken) { _ in
    .refreshed(idToken: "id-new", refreshToken: "rt-new", expiresIn: 3600, clock: clock)
  }
  return interpreter
}

extension RefreshAnswer {
  /// New tokens that live `expiresIn` seconds from `clock`'s now (the wall clock by default):
  /// what an interpreter stamps when the answer arrives.
  static func refreshed(
    idToken: String, refreshToken: String, expiresIn: Double,
    clock: any AuthClock = SystemClock()
  ) -> RefreshAnswer {
    .tokenRefreshed(
      Tokens(idToken: idToken, refreshToken: refreshToken, expiresAt: clock.now() + expiresIn))
  }
}

enum Sessions {
  static let t0 = Instant(1_767_258_000)

  static func permanent(expiresIn: Double, at now: Instant = t0) -> Session {
    Session(
      uid: "user-1", anonymous: false, providers: ["google.com"], email: "mike@example.com",
      idToken: "id-old", refreshToken: "rt-old", expiresAt: now + expiresIn)
  }
}

/// Polls `condition` (up to about five seconds).
func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
  for _ in 0..<500 {
    if await condition() { return true }
    try? await Task.sleep(nanoseconds: 10_000_000)
  }
  return false
}
