/// The app request ids one `deliverIDToken` answers. The common case, a single id, is stored
/// inline so answering a token request allocates nothing; JSON writes it as an array.
public struct RequestIDs: Hashable, Sendable, RandomAccessCollection, ExpressibleByArrayLiteral {
  private var head: RequestID?
  private var tail: [RequestID]

  /// One id, without allocating.
  public init(single id: RequestID) {
    head = id
    tail = []
  }

  /// The ids in order.
  public init(_ ids: [RequestID]) {
    head = ids.first
    tail = Array(ids.dropFirst())
  }

  public init(arrayLiteral elements: RequestID...) { self.init(elements) }

  public var startIndex: Int { 0 }
  public var endIndex: Int { head == nil ? 0 : 1 + tail.count }
  public subscript(i: Int) -> RequestID { i == 0 ? head! : tail[i - 1] }
}

extension RequestIDs: Codable {
  public init(from decoder: any Decoder) throws {
    self.init(try decoder.singleValueContainer().decode([RequestID].self))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(Array(self))
  }
}

extension RequestIDs: CustomStringConvertible {
  public var description: String { Array(self).description }
}
