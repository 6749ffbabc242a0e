import AuthFlowCore

/// Writes values in scenario-file form (the inverse of the scenario decoder).
public enum ScenarioEncoding {
  /// An intent as a `send` value.
  public static func intent(_ intent: Intent) -> JSONValue {
    readable(JSONValue.encoding(intent))
  }

  /// An answer as a `with` value (sessions with `expiresAt` in ISO 8601).
  public static func result(_ answer: Answer) -> JSONValue {
    if case .loadSession(_, .sessionLoaded(nil)) = answer {
      return .object([("sessionLoaded", .object([("session", .null)]))])
    }
    return readable(JSONValue.encoding(answer.outcome))
  }

  /// A session (or none) as a `storeChanged` value: `{"session": …}`.
  public static func storeChanged(_ session: Session?) -> JSONValue {
    guard let session else { return .object([("session", .null)]) }
    if case .object(let outer) = result(.loadSession(0, .sessionLoaded(session: session))),
      let inner = outer.first?.value
    {
      return inner
    }
    return .object([("session", .null)])
  }

  /// A policy as a `config` value.
  public static func config(_ policy: Policy) -> JSONValue {
    .object([
      ("migration", .string(policy.migration.rawValue)),
      ("refreshMargin", .number(policy.refreshMargin)),
      ("backoffBase", .number(policy.backoffBase)), ("backoffCap", .number(policy.backoffCap)),
      ("throttledDelay", .number(policy.throttledDelay)),
    ])
  }

  /// ISO 8601 text for an instant.
  public static func time(_ instant: Instant) -> JSONValue { .string(ISOTime.format(instant)) }

  static func readable(_ value: JSONValue) -> JSONValue { Render.readableTimes(value) }
}
