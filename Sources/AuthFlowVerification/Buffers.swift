extension Array {
  /// Empties the array and keeps its memory, as `removeAll(keepingCapacity: true)` does, but
  /// returns at once when the array is empty already: the standard library's version goes
  /// through the general `replaceSubrange` even then, and most of the checker's buffers are
  /// empty when emptied (the effects of a move that emitted none, a machine's request ids).
  @inline(__always) mutating func removeAllKeepingCapacity() {
    if !isEmpty { removeAll(keepingCapacity: true) }
  }
}
