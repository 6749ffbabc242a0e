import AuthFlowCore
import AuthFlowScenarios
import Foundation

/// Breadth-first exploration of every state reachable from `starting` over the alphabet, checking
/// every invariant on every transition, then liveness on the whole graph.
public struct ModelChecker: Sendable {
  /// How far to go.
  public struct Options: Sendable {
    /// Stop expanding states at this depth (`nil`: no limit).
    public var maxDepth: Int?
    /// Stop after this many states (`nil`: no limit).
    public var maxStates: Int?
    /// The machine's policy.
    public var policy = Policy()
    /// A stand-in reducer (to prove the checker catches bugs).
    public var reducer: World.Reducer?
    /// How many counterexamples to keep.
    public var keepViolations = 5
    /// Called after each level with (states, transitions, depth).
    public var progress: (@Sendable (Int, Int, Int) -> Void)?
    /// Keep a shortest path to every edge (for `flowrun generate`).
    public var keepWitnesses = false
    /// How many threads expand a level (default: one per core).
    public var threads = ProcessInfo.processInfo.activeProcessorCount
    /// Also take every upgrade's conflict answer under each other migration policy, so one
    /// exploration covers the behaviour of all four (the policy is read nowhere else).
    public var everyMigrationPolicy = true
    /// Measure where the time goes (`Result.stats`); costs a few clock reads per transition.
    public var collectStats = false

    /// Default options: the whole space.
    public init() {}
  }

  /// A top-level edge: from a state name, by an event kind, to a state name.
  public struct Edge: Hashable, Sendable, Comparable {
    public var from: String
    public var event: String
    public var to: String

    /// An edge.
    public init(from: String, event: String, to: String) {
      self.from = from
      self.event = event
      self.to = to
    }

    public static func < (a: Edge, b: Edge) -> Bool {
      (a.from, a.event, a.to) < (b.from, b.event, b.to)
    }
  }

  /// A path from `starting` to a problem, as concrete events.
  public struct Counterexample: Sendable {
    /// What broke.
    public var violations: [Violation]
    /// The events from a fresh machine, in order.
    public var events: [WorldEvent]
    /// The policy to replay them with (the migration policy of the path's last conflict answer
    /// taken under another policy, if any).
    public var policy: Policy
  }

  /// What the exploration found.
  public struct Result: Sendable {
    /// Distinct abstract states reached.
    public var states = 0
    /// Transitions taken (including those into known states).
    public var transitions = 0
    /// The deepest BFS level reached.
    public var maxDepth = 0
    /// True when no state was left unexpanded.
    public var complete = false
    /// Shortest paths to invariant violations (the first few).
    public var violations: [Counterexample] = []
    /// How many transitions broke an invariant.
    public var violationCount = 0
    /// States from which `signedOut` cannot be reached (only when complete).
    public var cannotSignOut = 0
    /// A shortest path to one such state.
    public var cannotSignOutExample: [WorldEvent]?
    /// States whose every move leads back to themselves.
    public var deadEnds = 0
    /// Every top-level edge seen (transitions that change the machine or emit effects).
    public var edges: Set<Edge> = []
    /// For every edge, a shortest event path from a fresh machine that takes it last.
    public var witnesses: [Edge: [WorldEvent]] = [:]
    /// The policy each witness replays with (see `Counterexample.policy`).
    public var witnessPolicies: [Edge: Policy] = [:]
    /// Where the time went (filled in only with `Options.collectStats`, but for the memory).
    public var stats = Stats()

    /// An empty result.
    public init() {}
  }

  let options: Options

  /// A checker with these options.
  public init(options: Options = Options()) { self.options = options }

  /// What expanding one state found, in flat arrays (a few allocations per state, none per
  /// move): for each move its successor, the new states with their keys, the moves that broke
  /// an invariant, and the edges taken.
  struct Expansion {
    /// Per move: a known state's number, or `-(k + 1)` for the k-th of `fresh`.
    var targets: [Int32] = []
    /// States not in the visited set when the level started (each once per expansion).
    var fresh: [AbstractState] = []
    var freshHashes: [UInt64] = []
    var freshKeys: [[UInt32]] = []
    /// The move that first reached each fresh state.
    var freshMoves: [Int32] = []
    /// The moves that broke an invariant, in order.
    var broken: [(move: Int32, violations: [Violation])] = []
    /// The first move of this state that took each edge.
    var firstMove: [(code: UInt32, choice: Choice)] = []
    var moves: [Choice] = []
    var transitions = 0
    var stats = Stats()
  }

