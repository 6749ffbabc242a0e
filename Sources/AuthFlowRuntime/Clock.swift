import AuthFlowCore
import Foundation

/// Where the runtime gets time: wall-clock seconds for token expiry, and sleeping for timers.
public protocol AuthClock: Sendable {
  /// The current wall-clock time.
  func now() -> Instant
  /// Returns at `deadline` (or throws `CancellationError` when the task is cancelled).
  func sleep(until deadline: Instant) async throws
}

/// The system's clock: `Date` for the time, `Task.sleep` for waiting.
public struct SystemClock: AuthClock {
  /// The system clock.
  public init() {}

  public func now() -> Instant { Instant(Date().timeIntervalSince1970) }

  public func sleep(until deadline: Instant) async throws {
    // Saturating: a deadline in year 9999 (or not a number) never traps; a timer that wakes
    // before its moment is re-armed by the machine.
    let nanoseconds = now().nanoseconds(until: deadline)
    if nanoseconds > 0 { try await Task.sleep(nanoseconds: nanoseconds) }
  }
}

/// A clock that moves only when a test says so; sleepers wake as time passes their deadline.
public final class ManualClock: AuthClock, @unchecked Sendable {
  private let lock = NSLock()
  private var current: Instant
  private var sleepers: [Int: (deadline: Instant, continuation: CheckedContinuation<Void, Error>)] =
    [:]
  private var nextSleeper = 0

  /// A clock stopped at `start`.
  public init(start: Instant = Instant(1_767_258_000)) { current = start }

  public func now() -> Instant { lock.withLock { current } }

  /// How many tasks are sleeping on this clock.
  public var sleeperCount: Int { lock.withLock { sleepers.count } }

  public func sleep(until deadline: Instant) async throws {
    let id: Int = lock.withLock {
      nextSleeper += 1
      return nextSleeper
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
        let resumeNow: Bool = lock.withLock {
          if deadline <= current || Task.isCancelled { return true }
          sleepers[id] = (deadline, c)
          return false
        }
        if resumeNow {
          if Task.isCancelled { c.resume(throwing: CancellationError()) } else { c.resume() }
        }
      }
    } onCancel: {
      let c = lock.withLock { sleepers.removeValue(forKey: id)?.continuation }
      c?.resume(throwing: CancellationError())
    }
  }

  /// Moves time forward and wakes every sleeper whose deadline has come.
  public func advance(by seconds: Double) {
    let due: [CheckedContinuation<Void, Error>] = lock.withLock {
      current = current + seconds
      let ready = sleepers.filter { $0.value.deadline <= current }
      for key in ready.keys { sleepers[key] = nil }
      return ready.sorted { $0.value.deadline < $1.value.deadline }.map(\.value.continuation)
    }
    for c in due { c.resume() }
  }
}
