import AuthFlowCore

/// Subset matching of expectations against what happened.
enum Matching {
  /// Whether `pattern` matches the effect (by name, then by the given fields). Captures bind
  /// only when the whole pattern matches.
  static func matches(
    _ pattern: Pattern, name: String, payload: @autoclosure () -> JSONValue,
    captures: inout [String: String]
  ) -> Bool {
    guard pattern.name == name else { return false }
    guard let fields = pattern.fields else { return true }
    return subset(fields, of: payload(), captures: &captures)
  }

  /// `matches` without keeping any binding (for diffs and searches).
  static func matches(
    _ pattern: Pattern, name: String, payload: @autoclosure () -> JSONValue,
    given captures: [String: String]
  ) -> Bool {
    var scratch = captures
    return matches(pattern, name: name, payload: payload(), captures: &scratch)
  }

  /// Whether every field `pattern` gives is in `actual` with a matching value; a string
  /// `"$name"` is a capture: it binds to the actual value on first use and must equal it later
  /// (`"$$x"` is the literal `"$x"`). Bindings are kept only when the whole pattern matches.
  static func subset(_ pattern: JSONValue, of actual: JSONValue?, captures: inout [String: String])
    -> Bool
  {
    var trial = captures
    guard match(pattern, actual, &trial) else { return false }
    captures = trial
    return true
  }

  /// The capture name of a pattern string, if it is one.
  static func captureName(_ s: String) -> String? {
    guard s.count > 1, s.hasPrefix("$"), !s.hasPrefix("$$") else { return nil }
    return String(s.dropFirst())
  }

  private static func match(
    _ pattern: JSONValue, _ actual: JSONValue?, _ captures: inout [String: String]
  )
    -> Bool
  {
    if case .string(let s) = pattern, let name = captureName(s) {
      let value: String
      switch actual {
      case .string(let a)?: value = a
      case .number(let n)?: value = JSONValue.format(n)
      default: return false
      }
      if let bound = captures[name] { return bound == value }
      captures[name] = value
      return true
    }
    switch (pattern, actual) {
    case (.null, nil), (.null, .null?):
      return true
    case (.object(let fields), .object?):
      return fields.allSatisfy { match($0.value, actual?[$0.key], &captures) }
    case (.array(let items), .array(let actualItems)?):
      return items.count == actualItems.count
        && zip(items, actualItems).allSatisfy { match($0, $1, &captures) }
    case (.string(let s), .string(let a)?) where s.hasPrefix("$$"):
      return String(s.dropFirst()) == a
    case (.string(let s), .number(let n)?):
      // Times may be written as ISO 8601 where the machine holds seconds.
      return ISOTime.parse(s)?.seconds == n
    case (.string(let s), .string(let a)?):
      if s == a { return true }
      if let x = ISOTime.parse(s), let y = ISOTime.parse(a) { return x == y }
      return false
    case (.string(let s), .object(let members)?) where members.count == 1:
      // A bare name matches a tagged value of that name: "token" matches {"token": {…}}.
      return members[0].key == s
    default:
      return pattern == actual
    }
  }

  /// The name and payload of a one-key tagged JSON value.
  static func split(_ value: JSONValue) -> (String, JSONValue) {
    if case .object(let members) = value, members.count == 1 {
      return (members[0].key, members[0].value)
    }
    return ("?", value)
  }

  /// Whether `patterns` occur in `actual` in this order (others may come between).
  static func inOrder(
    _ patterns: [Pattern], in actual: [(String, JSONValue)], captures: inout [String: String]
  ) -> Bool {
    var i = 0
    for (name, payload) in actual where i < patterns.count {
      if matches(patterns[i], name: name, payload: payload, captures: &captures) { i += 1 }
    }
    return i == patterns.count
  }

  /// A line diff (longest common subsequence): unchanged lines start with two spaces.
  static func diff(expected: [String], actual: [String], same: (Int, Int) -> Bool) -> [String] {
    let n = expected.count
    let m = actual.count
    var lcs = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
    for i in stride(from: n - 1, through: 0, by: -1) {
      for j in stride(from: m - 1, through: 0, by: -1) {
        lcs[i][j] = same(i, j) ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
      }
    }
    var out: [String] = []
    var i = 0
    var j = 0
    while i < n || j < m {
      if i < n, j < m, same(i, j) {
        out.append("  " + actual[j])
        i += 1
        j += 1
      } else if j < m, i == n || lcs[i][j + 1] >= lcs[i + 1][j] {
        out.append("+ " + actual[j])
        j += 1
      } else {
        out.append("- " + expected[i])
        i += 1
      }
    }
    return out
  }
}

/// Hides tokens and passwords in everything printed, unless asked to show them.
public struct Redactor: Sendable {
  /// Whether secrets are printed as they are.
  public var showSecrets: Bool

  /// Keys whose values are secrets.
  public static let secretKeys: Set<String> = [
    "idToken", "refreshToken", "accessToken", "password", "linkTo",
  ]

  /// Values shown as they are although under a secret key: those the scenario file itself
  /// spells (its author wrote them; they are no secret to the reader of a failure).
  public var revealed: Set<String> = []

  /// Creates a redactor.
  public init(showSecrets: Bool) { self.showSecrets = showSecrets }

  /// The same redactor, showing `values` as they are.
  public func revealing(_ values: Set<String>) -> Redactor {
    var r = self
    r.revealed.formUnion(values)
    return r
  }

  /// The value with every secret replaced by a short fingerprint (equal secrets look equal).
  public func apply(_ value: JSONValue) -> JSONValue {
    if showSecrets { return value }
    switch value {
    case .object(let members):
      return .object(
        members.map { m in
          if Self.secretKeys.contains(m.key), case .string(let s) = m.value,
            !revealed.contains(s)
          {
            return (m.key, .string(Self.fingerprint(s)))
          }
          return (m.key, apply(m.value))
        })
    case .array(let items): return .array(items.map(apply))
    default: return value
    }
  }

  /// `‹secret:1a2b›`: a 16-bit FNV-1a fingerprint, enough to tell two secrets apart.
  static func fingerprint(_ s: String) -> String {
    var h: UInt32 = 2_166_136_261
    for b in s.utf8 {
      h ^= UInt32(b)
      h = h &* 16_777_619
    }
    let hex = String((h >> 16) ^ (h & 0xFFFF), radix: 16)
    return "‹secret:" + String(repeating: "0", count: 4 - hex.count) + hex + "›"
  }
}