  /// Where the checker's time went (`Options.collectStats`), summed over the threads.
  public struct Stats: Sendable {
    /// Building the moves and applying them (alphabet, reducer, world), invariants excluded.
    public var successorNanos: UInt64 = 0
    /// The invariants on every transition.
    public var invariantNanos: UInt64 = 0
    /// The canonical form: packed keys, their hashes, and the abstract states of new ones.
    public var canonicalNanos: UInt64 = 0
    /// The visited set: look-ups while expanding, and the merge of each level.
    public var visitedNanos: UInt64 = 0
    /// The whole run, wall clock.
    public var wallNanos: UInt64 = 0
    /// The visited set's arrays, in bytes.
    public var visitedBytes = 0
    /// The largest resident size of the process so far, in bytes (0 where unknown).
    public var peakResidentBytes = 0
    /// Threads that expanded each level.
    public var threads = 1
    /// Transitions that lead back to the state they left.
    public var selfLoops = 0

    /// An empty split.
    public init() {}

    mutating func add(_ o: Stats) {
      successorNanos &+= o.successorNanos
      invariantNanos &+= o.invariantNanos
      canonicalNanos &+= o.canonicalNanos
      visitedNanos &+= o.visitedNanos
    }
  }

  /// Collects the edges a move takes and lends the effect buffer (one per thread's expansion).
  struct EdgeSink: StepSink {
    var timesInvariants: Bool
    var invariantNanos: UInt64 = 0
    var buffer: [Effect] = []
    var codes: [UInt32] = []

    init(timesInvariants: Bool) {
      self.timesInvariants = timesInvariants
      buffer.reserveCapacity(16)
    }

    mutating func takeBuffer() -> [Effect] {
      var b: [Effect] = []
      swap(&b, &buffer)
      b.removeAll(keepingCapacity: true)
      return b
    }

    mutating func returnBuffer(_ b: [Effect]) { buffer = b }

    mutating func observe(
      before: AuthMachine, event: Event, after: AuthMachine, effects: [Effect], at: Instant
    ) {
      // Only transitions that do something: an ignored intent or a stale answer is no edge.
      if !effects.isEmpty || before != after {
        codes.append(
          ModelChecker.edgeCode(before.stateName, ModelChecker.eventCode(event), after.stateName))
      }
    }
  }

