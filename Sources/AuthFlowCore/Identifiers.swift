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
/// stored inline (no array to allocate, retain or release); JSON writes it as an array.
public struct TokenRequestIDs: Hashable, Sendable, RandomAccessCollection,
  ExpressibleByArrayLiteral
{
  private enum Storage: Hashable, Sendable {
    case one(TokenRequestID)
    case many([TokenRequestID])
  }

  private var storage: Storage

  /// One id, without allocating.
  public init(single id: TokenRequestID) { storage = .one(id) }

  /// The ids in order.
  public init(_ ids: [TokenRequestID]) {
    storage = ids.count == 1 ? .one(ids[0]) : .many(ids)
  }

  public init(arrayLiteral elements: TokenRequestID...) { self.init(elements) }

  public var startIndex: Int { 0 }
  public var endIndex: Int {
    switch storage {
    case .one: 1
    case .many(let ids): ids.count
    }
  }
  public subscript(i: Int) -> TokenRequestID {
    switch storage {
    case .one(let id): id
    case .many(let ids): ids[i]
    }
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
