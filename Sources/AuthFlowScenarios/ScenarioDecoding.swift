import AuthFlowCore
import Foundation

extension Scenario {
  /// The top-level keys of a scenario file.
  public static let topLevelKeys = Declarations.topLevel.map(\.name)

  /// Loads and checks a scenario file.
  public static func load(path: String) throws(ScenarioError) -> Scenario {
    guard let data = FileManager.default.contents(atPath: path) else {
      var isDirectory: ObjCBool = false
      let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
      let why =
        !exists ? "no such file" : isDirectory.boolValue ? "is a directory" : "cannot be read"
      throw ScenarioError(file: path, kind: .unreadable, message: why)
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw ScenarioError(file: path, kind: .unreadable, message: "is not UTF-8 text")
    }
    return try parse(text, file: path)
  }

  /// Parses and checks scenario JSON text; `file` names it in errors.
  public static func parse(_ text: String, file: String) throws(ScenarioError) -> Scenario {
    let json: JSONValue
    do {
      json = try JSONValue.parse(text)
    } catch {
      throw ScenarioError(
        file: file, kind: .syntax(line: error.line, column: error.column),
        message: "invalid JSON: \(error.message)")
    }
    do {
      var scenario = try JSONReader(file: file).scenario(json)
      scenario.spelled = json.strings
      return scenario
    } catch let error as ScenarioError {
      throw error
    } catch {
      throw ScenarioError(file: file, kind: .invalid(path: ""), message: "\(error)")
    }
  }
}

extension JSONReader {
  func scenario(_ json: JSONValue) throws -> Scenario {
    let f = try object(json, "", Declarations.topLevel, what: "a scenario object")
    var policy = Policy()
    if let config = f["config"] {
      let c = try object(config, "config", Declarations.config)
      if let p = c["providers"] {
        for (id, traits) in try object(p, "config.providers", allowed: nil) {
          let path = join("config.providers", id)
          let pid = try provider(.string(id), path)
          policy.providers.set(
            pid, try self.traits(traits, path, start: ProviderCatalog.builtIn[pid]))
        }
      }
      if let m = c["migration"] {
        policy.migration = try enumValue(m, "config.migration", MigrationPolicy.self)
      }
      if let v = c["refreshMargin"] {
        policy.refreshMargin = try duration(v, "config.refreshMargin")
      }
      if let v = c["backoffBase"] {
        policy.backoffBase = try duration(v, "config.backoffBase", min: 1)
      }
      if let v = c["backoffCap"] {
        policy.backoffCap = try duration(v, "config.backoffCap", min: 1)
      }
      if let v = c["throttledDelay"] {
        policy.throttledDelay = try duration(v, "config.throttledDelay")
      }
    }
    var script: [String: [ScriptEntry]] = [:]
    if let s = f["script"] {
      let allowed = Vocabulary.requestEffects + Vocabulary.writeEffects
      let entries = try object(s, "script", allowed: allowed)
      for (effect, list) in entries {
        let p = "script.\(effect)"
        script[effect] = try array(list, p).enumerated().map { i, entry in
          try scriptEntry(entry, "\(p)[\(i)]", effect: effect)
        }
      }
    }
    let steps = try array(f["steps"], "steps").enumerated().map { i, s in
      try step(s, "steps[\(i)]")
    }
    if steps.isEmpty { throw fail("steps", "a scenario needs at least one step") }
    return Scenario(
      name: try string(f["name"], "name"),
      description: try optionalString(f["description"], "description") ?? "",
      clock: f["clock"] == nil ? Instant(0) : try time(f["clock"], "clock"),
      policy: policy, script: script, steps: steps,
      allowPending: try bool(f["allowPending"], "allowPending", default: false),
      allowUnused: try bool(f["allowUnused"], "allowUnused", default: false),
      allowWrongKinds: try bool(f["allowWrongKinds"], "allowWrongKinds", default: false),
      strict: try bool(f["strict"], "strict", default: false), file: file)
  }