  /// Explores the space breadth-first, a level at a time; each level's states are expanded on
  /// every core (`options.threads`), against the states already known, and then merged in a
  /// fixed order, so the result (states, counterexamples, edges) is the same on any number of
  /// cores.
  public func run() -> Result {
    let wallStart = Stopwatch.now()
    var result = Result()
    let interner = Interner()
    var states: [AbstractState] = []
    var table = StateTable()
    var parent: [Int32] = []
    var via: [Choice] = []
    // The graph, for liveness: state i's successors are succ[succStart[i]..<succStart[i + 1]].
    var succ: [Int32] = []
    var succStart: [Int] = [0]
    var violationAt: Set<Int32> = []
    var edgeCodes: Set<UInt32> = []
    var witnessAt: [UInt32: (state: Int, choice: Choice)] = [:]
    var stats = Stats()
    stats.threads = max(1, options.threads)

    let root = World(policy: options.policy, reducer: options.reducer)
    states.append(AbstractState(root))
    do {
      var encoder = PackedEncoder(policy: options.policy, cache: InternerCache(interner))
      encoder.encode(root)
      table.insert(encoder.words, hash: encoder.hash)
    }
    parent.append(-1)
    via.append(.stale)

    var levelStart = 0
    var stoppedEarly = false
    var level = 0
    while levelStart < states.count {
      let levelEnd = states.count
      result.maxDepth = level
      if let maxDepth = options.maxDepth, level >= maxDepth {
        stoppedEarly = true
        break
      }
      // Expand the level in parallel; `table` is only read meanwhile.
      let count = levelEnd - levelStart
      let threads = max(1, min(options.threads, count / 64 + 1))
      var expansions = [Expansion](repeating: Expansion(), count: count)
      do {
        // Copies that the threads read; they end before the merge writes, so nothing is copied.
        let known = table
        let frozenStates = states
        let start = levelStart
        expansions.withUnsafeMutableBufferPointer { out in
          let buffer = UnsafeMutableSendable(out)
          DispatchQueue.concurrentPerform(iterations: threads) { t in
            var encoder = PackedEncoder(policy: options.policy, cache: InternerCache(interner))
            var sink = EdgeSink(timesInvariants: options.collectStats)
            var k = t
            while k < count {
              buffer.pointer[k] = expand(
                frozenStates[start + k], number: Int32(start + k), known: known,
                encoder: &encoder, sink: &sink)
              k += threads
            }
          }
        }
      }
      // Merge in order.
      let mergeStart = options.collectStats ? Stopwatch.now() : 0
      for k in 0..<count {
        let i = levelStart + k
        let e = expansions[k]
        stats.add(e.stats)
        result.transitions += e.transitions
        for (code, choice) in e.firstMove {
          edgeCodes.insert(code)
          if witnessAt[code] == nil { witnessAt[code] = (i, choice) }  // Breadth-first: shortest.
        }
        // The fresh states' numbers, found or given now, in the order of their first move.
        var freshIndex = [Int32](repeating: -1, count: e.fresh.count)
        var brokenAt = 0
        var allSelf = true
        let before = succ.count
        for (m, t) in e.targets.enumerated() {
          var target = t
          if t < 0 {
            let f = Int(-t - 1)
            if freshIndex[f] < 0 {
              if let j = table.find(e.freshKeys[f], hash: e.freshHashes[f]) {
                freshIndex[f] = j
              } else if let maxStates = options.maxStates, states.count >= maxStates {
                stoppedEarly = true
              } else {
                freshIndex[f] = table.insert(e.freshKeys[f], hash: e.freshHashes[f])
                states.append(e.fresh[f])
                parent.append(Int32(i))
                via.append(e.moves[Int(e.freshMoves[f])])
              }
            }
            target = freshIndex[f]
          }
          let broken: [Violation]? =
            brokenAt < e.broken.count && e.broken[brokenAt].move == Int32(m)
            ? e.broken[brokenAt].violations : nil
          if broken != nil { brokenAt += 1 }
          guard target >= 0 else { continue }
          succ.append(target)
          if target != Int32(i) { allSelf = false } else { stats.selfLoops += 1 }
          if let broken {
            result.violationCount += 1
            if result.violations.count < options.keepViolations, !violationAt.contains(target) {
              violationAt.insert(target)
              let path = Self.path(to: i, parent: parent, via: via) + [e.moves[m]]
              result.violations.append(
                Counterexample(
                  violations: broken, events: concrete(path), policy: policy(of: path)))
            }
          }
        }
        if succ.count > before, allSelf { result.deadEnds += 1 }
        succStart.append(succ.count)
      }
      if options.collectStats { stats.visitedNanos &+= Stopwatch.now() &- mergeStart }
      options.progress?(states.count, result.transitions, level)
      // The level's states are expanded: free what only their expansion needed.
      levelStart = levelEnd
      level += 1
    }
    // States never expanded (a limit was hit) have no successors.
    while succStart.count <= states.count { succStart.append(succ.count) }
    result.states = states.count
    result.edges = Set(edgeCodes.map(Self.edge))
    if options.keepWitnesses {
      for (code, w) in witnessAt {
        let path = Self.path(to: w.state, parent: parent, via: via) + [w.choice]
        result.witnesses[Self.edge(code)] = concrete(path)
        result.witnessPolicies[Self.edge(code)] = policy(of: path)
      }
    }
    result.complete = !stoppedEarly
    if result.complete {
      // Liveness: walk the graph backwards from every signedOut state.
      var reverseStart = [Int](repeating: 0, count: states.count + 1)
      for to in succ { reverseStart[Int(to) + 1] += 1 }
      for k in 0..<states.count { reverseStart[k + 1] += reverseStart[k] }
      var fill = reverseStart
      var reverse = [Int32](repeating: 0, count: succ.count)
      for from in 0..<states.count {
        for s in succStart[from]..<succStart[from + 1] {
          let to = Int(succ[s])
          reverse[fill[to]] = Int32(from)
          fill[to] += 1
        }
      }
      var canReach = [Bool](repeating: false, count: states.count)
      var queue: [Int32] = []
      for (k, s) in states.enumerated() where s.machine.stateName == .signedOut {
        canReach[k] = true
        queue.append(Int32(k))
      }
      var head = 0
      while head < queue.count {
        let k = Int(queue[head])
        head += 1
        for r in reverseStart[k]..<reverseStart[k + 1] where !canReach[Int(reverse[r])] {
          canReach[Int(reverse[r])] = true
          queue.append(reverse[r])
        }
      }
      let stuck = canReach.indices.filter { !canReach[$0] }
      result.cannotSignOut = stuck.count
      if let first = stuck.first {
        result.cannotSignOutExample = concrete(Self.path(to: first, parent: parent, via: via))
      }
    }
    stats.wallNanos = Stopwatch.now() &- wallStart
    stats.visitedBytes = table.bytes
    stats.peakResidentBytes = Self.peakResidentBytes()
    result.stats = stats
    return result
  }

