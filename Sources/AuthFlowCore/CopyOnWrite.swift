// The one copy-on-write box the values that travel use (`Session`, `IdPCredential`,
// `SignedInUser`) and the machine's phase, and the one integer id type both id kinds are.

/// A value kept in a shared reference and copied only when written while shared: copying the
/// holder moves one pointer instead of retaining every string inside. Equality and hashing are
/// the value's; two holders of the same box are equal without looking inside.
@usableFromInline
struct CopyOnWrite<Value: Hashable & Sendable>: Hashable, @unchecked Sendable {
  @usableFromInline
  final class Box {
    // Only mutated while uniquely referenced (see `value`'s `_modify`), so sharing is safe, and
    // the holders' value semantics already rule out overlapping accesses: no dynamic
    // exclusivity checks (they cost more than the rest of a token request).
    @exclusivity(unchecked) @usableFromInline var value: Value
    @usableFromInline init(_ value: Value) { self.value = value }
  }

  @usableFromInline var box: Box

  @inlinable init(_ value: Value) { box = Box(value) }

  /// The value; writing it copies the box first if another holder shares it.
  @inlinable var value: Value {
    _read { yield box.value }
    _modify {
      if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
      yield &box.value
    }
  }

  @inlinable static func == (a: Self, b: Self) -> Bool {
    a.box === b.box || a.box.value == b.box.value
  }
  @inlinable func hash(into hasher: inout Hasher) { box.value.hash(into: &hasher) }
}

extension CopyOnWrite: Codable where Value: Codable {
  @usableFromInline init(from decoder: any Decoder) throws { self.init(try Value(from: decoder)) }
  @usableFromInline func encode(to encoder: any Encoder) throws {
    try box.value.encode(to: encoder)
  }
}

/// An integer id, typed by what it identifies (`RequestID`, `TokenRequestID`), so the two kinds
/// cannot be mixed up.
public struct NumberedID<Kind>: Hashable, Comparable, Codable, Sendable,
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

  public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
  public var description: String { "\(rawValue)" }
}

/// What a `RequestID` numbers: the machine's requests.
public enum MachineRequest {}
/// What a `TokenRequestID` numbers: the app's `idTokenRequested` calls.
public enum AppTokenRequest {}

/// The id that ties a request effect to its answer; drawn from a counter in the machine.
public typealias RequestID = NumberedID<MachineRequest>
/// The id an app gives an `idTokenRequested`; the `deliverIDToken` that answers it carries it.
/// A different type from `RequestID`: the app numbers these, the machine numbers requests.
public typealias TokenRequestID = NumberedID<AppTokenRequest>
