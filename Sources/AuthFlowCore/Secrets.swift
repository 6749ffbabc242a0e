// Tokens, passwords and nonces never appear in text: `description`, `debugDescription` and `dump`
// of every value that can hold one show a short fingerprint instead (equal secrets look equal).

/// What counts as a secret, and how it is shown.
public enum Secrets {
  /// Field names whose string values are secrets.
  public static let keys: Set<String> = [
    "idToken", "refreshToken", "accessToken", "password", "linkTo", "rawNonce", "pendingToken",
    "tokenSecret", "sessionId",
    "authorizationCode", "token", "newPassword", "pendingCredential", "sessionInfo",
    "verificationCode", "appVerification", "sharedSecretKey", "recaptchaToken", "iosReceipt",
    "iosSecret", "captchaResponse",
  ]

  /// `‹secret:1a2b›`: a 16-bit FNV-1a fingerprint, enough to tell two secrets apart and far too
  /// little to recover one.
  public static func fingerprint(_ s: String) -> String {
    var h: UInt32 = 2_166_136_261
    for b in s.utf8 {
      h ^= UInt32(b)
      h = h &* 16_777_619
    }
    let hex = String((h >> 16) ^ (h & 0xFFFF), radix: 16)
    return "‹secret:" + String(repeating: "0", count: 4 - hex.count) + hex + "›"
  }

  /// A one-line text of `value` (its JSON form, keys sorted) with every secret fingerprinted.
  public static func describe<T: Encodable>(_ value: T) -> String {
    let encoder = TextEncoder()
    do {
      try value.encode(to: encoder)
    } catch {
      return "\(T.self)(unprintable)"
    }
    return encoder.root.text(key: nil)
  }

  /// A mirror that shows only the redacted text, for `dump`.
  static func mirror<T: Encodable>(_ value: T) -> Mirror {
    Mirror(value, children: ["redacted": describe(value)], displayStyle: .struct)
  }
}

/// Declares the redacted descriptions on a type.
protocol RedactedDescription: Encodable, CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable
{}

extension RedactedDescription {
  public var description: String { Secrets.describe(self) }
  public var debugDescription: String { Secrets.describe(self) }
  public var customMirror: Mirror { Secrets.mirror(self) }
}

extension Session: RedactedDescription {}
extension AnonymousCleanup: RedactedDescription {}
extension IdPCredential: RedactedDescription {}
extension SignedInUser: RedactedDescription {}
extension AuthState: RedactedDescription {}
extension AuthMachine: RedactedDescription {}
extension Event: RedactedDescription {}
extension Intent: RedactedDescription {}
extension Answer: RedactedDescription {}
extension Tokens: RedactedDescription {}
extension Effect: RedactedDescription {}
extension TokenResult: RedactedDescription {}
extension TokenStatus: RedactedDescription {}
extension SensitiveOperation: RedactedDescription {}
extension ProviderPurpose: RedactedDescription {}
extension TotpSecret: RedactedDescription {}
extension TotpEnrollment: RedactedDescription {}
extension PhoneEnrollment: RedactedDescription {}
extension PhoneSignIn: RedactedDescription {}
extension AppVerification: RedactedDescription {}

extension Request: RedactedDescription {
  public func encode(to encoder: any Encoder) throws {
    try Effect.request(0, self).encode(to: encoder)
  }
}

extension Phase: RedactedDescription {
  public func encode(to encoder: any Encoder) throws {
    // The phase as the state it stands for without a user: enough to read in a log.
    try AuthState(phase: self, user: nil).encode(to: encoder)
  }
}

// MARK: - A small Encoder that renders text

/// One encoded value: what `TextEncoder` builds before rendering it.
final class TextNode {
  enum Kind { case keyed, unkeyed, single }
  var kind: Kind = .single
  var scalar = "null"
  var children: [(key: String, node: TextNode)] = []

  func text(key: String?) -> String {
    switch kind {
    case .single:
      if let key, Secrets.keys.contains(key), scalar.hasPrefix("\"") {
        return "\"" + Secrets.fingerprint(String(scalar.dropFirst().dropLast())) + "\""
      }
      return scalar
    case .unkeyed:
      return "[" + children.map { $0.node.text(key: key) }.joined(separator: ",") + "]"
    case .keyed:
      let sorted = children.sorted { $0.key < $1.key }
      return "{"
        + sorted.map { "\"\($0.key)\":" + $0.node.text(key: $0.key) }
        .joined(separator: ",") + "}"
    }
  }
}

