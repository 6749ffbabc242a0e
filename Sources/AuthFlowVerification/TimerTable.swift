import AuthFlowCore

/// The machine's scheduled timers: at most one per name (a new schedule replaces the old).
public struct TimerTable: Hashable, Sendable {
  /// When `tokenRefresh` fires, if scheduled.
  public var tokenRefresh: Instant?
  /// When `restoreRetry` fires, if scheduled.
  public var restoreRetry: Instant?

  /// An empty table.
  public init() {}

  /// The time a timer is scheduled for.
  public subscript(timer: TimerID) -> Instant? {
    get { timer == .tokenRefresh ? tokenRefresh : restoreRetry }
    set {
      if timer == .tokenRefresh { tokenRefresh = newValue } else { restoreRetry = newValue }
    }
  }

  /// True when nothing is scheduled.
  public var isEmpty: Bool { tokenRefresh == nil && restoreRetry == nil }

  /// The earliest scheduled timer at or before `limit`; ties fire in name order.
  public func earliest(upTo limit: Instant = Instant(.infinity)) -> (TimerID, Instant)? {
    var best: (TimerID, Instant)? = nil
    for timer in [TimerID.restoreRetry, .tokenRefresh] {
      guard let at = self[timer], at <= limit else { continue }
      if best == nil || at < best!.1 { best = (timer, at) }
    }
    return best
  }

  /// Every time shifted by `f`.
  public func map(_ f: (Instant) -> Instant) -> TimerTable {
    var t = TimerTable()
    t.tokenRefresh = tokenRefresh.map(f)
    t.restoreRetry = restoreRetry.map(f)
    return t
  }
}
