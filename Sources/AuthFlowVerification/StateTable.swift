/// The model checker's visited set: every state's packed key, stored once in one flat array,
/// found through an open-addressing table of state numbers.
///
/// Look-ups compare the whole key after the hash, so two states are merged only when their
/// keys are equal: the set is exact (a hash collision costs one more probe, never a lost state).
/// Adding a state allocates nothing but the arrays' occasional growth.
struct StateTable {
  /// The index of state numbers.
  private var slots: Slots
  /// For each state, its hash.
  private var hashes: [UInt64] = []
  /// For each state, where its key starts in `words`; one more entry at the end.
  private var starts: [Int] = [0]
  /// Every state's key, one after the other.
  private var words: [UInt32] = []
  /// The states added since `mark()`.
  private var recent = RecentIndex()

  init(capacity: Int = 1 << 16) { slots = Slots(capacity: capacity) }

  /// How many states it holds.
  var count: Int { hashes.count }

  /// The bytes its arrays take.
  var bytes: Int { slots.bytes + hashes.capacity * 8 + starts.capacity * 8 + words.capacity * 4 }

  /// A 64-bit hash of a key (a multiply-xorshift mix of each word, then of the length).
  static func hash(_ key: [UInt32]) -> UInt64 {
    var h: UInt64 = 0x9E37_79B9_7F4A_7C15
    for w in key {
      h = (h ^ UInt64(w)) &* 0xBF58_476D_1CE4_E5B9
      h ^= h >> 31
    }
    h = (h ^ UInt64(key.count)) &* 0x94D0_49BB_1331_11EB
    return h ^ (h >> 29)
  }

  /// The number of the state with this key, if it is here.
  func find(_ key: [UInt32], hash: UInt64) -> Int32? {
    slots.find(hash) { hashes[Int($0)] == hash && equal(Int($0), key) }
  }

  /// Starts a new `recent` list: what is added from now on.
  mutating func mark() { recent.mark(count: hashes.count) }

  /// The number of the state with this key if it was added since `mark()`: for a key known
  /// not to have been here at the mark, the same answer as `find`, from a small index instead
  /// of the whole table (whose slots and keys are each a cache miss once it is large).
  func findRecent(_ key: [UInt32], hash: UInt64) -> Int32? {
    recent.find(hash) { hashes[$0] == hash && equal($0, key) }
  }

  private func equal(_ state: Int, _ key: [UInt32]) -> Bool {
    let start = starts[state]
    guard starts[state + 1] - start == key.count else { return false }
    for k in key.indices where words[start + k] != key[k] { return false }
    return true
  }

  /// Adds a key known not to be here; returns its number (states are numbered in order).
  @discardableResult
  mutating func insert(_ key: [UInt32], hash: UInt64) -> Int32 {
    if slots.isFull(adding: hashes.count) {
      let hashes = self.hashes
      slots.grow(count: hashes.count) { hashes[$0] }
    }
    let n = Int32(hashes.count)
    hashes.append(hash)
    words.append(contentsOf: key)
    starts.append(words.count)
    slots.place(n, hash)
    if recent.isFull {
      let hashes = self.hashes
      recent.grow { hashes[$0] }
    }
    recent.add(Int(n), hash)
    return n
  }
}

/// The open-addressing index of both visited sets (`StateTable`, `WorldTable`): a power-of-two
/// array of entry numbers (-1 for an empty slot), probed linearly from the entry's hash and never
/// more than half full. The sets compare their own keys; this only finds the slots.
struct Slots {
  /// For each slot, an entry number, or -1.
  private(set) var table: [Int32]

  /// Room for `capacity` entries before the first growth.
  init(capacity: Int) {
    var n = 16
    while n < capacity * 2 { n <<= 1 }
    table = [Int32](repeating: -1, count: n)
  }

  /// The bytes the table takes.
  var bytes: Int { table.capacity * 4 }

  /// Whether adding one more entry to `count` would make the table more than half full.
  func isFull(adding count: Int) -> Bool { (count + 1) * 2 > table.count }

  /// Puts entry `n` in the first empty slot from its hash.
  mutating func place(_ n: Int32, _ hash: UInt64) {
    let mask = table.count - 1
    var i = Int(truncatingIfNeeded: hash) & mask
    while table[i] >= 0 { i = (i + 1) & mask }
    table[i] = n
  }

  /// The entry from `hash`'s slot on that `matches`, if any.
  @inline(__always)
  func find(_ hash: UInt64, _ matches: (Int32) -> Bool) -> Int32? {
    table.withUnsafeBufferPointer { table in
      let mask = table.count - 1
      var i = Int(truncatingIfNeeded: hash) & mask
      while true {
        let s = table[i]
        if s < 0 { return nil }
        if matches(s) { return s }
        i = (i + 1) & mask
      }
    }
  }

  /// Empties every slot, keeping the table's size.
  mutating func clear() {
    table.withUnsafeMutableBufferPointer { $0.update(repeating: -1) }
  }

  /// Doubles the table and places the `count` entries again, each by `hash(n)`.
  mutating func grow(count: Int, hash: (Int) -> UInt64) {
    table = [Int32](repeating: -1, count: table.count * 2)
    for n in 0..<count { place(Int32(n), hash(n)) }
  }
}

/// The index of the entries a table added since its last `mark`: each probe stays within an
/// index the size of one chunk's new entries, which the caches hold, where the whole table's
/// slots and keys are each a miss. The merge looks up only keys its expansions did not find in
/// the table as it was at the mark, so any match is among these.
struct RecentIndex {
  /// Entry numbers relative to `base`.
  private var slots = Slots(capacity: 1 << 10)
  /// The number of the first entry added since the mark.
  private var base = 0
  /// How many entries were added since the mark.
  private var count = 0

  /// Forgets every entry; the next one added is numbered `count`.
  mutating func mark(count: Int) {
    base = count
    if self.count > 0 { slots.clear() }
    self.count = 0
  }

  /// The entry from `hash`'s slot on that `matches` (given and giving table numbers), if any.
  @inline(__always)
  func find(_ hash: UInt64, _ matches: (Int) -> Bool) -> Int32? {
    slots.find(hash) { matches(base + Int($0)) }.map { Int32(base) + $0 }
  }

  /// Whether adding one more entry needs `grow` first.
  var isFull: Bool { slots.isFull(adding: count) }

  /// Doubles the index; `hashOf` gives an entry's hash by its table number.
  mutating func grow(hashOf: (Int) -> UInt64) {
    let base = self.base
    slots.grow(count: count) { hashOf(base + $0) }
  }

  /// Adds entry `n` (the table's next) with `hash`; call `grow` first when `isFull`.
  mutating func add(_ n: Int, _ hash: UInt64) {
    slots.place(Int32(n - base), hash)
    count += 1
  }
}