  /// A provider's traits in `config.providers`: each field optional, the defaults `start`'s (a
  /// built-in provider's own, else a generic OpenID Connect provider's).
  func traits(_ value: JSONValue, _ p: String, start: ProviderTraits) throws -> ProviderTraits {
    let f = try object(value, p, Declarations.traits, what: "an object of provider traits")
    var t = start
    if let v = f["credential"] {
      t.credential = try enumValue(v, join(p, "credential"), ProviderTraits.CredentialKind.self)
    }
    if let v = f["nonce"] {
      let s = try string(v, join(p, "nonce"))
      guard let rule = ProviderTraits.NonceRule(spelling: s) else {
        throw fail(
          join(p, "nonce"),
          "unknown value \"\(s)\"; "
            + Suggest.hint(for: s, among: ProviderTraits.NonceRule.spellings))
      }
      t.nonce = rule
    }
    if let v = f["afterLinkConflict"] {
      t.afterLinkConflict = try enumValue(
        v, join(p, "afterLinkConflict"), ProviderTraits.ConflictRule.self)
    }
    if let v = f["revocation"] {
      t.revocation = try enumValue(v, join(p, "revocation"), ProviderTraits.RevocationRule.self)
    }
    t.sdkSignOut = try bool(f["sdkSignOut"], join(p, "sdkSignOut"), default: start.sdkSignOut)
    t.givesNameOnce = try bool(
      f["givesNameOnce"], join(p, "givesNameOnce"), default: start.givesNameOnce)
    return t
  }

  func scriptEntry(_ value: JSONValue, _ p: String, effect: String) throws -> ScriptEntry {
    if Vocabulary.writeEffects.contains(effect) {
      if value == .string("ok") { return .written }
      let (_, payload, pp) = try tagged(
        value, p, kind: "write outcome", names: ["persistFailed"], bareAllowed: false)
      let f = try object(payload, pp, allowed: ["error"], required: ["error"])
      return .persistFailed(try error(f["error"]!, join(pp, "error")))
    }
    if value == .string("pending") { return .pending }
    if case .string(let s) = value,
      AnswerName(rawValue: s).map({ !Vocabulary.fields($0).isEmpty }) ?? true
    {
      throw fail(p, "unknown script entry \"\(s)\"; use \"pending\" or a result object")
    }
    guard let kind = Vocabulary.requestKind(effect) else {
      throw fail(p, "\"\(effect)\" is not a request effect")
    }
    return .answer(try result(value, p, kind: kind))
  }

  /// The step actions, as an error message lists them.
  static let stepKindList =
    Declarations.actions.dropLast().map { "\"\($0)\"" }.joined(separator: ", ") + " or \""
    + (Declarations.actions.last ?? "") + "\""

  func step(_ value: JSONValue, _ p: String) throws -> Step {
    let kinds = Declarations.actions
    let f = try object(value, p, Declarations.step)
    let actions = kinds.filter { f[$0] != nil }
    guard actions.count == 1 else {
      throw fail(
        p,
        actions.isEmpty
          ? "a step needs one of " + Self.stepKindList
          : "a step takes exactly one of " + Self.stepKindList + "; found "
            + actions.joined(separator: " and "))
    }
    let action: Step.Action
    switch actions[0] {
    case "send":
      let sent = try intent(f["send"]!, join(p, "send"))
      action = f["send"]!.namesCaptures ? .sendWithCaptures(f["send"]!) : .send(sent)
    case "respond":
      let rp = join(p, "respond")
      let r = try object(f["respond"]!, rp, Declarations.respond)
      let to = try string(r["to"], join(rp, "to"))
      guard Vocabulary.requestEffects.contains(to) else {
        throw fail(
          join(rp, "to"),
          "\"\(to)\" is not a request effect; "
            + Suggest.hint(for: to, among: Vocabulary.requestEffects))
      }
      let id = try r["requestId"].map { RequestID(try integer($0, join(rp, "requestId"))) }
      guard let kind = Vocabulary.requestKind(to) else {
        throw fail(join(rp, "to"), "\"\(to)\" is not a request effect")
      }
      action = .respond(
        to: to, requestId: id, with: try result(r["with"]!, join(rp, "with"), kind: kind))
    case "fire":
      action = .fire(try enumValue(f["fire"], join(p, "fire"), TimerID.self))
    case "storeChanged":
      // The same fields as a sessionLoaded result: {"session": {…} or null}.
      let template = try result(
        .object([("sessionLoaded", f["storeChanged"]!)]), join(p, "storeChanged"),
        kind: .loadSession)
      action = .storeChanged(template)
    case "relaunch":
      let rp = join(p, "relaunch")
      switch f["relaunch"]! {
      case .bool(true):
        action = .relaunch(lostLastWrite: false)
      case .object:
        let r = try object(f["relaunch"]!, rp, Declarations.relaunch)
        action = .relaunch(
          lostLastWrite: try bool(r["lostLastWrite"], join(rp, "lostLastWrite"), default: false))
      default:
        throw fail(rp, "expected true or {\"lostLastWrite\": true}")
      }
    default:
      action = .advance(seconds: try duration(f["advance"], join(p, "advance")))
    }
    let expect = try f["expect"].map { try expectation($0, join(p, "expect")) }
    return Step(action, expect: expect)
  }

