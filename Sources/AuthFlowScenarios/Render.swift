import AuthFlowCore

/// Text forms of events, effects and sessions for traces, diffs and reports.
public enum Render {
  /// `name` alone, or `name {payload}` when the payload has fields.
  static func tagged(_ name: String, _ payload: JSONValue) -> String {
    if case .object(let m) = payload, m.isEmpty { return name }
    return name + " " + payload.compactText
  }

  /// A tagged JSON value (`{"name": {…}}`) as `name {…}`, redacted, times in ISO 8601.
  static func tagged(_ value: JSONValue, _ redactor: Redactor) -> String {
    let (name, payload) = Matching.split(value)
    return tagged(name, readableTimes(redactor.apply(payload)))
  }

  /// Keys whose numbers are instants.
  static let timeKeys: Set<String> = ["at", "expiresAt", "until", "retryAt"]

  /// The value with instants written as ISO 8601 times.
  static func readableTimes(_ value: JSONValue) -> JSONValue {
    switch value {
    case .object(let members):
      return .object(
        members.map { m in
          if timeKeys.contains(m.key), case .number(let n) = m.value {
            return (m.key, .string(ISOTime.format(Instant(n))))
          }
          return (m.key, readableTimes(m.value))
        })
    case .array(let items): return .array(items.map(readableTimes))
    default: return value
    }
  }

  /// An event: intents by name, results as `#id result {…}`, timers as `timerFired(name)`.
  public static func event(_ event: Event, _ redactor: Redactor) -> String {
    switch event {
    case .intent(let intent): return tagged(JSONValue.encoding(intent), redactor)
    case .answer(let answer):
      return "#\(answer.id) " + tagged(ScenarioEncoding.result(answer), redactor)
    case .timerFired(let timer): return "timerFired(\(timer.rawValue))"
    case .persistFailed(let error): return "persistFailed(\(error.code))"
    case .storeChanged(let session):
      return "storeChanged(\(session.map { "uid " + $0.uid } ?? "cleared"))"
    }
  }

  /// An effect as `name {…}`, redacted.
  public static func effect(_ effect: Effect, _ redactor: Redactor) -> String {
    tagged(JSONValue.encoding(effect), redactor)
  }

  /// A transition as `state --event--> state [effects]`, stamped with virtual seconds.
  public static func transition(_ t: Transition, clock: Instant, _ redactor: Redactor) -> String {
    let effects = t.effects.map { effect($0, redactor) }.joined(separator: ", ")
    return
      "[+\(JSONValue.format(t.at - clock))s] \(t.from) --\(event(t.event, redactor))--> \(t.to) [\(effects)]"
  }

  /// What a step does, for failure headers.
  static func action(_ action: Step.Action, _ redactor: Redactor) -> String {
    switch action {
    case .send(let intent): return "send " + tagged(JSONValue.encoding(intent), redactor)
    case .sendWithCaptures(let json): return "send " + tagged(json, redactor)
    case .respond(let to, let id, let with):
      return "respond to \(to)\(id.map { " #\($0)" } ?? "") with "
        + tagged(ScenarioEncoding.result(with.answer), redactor)
    case .fire(let timer): return "fire \(timer.rawValue)"
    case .advance(let seconds): return "advance \(JSONValue.format(seconds))s"
    case .relaunch(let lost): return lost ? "relaunch (the last write lost)" : "relaunch"
    case .storeChanged(let t):
      if case .loadSession(_, .sessionLoaded(let s?)) = t.answer {
        return "storeChanged (uid \(s.uid))"
      }
      return "storeChanged (cleared)"
    }
  }

  /// A session in scenario-file form: `expiresAt` as ISO 8601 and `expiresIn` from `now`.
  public static func sessionJSON(_ s: Session, now: Instant) -> JSONValue {
    var members: [(key: String, value: JSONValue)] = [
      ("uid", .string(s.uid)), ("anonymous", .bool(s.anonymous)),
      ("providers", .array(s.providers.map { .string($0.rawValue) })),
    ]
    if let email = s.email { members.append(("email", .string(email))) }
    members += [
      ("idToken", .string(s.idToken)), ("refreshToken", .string(s.refreshToken)),
      ("expiresAt", .string(ISOTime.format(s.expiresAt))),
      ("expiresIn", .number(s.expiresAt - now)),
    ]
    if let c = s.pendingCleanup {
      var cleanup: [(key: String, value: JSONValue)] = [
        ("uid", .string(c.uid)), ("idToken", .string(c.idToken)), ("dataMoved", .bool(c.dataMoved)),
      ]
      if let r = c.refreshToken { cleanup.append(("refreshToken", .string(r))) }
      if let at = c.expiresAt { cleanup.append(("expiresAt", .string(ISOTime.format(at)))) }
      members.append(("pendingCleanup", .object(cleanup)))
    }
    if let name = s.displayName { members.append(("displayName", .string(name))) }
    members.append(("emailVerified", .bool(s.emailVerified)))
    if let url = s.photoURL { members.append(("photoURL", .string(url))) }
    members.append(
      (
        "secondFactors",
        .array(
          s.secondFactors.map { f in
            var fields: [(key: String, value: JSONValue)] = [
              ("id", .string(f.id)), ("kind", .string(f.kind.rawValue)),
            ]
            if let n = f.displayName { fields.append(("displayName", .string(n))) }
            if let h = f.phoneHint { fields.append(("phoneHint", .string(h))) }
            return .object(fields)
          })
      ))
    if let d = s.pendingDeletion {
      members.append(
        (
          "pendingDeletion",
          .object([
            ("revoked", .array(d.revoked.map { .string($0.rawValue) })),
            ("deleting", .bool(d.deleting)),
          ])
        ))
    }
    return .object(members)
  }

  /// The members of `actual` whose keys `pattern` names (to show a focused diff).
  static func only(keysOf pattern: JSONValue, in actual: JSONValue) -> JSONValue {
    guard case .object(let keys) = pattern, case .object(let members) = actual else {
      return actual
    }
    return .object(keys.compactMap { k in members.first { $0.key == k.key } })
  }
}
