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

/// An interpreter that answers from closures, counts requests, and can hold refreshes.
actor TestInterpreter: AuthInterpreter {
  private(set) var counts: [String: Int] = [:]
  let refreshGate = Gate()
  var refreshAnswer: RequestResult = .tokenRefreshed(
    idToken: "id-new", refreshToken: "rt-new", expiresIn: 3600)
  var answers: [String: RequestResult] = [:]

  func set(_ name: String, _ result: RequestResult) { answers[name] = result }

  func perform(_ request: Request) async -> RequestResult {
    counts[request.name, default: 0] += 1
    if case .refreshToken = request {
      await refreshGate.wait()
      return refreshAnswer
    }
    return answers[request.name] ?? .requestFailed(error: AuthError(code: "NETWORK"))
  }

  func count(_ name: String) -> Int { counts[name, default: 0] }
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