  /// Every move from one state: resolved, applied with the invariants checked, and keyed.
  func expand(
    _ state: AbstractState, number: Int32, known: StateTable, encoder: inout PackedEncoder,
    sink: inout EdgeSink
  ) -> Expansion {
    var e = Expansion()
    let timing = options.collectStats
    var clock = timing ? Stopwatch.now() : 0
    let world = state.world(reducer: options.reducer)
    // Each family's answers are built once per state (the world after building them is the
    // same whichever answer is then taken).
    var answerCache: [(family: RequestFamily, world: World, answers: Alphabet.Answers)] = []
    var moves = Alphabet.choices(world)
    if options.everyMigrationPolicy {
      for i in Alphabet.conflictAnswers(world) {
        for p in MigrationPolicy.allCases where p != options.policy.migration {
          moves.append(.underMigrationPolicy(p, .answer(.flow, i)))
        }
      }
    }
    e.targets.reserveCapacity(moves.count)
    for (m, move) in moves.enumerated() {
      var w = world
      let event: WorldEvent
      var choice = move
      var migration: MigrationPolicy?
      if case .underMigrationPolicy(let p, let inner) = move {
        migration = p
        choice = inner
      }
      if case .answer(let family, let k) = choice {
        if let cached = answerCache.first(where: { $0.family == family }) {
          w = cached.world
          event = cached.answers.event(k)
        } else {
          var base = world
          guard let answers = Alphabet.answers(for: family, in: &base) else { continue }
          answerCache.append((family, base, answers))
          w = base
          event = answers.event(k)
        }
      } else {
        guard let resolved = Alphabet.resolve(choice, in: &w) else { continue }
        event = resolved
      }
      sink.codes.removeAll(keepingCapacity: true)
      sink.invariantNanos = 0
      let violations =
        migration.map { w.apply(event, migration: $0, into: &sink) }
        ?? w.apply(event, into: &sink)
      for code in sink.codes where !e.firstMove.contains(where: { $0.code == code }) {
        e.firstMove.append((code, move))
      }
      e.transitions += 1
      if timing {
        let t = Stopwatch.now()
        e.stats.successorNanos &+= t &- clock &- sink.invariantNanos
        e.stats.invariantNanos &+= sink.invariantNanos
        clock = t
      }
      if !violations.isEmpty { e.broken.append((Int32(m), violations)) }
      // Nothing moved (no step changed the machine or emitted, the clock, timers and store are
      // as they were): the move leads back here, with no key to build.
      if sink.codes.isEmpty, w.now == world.now, w.timers == world.timers,
        w.storeKnown == world.storeKnown, w.store == world.store, w.machine == world.machine
      {
        e.targets.append(number)
        continue
      }
      encoder.encode(w)
      let hash = encoder.hash
      if timing {
        let t = Stopwatch.now()
        e.stats.canonicalNanos &+= t &- clock
        clock = t
      }
      if let j = known.find(encoder.words, hash: hash) {
        e.targets.append(j)
      } else if let f = e.freshHashes.indices.first(where: {
        e.freshHashes[$0] == hash && e.freshKeys[$0] == encoder.words
      }) {
        e.targets.append(-Int32(f) - 1)
      } else {
        e.targets.append(-Int32(e.fresh.count) - 1)
        e.freshHashes.append(hash)
        e.freshKeys.append(encoder.words)
        e.freshMoves.append(Int32(m))
        if timing {
          let t = Stopwatch.now()
          e.stats.visitedNanos &+= t &- clock
          clock = t
        }
        e.fresh.append(AbstractState(w))
        if timing {
          let t = Stopwatch.now()
          e.stats.canonicalNanos &+= t &- clock
          clock = t
        }
        continue
      }
      if timing {
        let t = Stopwatch.now()
        e.stats.visitedNanos &+= t &- clock
        clock = t
      }
    }
    e.moves = moves
    return e
  }

