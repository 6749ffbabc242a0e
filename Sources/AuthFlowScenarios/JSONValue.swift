import Foundation

/// A JSON document as a value, keeping the order of object keys.
public enum JSONValue: Hashable, Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([(key: String, value: JSONValue)])

  public static func == (a: JSONValue, b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.number(let x), .number(let y)): return x == y
    case (.string(let x), .string(let y)): return x == y
    case (.array(let x), .array(let y)): return x == y
    case (.object(let x), .object(let y)):
      return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    default: return false
    }
  }

  public func hash(into hasher: inout Hasher) {
    switch self {
    case .null: hasher.combine(0)
    case .bool(let b): hasher.combine(b)
    case .number(let n): hasher.combine(n)
    case .string(let s): hasher.combine(s)
    case .array(let a): hasher.combine(a)
    case .object(let o):
      for (k, v) in o {
        hasher.combine(k)
        hasher.combine(v)
      }
    }
  }

  /// The value for `key` in an object, else `nil`.
  public subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.first { $0.key == key }?.value
  }

  /// The JSON type's name, for error messages.
  public var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }
}

// MARK: - Parsing

/// A JSON syntax error with its position in the text.
public struct JSONSyntaxError: Error, Equatable, Sendable {
  /// 1-based line.
  public var line: Int
  /// 1-based column (in characters).
  public var column: Int
  /// What was wrong.
  public var message: String
}

extension JSONValue {
  /// Parses JSON text; errors carry the line and column.
  public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
    var parser = JSONParser(bytes: Array(text.utf8))
    return try parser.parseDocument()
  }

  /// Parses what `JSONEncoder` produced.
  static func parse(data: Data) -> JSONValue {
    (try? parse(String(decoding: data, as: UTF8.self))) ?? .null
  }
}

private struct JSONParser {
  let bytes: [UInt8]
  var index = 0
  var depth = 0

  init(bytes: [UInt8]) { self.bytes = bytes }

  mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
    skipSpace()
    let value = try parseValue()
    skipSpace()
    if index < bytes.count { throw error("unexpected text after the JSON value") }
    return value
  }

  func error(_ message: String, at position: Int? = nil) -> JSONSyntaxError {
    let end = min(position ?? index, bytes.count)
    var line = 1
    var lineStart = 0
    for i in 0..<end where bytes[i] == UInt8(ascii: "\n") {
      line += 1
      lineStart = i + 1
    }
    let column = String(decoding: bytes[lineStart..<end], as: UTF8.self).count + 1
    return JSONSyntaxError(line: line, column: column, message: message)
  }

  mutating func skipSpace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
    guard index < bytes.count else { throw error("unexpected end of file, expected a value") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try parseObject()
    case UInt8(ascii: "["): return try parseArray()
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
    default:
      let c = String(decoding: [bytes[index]], as: UTF8.self)
      throw error("unexpected character '\(c)', expected a value")
    }
  }

  mutating func literal(_ word: String, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
    let w = Array(word.utf8)
    guard index + w.count <= bytes.count, Array(bytes[index..<index + w.count]) == w else {
      throw error("invalid literal, expected '\(word)'")
    }
    index += w.count
    return value
  }

  mutating func nested<T>(_ body: (inout JSONParser) throws(JSONSyntaxError) -> T)
    throws(JSONSyntaxError) -> T
  {
    depth += 1
    defer { depth -= 1 }
    if depth > 256 { throw error("nesting deeper than 256 levels") }
    return try body(&self)
  }

  mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
    try nested { (p: inout JSONParser) throws(JSONSyntaxError) -> JSONValue in
      p.index += 1
      var members: [(key: String, value: JSONValue)] = []
      p.skipSpace()
      if p.index < p.bytes.count, p.bytes[p.index] == UInt8(ascii: "}") {
        p.index += 1
        return .object(members)
      }
      while true {
        p.skipSpace()
        guard p.index < p.bytes.count, p.bytes[p.index] == UInt8(ascii: "\"") else {
          throw p.error("expected a string key in double quotes")
        }
        let keyStart = p.index
        let key = try p.parseString()
        if members.contains(where: { $0.key == key }) {
          throw p.error("duplicate key \"\(key)\"", at: keyStart)
        }
        p.skipSpace()
        guard p.index < p.bytes.count, p.bytes[p.index] == UInt8(ascii: ":") else {
          throw p.error("expected ':' after the key \"\(key)\"")
        }
        p.index += 1
        p.skipSpace()
        members.append((key, try p.parseValue()))
        p.skipSpace()
        guard p.index < p.bytes.count else { throw p.error("unexpected end of file in an object") }
        if p.bytes[p.index] == UInt8(ascii: ",") {
          p.index += 1
          continue
        }
        if p.bytes[p.index] == UInt8(ascii: "}") {
          p.index += 1
          return .object(members)
        }
        throw p.error("expected ',' or '}' in an object")
      }
    }
  }

  mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
    try nested { (p: inout JSONParser) throws(JSONSyntaxError) -> JSONValue in
      p.index += 1
      var items: [JSONValue] = []
      p.skipSpace()
      if p.index < p.bytes.count, p.bytes[p.index] == UInt8(ascii: "]") {
        p.index += 1
        return .array(items)
      }
      while true {
        p.skipSpace()
        items.append(try p.parseValue())
        p.skipSpace()
        guard p.index < p.bytes.count else { throw p.error("unexpected end of file in an array") }
        if p.bytes[p.index] == UInt8(ascii: ",") {
          p.index += 1
          continue
        }
        if p.bytes[p.index] == UInt8(ascii: "]") {
          p.index += 1
          return .array(items)
        }
        throw p.error("expected ',' or ']' in an array")
      }
    }
  }

  mutating func parseString() throws(JSONSyntaxError) -> String {
    let start = index
    index += 1
    var out: [UInt8] = []
    while index < bytes.count {
      let b = bytes[index]
      switch b {
      case UInt8(ascii: "\""):
        index += 1
        return String(decoding: out, as: UTF8.self)
      case UInt8(ascii: "\\"):
        index += 1
        guard index < bytes.count else { break }
        let e = bytes[index]
        index += 1
        switch e {
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "/"): out.append(0x2F)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
          var scalar = try hex4()
          if (0xD800...0xDBFF).contains(scalar), index + 1 < bytes.count,
            bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
          {
            index += 2
            let low = try hex4()
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          }
          let s = Unicode.Scalar(scalar).map { String(Character($0)) } ?? "\u{FFFD}"
          out.append(contentsOf: Array(s.utf8))
        default: throw error("invalid escape in a string", at: index - 2)
        }
      case 0x0A, 0x0D:
        throw error("unterminated string (a string cannot span lines)", at: start)
      case 0x00..<0x20:
        throw error("control character in a string; write it as an escape such as \\t")
      default:
        out.append(b)
        index += 1
      }
    }
    throw error("unterminated string", at: start)
  }

  mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
    guard index + 4 <= bytes.count,
      let v = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
    else { throw error("invalid \\u escape") }
    index += 4
    return v
  }

  mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
    let start = index
    let numberBytes = Array("0123456789-+.eE".utf8)
    while index < bytes.count, numberBytes.contains(bytes[index]) { index += 1 }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    guard let v = Double(text), v.isFinite else {
      throw error("invalid number '\(text)'", at: start)
    }
    return .number(v)
  }
}