  func expectation(_ value: JSONValue, _ p: String) throws -> Expectation {
    let f = try object(value, p, Declarations.expectation)
    var e = Expectation()
    if let s = f["state"] { e.state = try stateName(s, join(p, "state")) }
    if let path = f["path"] {
      e.path = try array(path, join(p, "path")).enumerated().map { i, s in
        try stateName(s, "\(p).path[\(i)]")
      }
    }
    if let list = f["effects"] {
      e.effects = try patterns(list, join(p, "effects"), Vocabulary.effects, "effect")
    }
    if let list = f["effectsInclude"] {
      e.effectsInclude = try patterns(list, join(p, "effectsInclude"), Vocabulary.effects, "effect")
    }
    if let list = f["effectsExclude"] {
      let names = Vocabulary.effects.map(\.name)
      e.effectsExclude = try strings(list, join(p, "effectsExclude")).enumerated().map { i, n in
        guard names.contains(n) else {
          throw fail(
            "\(p).effectsExclude[\(i)]",
            "unknown effect \"\(n)\"; \(Suggest.hint(for: n, among: names))")
        }
        return n
      }
    }
    if let s = f["session"] {
      if s == .null {
        e.session = SessionExpectation.none
      } else {
        let sp = join(p, "session")
        let fields = try object(
          s, sp, allowed: Vocabulary.sessionFields, what: "a session object or null")
        try checkSessionPattern(fields, sp)
        e.session = .fields(s)
      }
    }
    if let list = f["notifications"] {
      e.notifications = try patterns(
        list, join(p, "notifications"), Vocabulary.notifications, "notification")
    }
    return e
  }

  /// Checks the types of the session fields an expectation gives.
  func checkSessionPattern(_ fields: [String: JSONValue], _ p: String) throws {
    for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
      let fp = join(p, key)
      switch key {
      case "anonymous", "emailVerified": _ = try bool(value, fp, default: false)
      case "providers": _ = try strings(value, fp)
      case "secondFactors": _ = try secondFactors(value, fp)
      case "email", "displayName", "photoURL", "pendingCleanup", "pendingDeletion":
        if value == .null { continue }
        switch key {
        case "pendingCleanup": _ = try object(value, fp, allowed: Vocabulary.cleanupFields)
        case "pendingDeletion":
          _ = try object(value, fp, allowed: Declarations.deletion.map(\.name))
        default: _ = try string(value, fp)
        }
      case "expiresIn":
        _ = try number(value, fp, min: -Instant.longestDuration, max: Instant.longestDuration)
      case "expiresAt": _ = try time(value, fp)
      default: _ = try string(value, fp)
      }
    }
  }

  func stateName(_ value: JSONValue, _ p: String) throws -> String {
    let s = try string(value, p)
    guard Vocabulary.states.contains(s) else {
      throw fail(p, "unknown state \"\(s)\"; \(Suggest.hint(for: s, among: Vocabulary.states))")
    }
    return s
  }

  func patterns(
    _ value: JSONValue, _ p: String, _ table: [(name: String, fields: [String])], _ kind: String
  ) throws -> [Pattern] {
    try array(value, p).enumerated().map { i, item in
      let ip = "\(p)[\(i)]"
      let (name, payload, pp) = try tagged(item, ip, kind: kind, names: table.map(\.name))
      if case .string = item { return Pattern(name) }
      let fields = try object(payload, pp, allowed: Vocabulary.fields(of: name, in: table))
      // Fields whose values come from a closed list are checked here, not at the first mismatch.
      for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
        guard let names = Vocabulary.closedValues[key], case .string(let v) = value,
          !v.hasPrefix("$"), !names.contains(v)
        else { continue }
        throw fail(
          join(pp, key), "unknown \(key) \"\(v)\"; \(Suggest.hint(for: v, among: names))")
      }
      return Pattern(name, fields: try canonicalProof(payload, pp))
    }
  }

  /// An expected effect's `appVerification` in the form effects are written in (a reCAPTCHA
  /// token as a string however the file wrote it), checked as a `send`'s is.
  func canonicalProof(_ payload: JSONValue, _ p: String) throws -> JSONValue {
    guard case .object(var members) = payload,
      let i = members.firstIndex(where: { $0.key == "appVerification" }),
      case .object = members[i].value
    else { return payload }
    let path = join(p, "appVerification")
    if case .object(let fields) = members[i].value,
      fields.contains(where: {
        if case .string(let v) = $0.value { v.hasPrefix("$") } else { false }
      })
    {
      return payload  // A capture's pattern is matched as written.
    }
    switch try appVerification(members[i].value, path) {
    case .recaptcha(let token)?: members[i].value = .string(token)
    case let proof?:
      members[i].value = .object(
        proof.fields.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
    case nil: break
    }
    return .object(members)
  }
}