  /// The process's largest resident size so far, in bytes (0 where it cannot be read).
  static func peakResidentBytes() -> Int {
    #if os(Linux)
      guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
        return 0
      }
      for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let digits = line.filter(\.isNumber)
        return (Int(digits) ?? 0) * 1024
      }
      return 0
    #else
      var usage = rusage()
      guard getrusage(RUSAGE_SELF, &usage) == 0 else { return 0 }
      return Int(usage.ru_maxrss)  // Bytes on Darwin.
    #endif
  }

  /// Event kinds by number, for packed edges.
  static let eventKinds: [String] =
    Intent.Kind.allCases.map(\.rawValue) + AnswerName.allCases.map(\.rawValue)
    + TimerID.allCases.map { "timerFired(\($0.rawValue))" } + ["persistFailed", "storeChanged"]

  static let intentCodes: [Intent.Kind: UInt32] = Dictionary(
    uniqueKeysWithValues: Intent.Kind.allCases.enumerated().map { ($1, UInt32($0)) })
  static let answerCodes: [String: UInt32] = Dictionary(
    uniqueKeysWithValues: AnswerName.allCases.enumerated().map {
      ($1.rawValue, UInt32(Intent.Kind.allCases.count + $0))
    })

  /// The number of an event's kind in `eventKinds`.
  static func eventCode(_ event: Event) -> UInt32 {
    let answersEnd = UInt32(Intent.Kind.allCases.count + AnswerName.allCases.count)
    switch event {
    case .intent(let i): return intentCodes[i.kind] ?? 0
    case .answer(let a): return answerCodes[a.outcomeName] ?? 0
    case .timerFired(let t):
      return answersEnd + UInt32(TimerID.allCases.firstIndex(of: t) ?? 0)
    case .persistFailed: return answersEnd + UInt32(TimerID.allCases.count)
    case .storeChanged: return answersEnd + UInt32(TimerID.allCases.count) + 1
    }
  }

  static func edgeCode(_ from: StateName, _ event: UInt32, _ to: StateName) -> UInt32 {
    let f = UInt32(StateName.allCases.firstIndex(of: from) ?? 0)
    let t = UInt32(StateName.allCases.firstIndex(of: to) ?? 0)
    return f << 24 | t << 16 | event
  }

  static func edge(_ code: UInt32) -> Edge {
    let names = StateName.allCases
    return Edge(
      from: names[Int(code >> 24)].rawValue, event: eventKinds[Int(code & 0xFFFF)],
      to: names[Int((code >> 16) & 0xFF)].rawValue)
  }

  /// The choices from the root to state `i`.
  static func path(to i: Int, parent: [Int32], via: [Choice]) -> [Choice] {
    var out: [Choice] = []
    var k = i
    while parent[k] >= 0 {
      out.append(via[k])
      k = Int(parent[k])
    }
    return out.reversed()
  }

  /// Replays choices on a concrete world from the start, giving the events a scenario can hold.
  func concrete(_ choices: [Choice]) -> [WorldEvent] {
    var w = World(policy: options.policy, reducer: options.reducer)
    var events: [WorldEvent] = []
    for choice in choices {
      guard let e = Alphabet.resolve(choice, in: &w) else { continue }
      if case .underMigrationPolicy(let p, _) = choice {
        w.apply(e, migration: p)
      } else {
        w.apply(e)
      }
      events.append(e)
    }
    return events
  }

  /// The policy a path replays with: the options', with the migration policy of its last move
  /// taken under another one.
  func policy(of choices: [Choice]) -> Policy {
    var p = options.policy
    for case .underMigrationPolicy(let m, _) in choices { p.migration = m }
    return p
  }

  /// The kind of an event, as the graph and coverage name it.
  public static func kind(_ event: Event) -> String {
    switch event {
    case .intent(let i): return i.kind.rawValue
    case .answer(let a): return a.outcomeName
    case .timerFired(let t): return "timerFired(\(t.rawValue))"
    case .persistFailed: return "persistFailed"
    case .storeChanged: return "storeChanged"
    }
  }
}

/// A buffer handed to the threads that expand a level; each writes only its own slots.
struct UnsafeMutableSendable<T>: @unchecked Sendable {
  let pointer: UnsafeMutableBufferPointer<T>
  init(_ pointer: UnsafeMutableBufferPointer<T>) { self.pointer = pointer }
}
