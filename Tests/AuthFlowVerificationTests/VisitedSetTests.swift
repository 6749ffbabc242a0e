import Testing

@testable import AuthFlowVerification

/// The visited sets' index of what was added since a mark (`RecentIndex`), which the merge asks
/// instead of the whole table: for every key added since the mark it must give the number the
/// whole table gives, for no key added before it give one, and a new mark must forget the rest.
@Suite("Visited sets: what was added since the mark")
struct VisitedSetTests {
  /// `count` distinct keys of one to four words; collisions of the low hash bits are common in
  /// a small table, so probing is exercised.
  static func keys(_ count: Int, seed: UInt64) -> [[UInt32]] {
    var rng = Xoshiro256(seed: seed)
    var seen = Set<[UInt32]>()
    var out: [[UInt32]] = []
    while out.count < count {
      let length = Int(rng.next() % 4) + 1
      let key = (0..<length).map { _ in UInt32(truncatingIfNeeded: rng.next() % 5_000) }
      if seen.insert(key).inserted { out.append(key) }
    }
    return out
  }

  @Test("a StateTable's recent look-up agrees with the whole table, across growth and marks")
  func stateTable() {
    let all = Self.keys(6_000, seed: 7)
    var table = StateTable(capacity: 4)
    var numbers: [Int32] = []
    // Three rounds of different sizes, the second large enough to grow the recent index.
    let rounds = [0..<700, 700..<4_100, 4_100..<6_000]
    for round in rounds {
      table.mark()
      for k in round {
        #expect(table.findRecent(all[k], hash: StateTable.hash(all[k])) == nil)
        numbers.append(table.insert(all[k], hash: StateTable.hash(all[k])))
      }
      for k in 0..<round.upperBound {
        let hash = StateTable.hash(all[k])
        #expect(table.find(all[k], hash: hash) == numbers[k])
        let recent = table.findRecent(all[k], hash: hash)
        #expect(recent == (round.contains(k) ? numbers[k] : nil), "key \(k)")
      }
    }
    table.mark()
    #expect(all.allSatisfy { table.findRecent($0, hash: StateTable.hash($0)) == nil })
  }

  @Test("a WorldTable's recent look-up agrees with the whole table, across growth and marks")
  func worldTable() {
    var rng = Xoshiro256(seed: 11)
    var keys: [WorldKey] = []
    var seen = Set<WorldKey>()
    while keys.count < 5_000 {
      let key = WorldKey(
        machine: UInt32(rng.next() % 300), store: UInt32(rng.next() % 4),
        refresh: rng.next() % 3 == 0 ? TimerBits.none : rng.next() % 8,
        retry: rng.next() % 2 == 0 ? TimerBits.none : rng.next() % 8)
      if seen.insert(key).inserted { keys.append(key) }
    }
    var table = WorldTable(capacity: 4)
    let rounds = [0..<1, 1..<3_000, 3_000..<3_001, 3_001..<5_000]
    for round in rounds {
      table.mark()
      for k in round {
        #expect(table.findRecent(keys[k], hash: keys[k].hash) == nil)
        #expect(table.insert(keys[k], hash: keys[k].hash) == Int32(k))
      }
      for k in 0..<round.upperBound {
        #expect(table.find(keys[k], hash: keys[k].hash) == Int32(k))
        let recent = table.findRecent(keys[k], hash: keys[k].hash)
        #expect(recent == (round.contains(k) ? Int32(k) : nil), "key \(k)")
      }
    }
  }

  /// The set is exact: keys whose hashes share the low bits (one probe sequence), the high
  /// bits, or all 64 must each still be found as themselves, and a key not added never as
  /// another.
  @Test("keys with colliding hashes, in either half or whole, are each found as themselves")
  func collidingHashes() {
    let keys: [[UInt32]] = (0..<64).map { [UInt32($0), 7] }
    // Four keys per hash: the same 64 bits; then the same low half with other high halves;
    // then other low halves with the same high half.
    let hashes: [UInt64] = (0..<64).map { k in
      switch k % 3 {
      case 0: 0x1234_5678_0000_0011
      case 1: UInt64(k) << 32 | 0x11
      default: 0xABCD_0000_0000_0000 | UInt64(k)
      }
    }
    var table = StateTable(capacity: 4)
    for k in keys.indices { #expect(table.insert(keys[k], hash: hashes[k]) == Int32(k)) }
    for k in keys.indices {
      #expect(table.find(keys[k], hash: hashes[k]) == Int32(k), "key \(k)")
      for other in [0x1234_5678_0000_0011, hashes[k] ^ 0xFFFF_0000_0000_0000] as [UInt64]
      where other != hashes[k] {
        // Looked up under a hash it was not added with, a key is not found as another one.
        let found = table.find(keys[k], hash: other)
        #expect(found == nil || found == Int32(k), "key \(k)")
      }
      #expect(table.find([UInt32(k), 8], hash: hashes[k]) == nil, "a key never added, \(k)")
    }
  }
}
