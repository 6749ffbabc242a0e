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

    /// Default options: the whole space.
    public init() {}
  }

  /// A top-level edge: from a state name, by an event kind, to a state name.
  public struct Edge: Hashable, Sendable, Comparable {
    public var from: String
    public var event: String
    public var to: String

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

    /// An empty result.
    public init() {}
  }

  let options: Options

  /// A checker with these options.
  public init(options: Options = Options()) { self.options = options }

  /// What expanding one state found: for each move, the successor (a known index, or a new
  /// state with its key) and whether it broke an invariant; and the edges it took.
  struct Expansion {
    var moves:
      [(
        choice: Choice, key: PackedKey, known: Int32?, state: AbstractState?,
        violations: [Violation]
      )] = []
    var edges: Set<UInt32> = []
    /// The first move of this state that took each edge.
    var firstMove: [(code: UInt32, choice: Choice)] = []
    var transitions = 0
  }

  /// Explores the space breadth-first, a level at a time; each level's states are expanded on
  /// every core (`options.threads`), against the states already known, and then merged in a
  /// fixed order, so the result (states, counterexamples, edges) is the same on any number of
  /// cores.
  public func run() -> Result {
    var result = Result()
    let interner = Interner()
    var states: [AbstractState] = []
    var index: [PackedKey: Int32] = [:]
    var parent: [Int32] = []
    var via: [Choice] = []
    var depth: [Int32] = []
    var successors: [[Int32]] = []
    var violationAt: Set<Int32> = []
    var edgeCodes: Set<UInt32> = []
    var witnessAt: [UInt32: (state: Int, choice: Choice)] = [:]

    let root = World(policy: options.policy, reducer: options.reducer)
    states.append(AbstractState(root))
    index[PackedKey(root, interner: interner)] = 0
    parent.append(-1)
    via.append(.stale)
    depth.append(0)
    successors.append([])

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
      // Expand the level in parallel; `index` is only read meanwhile.
      let count = levelEnd - levelStart
      let threads = max(1, min(options.threads, count / 64 + 1))
      var expansions = [Expansion](repeating: Expansion(), count: count)
      do {
        // Copies that the threads read; they end before the merge writes, so nothing is copied.
        let known = index
        let frozenStates = states
        let start = levelStart
        expansions.withUnsafeMutableBufferPointer { out in
          let buffer = UnsafeMutableSendable(out)
          DispatchQueue.concurrentPerform(iterations: threads) { t in
            var k = t
            while k < count {
              buffer.pointer[k] = expand(frozenStates[start + k], known: known, interner: interner)
              k += threads
            }
          }
        }
      }
      // Merge in order.
      for k in 0..<count {
        let i = levelStart + k
        let e = expansions[k]
        result.transitions += e.transitions
        edgeCodes.formUnion(e.edges)
        for (code, choice) in e.firstMove where witnessAt[code] == nil {
          witnessAt[code] = (i, choice)  // Breadth-first: the first is a shortest.
        }
        var out: [Int32] = []
        out.reserveCapacity(e.moves.count)
        for move in e.moves {
          var j = move.known ?? index[move.key]
          if j == nil {
            if let maxStates = options.maxStates, states.count >= maxStates {
              stoppedEarly = true
              continue
            }
            let n = Int32(states.count)
            index[move.key] = n
            states.append(move.state ?? states[i])
            parent.append(Int32(i))
            via.append(move.choice)
            depth.append(Int32(level + 1))
            successors.append([])
            j = n
          }
          guard let target = j else { continue }
          out.append(target)
          if !move.violations.isEmpty {
            result.violationCount += 1
            if result.violations.count < options.keepViolations, !violationAt.contains(target) {
              violationAt.insert(target)
              let path = Self.path(to: i, parent: parent, via: via) + [move.choice]
              result.violations.append(
                Counterexample(
                  violations: move.violations, events: concrete(path), policy: policy(of: path)))
            }
          }
        }
        if !out.isEmpty, out.allSatisfy({ $0 == Int32(i) }) { result.deadEnds += 1 }
        successors[i] = out
      }
      options.progress?(states.count, result.transitions, level)
      levelStart = levelEnd
      level += 1
    }
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
      var reverse = [[Int32]](repeating: [], count: states.count)
      for (from, list) in successors.enumerated() {
        for to in list { reverse[Int(to)].append(Int32(from)) }
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
        for p in reverse[k] where !canReach[Int(p)] {
          canReach[Int(p)] = true
          queue.append(p)
        }
      }
      let stuck = canReach.indices.filter { !canReach[$0] }
      result.cannotSignOut = stuck.count
      if let first = stuck.first {
        result.cannotSignOutExample = concrete(Self.path(to: first, parent: parent, via: via))
      }
    }
    return result
  }

  /// Every move from one state: resolved, applied with the invariants checked, and keyed.
  func expand(_ state: AbstractState, known: [PackedKey: Int32], interner: Interner) -> Expansion {
    var e = Expansion()
    var encoder = PackedEncoder(policy: options.policy, cache: InternerCache(interner))
    let world = state.world(reducer: options.reducer)
    // Each family's answers are built once per state (the world after building them is the
    // same whichever answer is then taken).
    var answerCache: [RequestFamily: (world: World, answers: Alphabet.Answers)] = [:]
    var moves = Alphabet.choices(world)
    if options.everyMigrationPolicy {
      for i in Alphabet.conflictAnswers(world) {
        for p in MigrationPolicy.allCases where p != options.policy.migration {
          moves.append(.underMigrationPolicy(p, .answer(.flow, i)))
        }
      }
    }
    for move in moves {
      var w = world
      let event: WorldEvent
      var choice = move
      var migration: MigrationPolicy?
      if case .underMigrationPolicy(let p, let inner) = move {
        migration = p
        choice = inner
      }
      if case .answer(let family, let k) = choice {
        if answerCache[family] == nil {
          var base = world
          guard let answers = Alphabet.answers(for: family, in: &base) else { continue }
          answerCache[family] = (base, answers)
        }
        guard let cached = answerCache[family] else { continue }
        w = cached.world
        event = cached.answers.event(k)
      } else {
        guard let resolved = Alphabet.resolve(choice, in: &w) else { continue }
        event = resolved
      }
      let record: (World.Step) -> Void = { step in
        // Only transitions that do something: an ignored intent or a stale answer is no edge.
        if !step.effects.isEmpty || step.before != step.after {
          let code = Self.edgeCode(
            step.before.stateName, Self.kind(step.event), step.after.stateName)
          if e.edges.insert(code).inserted { e.firstMove.append((code, move)) }
        }
      }
      let violations =
        migration.map { w.apply(event, migration: $0, record: record) }
        ?? w.apply(event, record: record)
      e.transitions += 1
      let key = PackedKey(w, encoder: &encoder)
      let j = known[key]
      e.moves.append((move, key, j, j == nil ? AbstractState(w) : nil, violations))
    }
    return e
  }

  /// Event kinds by number, for packed edges.
  static let eventKinds: [String] =
    Intent.Kind.allCases.map(\.rawValue) + AnswerName.allCases.map(\.rawValue)
    + TimerID.allCases.map { "timerFired(\($0.rawValue))" } + ["persistFailed", "storeChanged"]

  static func edgeCode(_ from: StateName, _ event: String, _ to: StateName) -> UInt32 {
    let f = UInt32(StateName.allCases.firstIndex(of: from) ?? 0)
    let t = UInt32(StateName.allCases.firstIndex(of: to) ?? 0)
    let k = UInt32(eventKinds.firstIndex(of: event) ?? 0)
    return f << 24 | t << 16 | k
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
