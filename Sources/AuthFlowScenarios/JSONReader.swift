import AuthFlowCore

/// Reads typed values out of a JSON tree, naming the file and JSON path in every error.
struct JSONReader {
  let file: String

  func fail(_ path: String, _ message: String) -> ScenarioError {
    ScenarioError(file: file, kind: .invalid(path: path), message: message)
  }

  /// The members of an object whose keys are all in `allowed` and include `required`.
  /// The members of an object (in the file's order); `allowed: nil` accepts any key.
  func object(
    _ value: JSONValue, _ path: String, allowed: [String]?, required: [String] = [],
    what: String = "an object"
  ) throws -> [(key: String, value: JSONValue)] {
    guard case .object(let members) = value else {
      throw fail(path, "expected \(what), found \(value.typeName)")
    }
    if let allowed {
      for (key, _) in members where !allowed.contains(key) {
        let valid = allowed.isEmpty ? "it takes no fields" : Suggest.hint(for: key, among: allowed)
        throw fail(join(path, key), "unknown field \"\(key)\"; \(valid)")
      }
    }
    for key in required where !members.contains(where: { $0.key == key }) {
      throw fail(path, "missing required field \"\(key)\"")
    }
    return members
  }

  /// An object whose keys are declared in `keys` (allowed, and the required ones present).
  func object(_ value: JSONValue, _ path: String, _ keys: [KeyDecl], what: String = "an object")
    throws -> [String: JSONValue]
  {
    try object(
      value, path, allowed: keys.map(\.name), required: keys.filter(\.required).map(\.name),
      what: what)
  }

  func object(
    _ value: JSONValue, _ path: String, allowed: [String], required: [String] = [],
    what: String = "an object"
  ) throws -> [String: JSONValue] {
    guard case .object(let members) = value else {
      throw fail(path, "expected \(what), found \(value.typeName)")
    }
    var out: [String: JSONValue] = [:]
    for (key, v) in members {
      guard allowed.contains(key) else {
        let valid = allowed.isEmpty ? "it takes no fields" : Suggest.hint(for: key, among: allowed)
        throw fail(join(path, key), "unknown field \"\(key)\"; \(valid)")
      }
      out[key] = v
    }
    for key in required where out[key] == nil {
      throw fail(path, "missing required field \"\(key)\"")
    }
    return out
  }

  /// A `{"name": {…}}` object (or a bare `"name"` when `bareAllowed`), with the name checked.
  func tagged(
    _ value: JSONValue, _ path: String, kind: String, names: [String], bareAllowed: Bool = true
  ) throws -> (name: String, payload: JSONValue, path: String) {
    let name: String
    let payload: JSONValue
    switch value {
    case .string(let s) where bareAllowed:
      (name, payload) = (s, .object([]))
    case .object(let members) where members.count == 1:
      (name, payload) = (members[0].key, members[0].value)
    case .object(let members):
      throw fail(
        path,
        "expected an object with exactly one key (the \(kind) name), found \(members.count) keys"
          + (members.isEmpty
            ? "" : " (" + members.map { "\"\($0.key)\"" }.joined(separator: ", ") + ")"))
    default:
      throw fail(path, "expected an \(kind) such as {\"\(names[0])\": {}}, found \(value.typeName)")
    }
    guard names.contains(name) else {
      throw fail(path, "unknown \(kind) \"\(name)\"; \(Suggest.hint(for: name, among: names))")
    }
    return (name, payload, join(path, name))
  }

  func string(_ value: JSONValue?, _ path: String) throws -> String {
    guard case .string(let s)? = value else {
      throw fail(path, "expected a string, found \(value?.typeName ?? "nothing")")
    }
    return s
  }

  func optionalString(_ value: JSONValue?, _ path: String) throws -> String? {
    if value == nil || value == .null { return nil }
    return try string(value, path)
  }

