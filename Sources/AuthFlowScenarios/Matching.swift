import AuthFlowCore

/// Subset matching of expectations against what happened.
enum Matching {
  /// Whether `pattern` matches the effect (by name, then by the given fields).
  static func matches(_ pattern: Pattern, name: String, payload: @autoclosure () -> JSONValue)
    -> Bool
  {
    guard pattern.name == name else { return false }
    guard let fields = pattern.fields else { return true }
    return subset(fields, of: payload())
  }

  /// Whether every field `pattern` gives is in `actual` with a matching value.
  static func subset(_ pattern: JSONValue, of actual: JSONValue?) -> Bool {
    switch (pattern, actual) {
    case (.null, nil), (.null, .null?):
      return true
    case (.object(let fields), .object?):
      return fields.allSatisfy { subset($0.value, of: actual?[$0.key]) }
    case (.array(let items), .array(let actualItems)?):
      return items.count == actualItems.count
        && zip(items, actualItems).allSatisfy { subset($0, of: $1) }
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
  static func inOrder(_ patterns: [Pattern], in actual: [(String, JSONValue)]) -> Bool {
    var i = 0
    for (name, payload) in actual where i < patterns.count {
      if matches(patterns[i], name: name, payload: payload) { i += 1 }
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

  /// Creates a redactor.
  public init(showSecrets: Bool) { self.showSecrets = showSecrets }

  /// The value with every secret replaced by a short fingerprint (equal secrets look equal).
  public func apply(_ value: JSONValue) -> JSONValue {
    if showSecrets { return value }
    switch value {
    case .object(let members):
      return .object(
        members.map { m in
          if Self.secretKeys.contains(m.key), case .string(let s) = m.value {
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
