/// Short strings found by their place in a list, each kept with its length in UTF-8 bytes and
/// the lengths compared first: most of the strings in such a list differ in length, and two
/// lengths compare in an instruction where two strings take a call. For the few strings a hot
/// path names (error codes, answer names, a thread's recent tokens) this beats a dictionary,
/// which hashes the whole string on every look-up.
package struct StringList: Sendable {
  @usableFromInline var entries: [(string: String, length: Int)] = []

  /// The list of `strings`, in order.
  @inlinable package init(_ strings: [String] = []) {
    entries = strings.map { ($0, $0.utf8.count) }
  }

  /// How many strings it holds.
  @inlinable package var count: Int { entries.count }

  /// The place of `s` in the list (its first), if it is there.
  @inlinable package func index(of s: String) -> Int? {
    let length = s.utf8.count
    for (i, entry) in entries.enumerated() where entry.length == length && entry.string == s {
      return i
    }
    return nil
  }

  /// Adds `s` at the end.
  @inlinable package mutating func append(_ s: String) { entries.append((s, s.utf8.count)) }
}