final class TextEncoder: Encoder {
  let root: TextNode
  var codingPath: [any CodingKey] = []
  var userInfo: [CodingUserInfoKey: Any] = [:]

  init(node: TextNode = TextNode()) { root = node }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    root.kind = .keyed
    return KeyedEncodingContainer(KeyedText<Key>(node: root))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    root.kind = .unkeyed
    return UnkeyedText(node: root)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { SingleText(node: root) }
}

/// Renders a scalar as JSON text.
private func quoted(_ s: String) -> String {
  var out = "\""
  for c in s.unicodeScalars {
    switch c {
    case "\"": out += "\\\""
    case "\\": out += "\\\\"
    case "\n": out += "\\n"
    default:
      if c.value < 0x20 {
        out += "\\u" + String(c.value, radix: 16)
      } else {
        out.unicodeScalars.append(c)
      }
    }
  }
  return out + "\""
}

private struct SingleText: SingleValueEncodingContainer {
  let node: TextNode
  var codingPath: [any CodingKey] = []

  func set(_ s: String) {
    node.kind = .single
    node.scalar = s
  }

  mutating func encodeNil() throws { set("null") }
  mutating func encode(_ value: Bool) throws { set(value ? "true" : "false") }
  mutating func encode(_ value: String) throws { set(quoted(value)) }
  mutating func encode(_ value: Double) throws { set(value.description) }
  mutating func encode(_ value: Float) throws { set(value.description) }
  mutating func encode(_ value: Int) throws { set(value.description) }
  mutating func encode(_ value: Int8) throws { set(value.description) }
  mutating func encode(_ value: Int16) throws { set(value.description) }
  mutating func encode(_ value: Int32) throws { set(value.description) }
  mutating func encode(_ value: Int64) throws { set(value.description) }
  mutating func encode(_ value: UInt) throws { set(value.description) }
  mutating func encode(_ value: UInt8) throws { set(value.description) }
  mutating func encode(_ value: UInt16) throws { set(value.description) }
  mutating func encode(_ value: UInt32) throws { set(value.description) }
  mutating func encode(_ value: UInt64) throws { set(value.description) }
  mutating func encode<T: Encodable>(_ value: T) throws {
    try value.encode(to: TextEncoder(node: node))
  }
}

private struct KeyedText<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let node: TextNode
  var codingPath: [any CodingKey] = []

  func child(_ key: Key) -> TextNode {
    let n = TextNode()
    node.children.append((key.stringValue, n))
    return n
  }

  mutating func encodeNil(forKey key: Key) throws { child(key).scalar = "null" }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try value.encode(to: TextEncoder(node: child(key)))
  }
  mutating func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key)
    -> KeyedEncodingContainer<N>
  {
    let n = child(key)
    n.kind = .keyed
    return KeyedEncodingContainer(KeyedText<N>(node: n))
  }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let n = child(key)
    n.kind = .unkeyed
    return UnkeyedText(node: n)
  }
  mutating func superEncoder() -> any Encoder { TextEncoder(node: node) }
  mutating func superEncoder(forKey key: Key) -> any Encoder { TextEncoder(node: child(key)) }
}

private struct UnkeyedText: UnkeyedEncodingContainer {
  let node: TextNode
  var codingPath: [any CodingKey] = []
  var count: Int { node.children.count }

  func child() -> TextNode {
    let n = TextNode()
    node.children.append(("", n))
    return n
  }

  mutating func encodeNil() throws { child().scalar = "null" }
  mutating func encode<T: Encodable>(_ value: T) throws {
    try value.encode(to: TextEncoder(node: child()))
  }
  mutating func nestedContainer<N: CodingKey>(keyedBy type: N.Type) -> KeyedEncodingContainer<N> {
    let n = child()
    n.kind = .keyed
    return KeyedEncodingContainer(KeyedText<N>(node: n))
  }
  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let n = child()
    n.kind = .unkeyed
    return UnkeyedText(node: n)
  }
  mutating func superEncoder() -> any Encoder { TextEncoder(node: child()) }
}