// MARK: - Writing

extension JSONValue {
  /// Compact JSON text with keys in their stored order.
  public var compactText: String {
    var out = ""
    write(to: &out, indent: nil, level: 0)
    return out
  }

  /// Indented JSON text (two spaces) with keys in their stored order.
  public var prettyText: String {
    var out = ""
    write(to: &out, indent: "  ", level: 0)
    return out
  }

  func write(to out: inout String, indent: String?, level: Int) {
    switch self {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .number(let n): out += Self.format(n)
    case .string(let s): Self.quote(s, into: &out)
    case .array(let items):
      if items.isEmpty { return out += "[]" }
      out += "["
      for (i, item) in items.enumerated() {
        if i > 0 { out += "," }
        newline(&out, indent, level + 1)
        item.write(to: &out, indent: indent, level: level + 1)
      }
      newline(&out, indent, level)
      out += "]"
    case .object(let members):
      if members.isEmpty { return out += "{}" }
      out += "{"
      for (i, m) in members.enumerated() {
        if i > 0 { out += "," }
        newline(&out, indent, level + 1)
        Self.quote(m.key, into: &out)
        out += indent == nil ? ":" : ": "
        m.value.write(to: &out, indent: indent, level: level + 1)
      }
      newline(&out, indent, level)
      out += "}"
    }
  }

  private func newline(_ out: inout String, _ indent: String?, _ level: Int) {
    guard let indent else { return }
    out += "\n"
    for _ in 0..<level { out += indent }
  }

  /// Numbers print as integers when they are whole.
  public static func format(_ n: Double) -> String {
    if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
    return "\(n)"
  }

  static func quote(_ s: String, into out: inout String) {
    out += "\""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }
}

// MARK: - Bridging Codable values

extension JSONValue {
  private static let encoder: JSONEncoder = {
    let e = JSONEncoder()
    e.outputFormatting = [.sortedKeys]
    return e
  }()

  /// The JSON form of any Encodable value (as its synthesized Codable writes it).
  public static func encoding<T: Encodable>(_ value: T) -> JSONValue {
    guard let data = try? encoder.encode(value) else { return .null }
    return parse(data: data)
  }

  /// Decodes a Codable value from this JSON.
  public func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(compactText.utf8))
  }
}

extension JSONValue {
  /// Whether a string in it, at any depth, is a capture (`"$name"`, not `"$$x"`).
  var namesCaptures: Bool { strings.contains { Matching.captureName($0) != nil } }

  /// Every string value in it, at any depth (keys excluded).
  var strings: Set<String> {
    switch self {
    case .string(let s): return [s]
    case .array(let items): return items.reduce(into: []) { $0.formUnion($1.strings) }
    case .object(let members): return members.reduce(into: []) { $0.formUnion($1.value.strings) }
    case .null, .bool, .number: return []
    }
  }
}