  /// An app's proof: a string (a reCAPTCHA token) or an object of one kind's fields.
  func appVerification(_ value: JSONValue?, _ path: String) throws -> AppVerification? {
    switch value {
    case nil, .null?: return nil
    case .string(let token)?: return .recaptcha(token: token)
    case .object(let members)?:
      var fields: [String: String] = [:]
      for (key, v) in try object(.object(members), path, allowed: AppVerification.fieldNames) {
        fields[key] = try string(v, join(path, key))
      }
      switch AppVerification.from(fields: fields) {
      case .success(let proof): return proof
      case .failure(let why): throw fail(path, why.message)
      }
    case let other?:
      throw fail(
        path,
        "expected a reCAPTCHA token (a string) or an object such as {\"iosReceipt\": …, "
          + "\"iosSecret\": …}, found \(other.typeName)")
    }
  }

  func number(_ value: JSONValue?, _ path: String, min: Double? = nil, max: Double? = nil)
    throws -> Double
  {
    guard case .number(let n)? = value else {
      throw fail(path, "expected a number, found \(value?.typeName ?? "nothing")")
    }
    if let min, n < min {
      throw fail(path, "expected a number ≥ \(JSONValue.format(min)), found \(JSONValue.format(n))")
    }
    if let max, n > max {
      throw fail(path, "expected a number ≤ \(JSONValue.format(max)), found \(JSONValue.format(n))")
    }
    return n
  }

  /// Seconds of a duration: 0 to 100 years (`Instant.longestDuration`).
  func duration(_ value: JSONValue?, _ path: String, min: Double = 0) throws -> Double {
    let n = try number(value, path)
    guard n >= min, n <= Instant.longestDuration else {
      throw fail(
        path,
        "expected seconds from \(JSONValue.format(min)) to \(JSONValue.format(Instant.longestDuration))"
          + " (100 years), found \(JSONValue.format(n))")
    }
    return n
  }

  func integer(_ value: JSONValue?, _ path: String) throws -> Int {
    let n = try number(value, path)
    guard n == n.rounded(), abs(n) < 1e15 else {
      throw fail(path, "expected a whole number, found \(JSONValue.format(n))")
    }
    return Int(n)
  }

  func bool(_ value: JSONValue?, _ path: String, default fallback: Bool) throws -> Bool {
    guard let value else { return fallback }
    guard case .bool(let b) = value else {
      throw fail(path, "expected true or false, found \(value.typeName)")
    }
    return b
  }

  func array(_ value: JSONValue?, _ path: String) throws -> [JSONValue] {
    guard case .array(let items)? = value else {
      throw fail(path, "expected an array, found \(value?.typeName ?? "nothing")")
    }
    return items
  }

  func strings(_ value: JSONValue?, _ path: String) throws -> [String] {
    try array(value, path).enumerated().map { try string($1, "\(path)[\($0)]") }
  }

  func enumValue<E: RawRepresentable & CaseIterable>(
    _ value: JSONValue?, _ path: String, _ type: E.Type
  ) throws -> E where E.RawValue == String {
    let s = try string(value, path)
    guard let e = E(rawValue: s) else {
      throw fail(
        path, "unknown value \"\(s)\"; \(Suggest.hint(for: s, among: E.allCases.map(\.rawValue)))")
    }
    return e
  }

  /// An instant: ISO 8601 text (or seconds since 1970) between 1970 and the end of 9999.
  func time(_ value: JSONValue?, _ path: String) throws -> Instant {
    let t: Instant
    if case .number(let n)? = value {
      t = Instant(n)
    } else {
      let s = try string(value, path)
      guard let parsed = ISOTime.parse(s) else {
        throw fail(
          path,
          "expected an ISO 8601 time such as \"2026-01-01T09:00:00Z\" (a real date), found \"\(s)\""
        )
      }
      t = parsed
    }
    guard t.isValid else {
      throw fail(
        path,
        "expected a time between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z, found \(JSONValue.format(t.seconds)) s"
      )
    }
    return t
  }

  func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
}
