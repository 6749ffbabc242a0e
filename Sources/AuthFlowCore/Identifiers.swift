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
