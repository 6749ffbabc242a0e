/// The id that ties a request effect to its result; drawn from a counter in the machine.
public struct RequestID: Hashable, Comparable, Codable, Sendable, ExpressibleByIntegerLiteral,
  CustomStringConvertible
{
  /// The number.
  public var rawValue: Int

  /// An id.
  public init(_ rawValue: Int) { self.rawValue = rawValue }
  public init(integerLiteral value: Int) { rawValue = value }

  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(Int.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(rawValue)
  }

  public static func < (a: RequestID, b: RequestID) -> Bool { a.rawValue < b.rawValue }
  public var description: String { "\(rawValue)" }
}

/// The id an app gives an `idTokenRequested`; the `deliverIDToken` that answers it carries it.
/// A different type from `RequestID`: the app numbers these, the machine numbers requests.
public struct TokenRequestID: Hashable, Comparable, Codable, Sendable,
  ExpressibleByIntegerLiteral, CustomStringConvertible
{
  /// The number.
  public var rawValue: Int

  /// An id.
  public init(_ rawValue: Int) { self.rawValue = rawValue }
  public init(integerLiteral value: Int) { rawValue = value }

  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(Int.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(rawValue)
  }

  public static func < (a: TokenRequestID, b: TokenRequestID) -> Bool { a.rawValue < b.rawValue }
  public var description: String { "\(rawValue)" }
}

/// The app token-request ids one `deliverIDToken` answers. The common case, a single id, is
/// stored inline so answering a token request allocates nothing; JSON writes it as an array.
public struct TokenRequestIDs: Hashable, Sendable, RandomAccessCollection,
  ExpressibleByArrayLiteral
{
  private var head: TokenRequestID?
  private var tail: [TokenRequestID]

  /// One id, without allocating.
  public init(single id: TokenRequestID) {
    head = id
    tail = []
  }

  /// The ids in order.
  public init(_ ids: [TokenRequestID]) {
    head = ids.first
    tail = Array(ids.dropFirst())
  }

  public init(arrayLiteral elements: TokenRequestID...) { self.init(elements) }

  public var startIndex: Int { 0 }
  public var endIndex: Int { head == nil ? 0 : 1 + tail.count }
  public subscript(i: Int) -> TokenRequestID {
    if i == 0, let head { return head }
    return tail[i - 1]
  }
}

extension TokenRequestIDs: Codable {
  public init(from decoder: any Decoder) throws {
    self.init(try decoder.singleValueContainer().decode([TokenRequestID].self))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(Array(self))
  }
}

extension TokenRequestIDs: CustomStringConvertible {
  public var description: String { "[" + map(\.description).joined(separator: ", ") + "]" }
}
