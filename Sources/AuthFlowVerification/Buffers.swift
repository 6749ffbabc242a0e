extension Array {
  /// Empties the array and keeps its memory, as `removeAll(keepingCapacity: true)` does, but
  /// returns at once when the array is empty already: the standard library's version goes
  /// through the general `replaceSubrange` even then, and most of the checker's buffers are
  /// empty when emptied (the effects of a move that emitted none, a machine's request ids).
  @inline(__always) mutating func removeAllKeepingCapacity() {
    if !isEmpty { removeAll(keepingCapacity: true) }
  }

  /// Appends `other`'s elements, as `append(contentsOf:)` does, but returns at once when there
  /// are none and takes `other` whole when this array is empty: the checker's lists of
  /// violations are almost always empty, and the standard library's version pays for the
  /// general case even then.
  @inline(__always) mutating func add(_ other: [Element]) {
    if other.isEmpty { return }
    if isEmpty { self = other } else { append(contentsOf: other) }
  }

  /// Removes the elements from `count` on, keeping the memory; returns at once when there are
  /// none (the standard library's `removeSubrange` goes through `replaceSubrange` even then).
  @inline(__always) mutating func truncate(to count: Int) {
    if self.count > count { removeSubrange(count...) }
  }
}
