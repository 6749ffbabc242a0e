// Time arithmetic in one place. Every instant the machine computes is finite and between the
// Unix epoch and the end of year 9999; a duration from outside (a server's `expiresIn`, a
// stored expiry, a policy value) is checked before it is used, so no input can make the machine
// schedule a timer at infinity, in the past, or at "not a number".

extension Instant {
  /// The earliest instant the machine works with: 1970-01-01T00:00:00Z.
  public static let earliest = Instant(0)
  /// The latest: 9999-12-31T23:59:59Z.
  public static let latest = Instant(253_402_300_799)
  /// The longest duration any lifetime or delay may have: 100 years, in seconds.
  public static let longestDuration: Double = 3_155_760_000

  /// Whether this instant is finite and between `earliest` and `latest`.
  public var isValid: Bool { seconds >= Self.earliest.seconds && seconds <= Self.latest.seconds }

  /// This instant moved into `earliest...latest` (not a number becomes `earliest`).
  public var clamped: Instant {
    if seconds.isNaN || seconds < Self.earliest.seconds { return .earliest }
    if seconds > Self.latest.seconds { return .latest }
    return self
  }

  /// Whether `seconds` is a duration the machine accepts: finite, not negative, at most
  /// `longestDuration`.
  public static func isValidDuration(_ seconds: Double) -> Bool {
    seconds >= 0 && seconds <= longestDuration
  }

  /// `seconds` moved into `0...longestDuration` (not a number becomes `fallback`).
  public static func clampedDuration(_ seconds: Double, fallback: Double = 0) -> Double {
    if seconds.isNaN { return fallback }
    return min(max(seconds, 0), longestDuration)
  }

  /// Whole nanoseconds from `self` to `deadline`, for a sleep: 0 when it has passed, and never
  /// more than `longestDuration` (a timer in year 9999 sleeps for a century, then fires early,
  /// and the machine arms it again).
  public func nanoseconds(until deadline: Instant) -> UInt64 {
    let seconds = Self.clampedDuration(deadline.seconds - self.seconds)
    return UInt64(seconds * 1_000_000_000)
  }
}

extension Session {
  /// Whether the session's times are ones the machine can work with at `now`: a valid instant,
  /// at most `longestDuration` ahead (a Firebase ID token lives an hour; a century leaves room
  /// for any clock change but not for a corrupt or forged file).
  public func hasValidTimes(at now: Instant) -> Bool {
    expiresAt.isValid && expiresAt - now <= Instant.longestDuration
  }
}

extension Policy {
  /// The policy with every number in its documented range: a value that is not a number
  /// becomes its default, and `backoffCap` is never below `backoffBase`.
  public var sanitized: Policy {
    let defaults = Policy()
    var p = self
    p.refreshMargin = Instant.clampedDuration(refreshMargin, fallback: defaults.refreshMargin)
    p.backoffBase = max(1, Instant.clampedDuration(backoffBase, fallback: defaults.backoffBase))
    p.backoffCap = max(
      p.backoffBase, Instant.clampedDuration(backoffCap, fallback: defaults.backoffCap))
    p.throttledDelay = Instant.clampedDuration(
      throttledDelay, fallback: defaults.throttledDelay)
    return p
  }
}

extension Answer {
  /// The answer as the machine may use it: a session or tokens whose times are not usable (not
  /// a valid instant, more than 100 years ahead, tokens already expired) are a protocol
  /// violation (`UNEXPECTED_RESPONSE`), and a stored session with such times is corrupt. Every
  /// other answer is unchanged.
  func validated(now: Instant) -> Answer {
    let unusable = AuthError(
      code: AuthError.unexpectedResponse.code, message: "expiry out of range")
    if let s = signedInSession, !s.hasValidTimes(at: now) {
      return .failed(kind, id, unusable)
    }
    if case .some(.some(let s)) = loadedSession, !s.hasValidTimes(at: now) {
      return .failed(
        kind, id,
        AuthError(code: AuthError.corruptSession.code, message: "expiry out of range"))
    }
    if let t = refreshedTokens,
      !t.expiresAt.isValid || t.expiresAt < now || t.expiresAt - now > Instant.longestDuration
    {
      return .failed(kind, id, unusable)
    }
    return self
  }
}
