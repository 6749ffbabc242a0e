import Testing

@testable import AuthFlowVerification

/// The liveness walk's fixpoint (`ModelChecker.markReaching`) against the plainest one: mark a
/// state when a successor is marked, until nothing changes.
@Suite("Liveness: the states that reach a signedOut state")
struct LivenessTests {
  /// A graph as the checker keeps it: state i's successors are succ[start[i]..<start[i + 1]].
  struct Graph {
    var succ: [Int32] = []
    var start: [Int] = [0]

    init(_ lists: [[Int]]) {
      for list in lists {
        succ += list.map(Int32.init)
        start.append(succ.count)
      }
    }
  }

  static func reference(_ g: Graph, marked: [Bool]) -> [Bool] {
    var reach = marked
    var changed = true
    while changed {
      changed = false
      for from in reach.indices where !reach[from] {
        if g.succ[g.start[from]..<g.start[from + 1]].contains(where: { reach[Int($0)] }) {
          reach[from] = true
          changed = true
        }
      }
    }
    return reach
  }

  static func check(_ lists: [[Int]], marked: [Int]) -> [Bool] {
    let g = Graph(lists)
    var seeds = [Bool](repeating: false, count: lists.count)
    for k in marked { seeds[k] = true }
    var reach = seeds
    var succ = g.succ
    ModelChecker.markReaching(&reach, succ: &succ, succStart: g.start)
    #expect(reach == reference(g, marked: seeds))
    #expect(succ.isEmpty)
    return reach
  }

  @Test("paths toward higher numbers: the sweeps settle it")
  func forward() {
    // 0 → 1 → … → 9, 9 signs out; 10 and 11 only reach each other.
    var lists = (0..<9).map { [$0 + 1] }
    lists.append([])
    lists += [[11], [10]]
    let reach = Self.check(lists, marked: [9])
    #expect(reach == Array(repeating: true, count: 10) + [false, false])
  }

  @Test("a long path toward lower numbers: the walk backwards settles it")
  func backward() {
    // Each state k > 0 leads to k - 1 only, and 0 signs out: a sweep (last state first) marks
    // one more state, so the sweeps stop at their bound and the reversed graph finishes it. 30
    // is stuck on itself.
    var lists: [[Int]] = [[]]
    lists += (1..<30).map { [$0 - 1] }
    lists.append([30])
    let reach = Self.check(lists, marked: [0])
    #expect(reach == Array(repeating: true, count: 30) + [false])
  }

  @Test("random graphs, both ways")
  func random() {
    var rng = Xoshiro256(seed: 23)
    for _ in 0..<300 {
      let n = Int.random(in: 1...60, using: &rng)
      let lists = (0..<n).map { _ in
        (0..<Int.random(in: 0...3, using: &rng)).map { _ in Int.random(in: 0..<n, using: &rng) }
      }
      let marked = (0..<n).filter { _ in Int.random(in: 0..<10, using: &rng) == 0 }
      _ = Self.check(lists, marked: marked)
    }
  }
}
