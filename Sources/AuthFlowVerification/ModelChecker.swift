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
    /// How many new machines, and how many states, a level expands between two merges (memory
    /// holds one chunk's expansions); the answer is the same for any sizes.
    public var chunk = (machines: 1 << 13, states: 1 << 15)

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

  /// Where the checker's time went (`Options.collectStats`), summed over the threads.
  public struct Stats: Sendable {
    /// Building the moves and applying them (alphabet, reducer, world), invariants excluded.
    public var successorNanos: UInt64 = 0
    /// The invariants on every transition.
    public var invariantNanos: UInt64 = 0
    /// The reducer alone (a part of `successorNanos`): with `invariantNanos`, what any checker
    /// of this machine and these rules spends whatever its own data structures.
    public var reducerNanos: UInt64 = 0
    /// The canonical form: machines' and stores' keys, and the canonical values of new ones.
    public var canonicalNanos: UInt64 = 0
    /// The visited set: composing each world's successors, look-ups, and the merge of each level.
    public var visitedNanos: UInt64 = 0
    /// The whole run, wall clock.
    public var wallNanos: UInt64 = 0
    /// The wall-clock time of the merges, which one thread does while the others wait (a part of
    /// `visitedNanos`): what more threads cannot shorten.
    public var mergeNanos: UInt64 = 0
    /// What the merge's look-ahead read (`Expansion.touch`): kept only so that the reads are
    /// made, not for what it says.
    var touched = 0
    /// The wall-clock time of the liveness walk over the whole graph, after the exploration (one
    /// thread).
    public var livenessNanos: UInt64 = 0
    /// The visited set's arrays, in bytes.
    public var visitedBytes = 0
    /// The largest resident size of the process so far, in bytes (0 where unknown).
    public var peakResidentBytes = 0
    /// Threads that expanded each level.
    public var threads = 1
    /// Transitions that lead back to the state they left.
    public var selfLoops = 0
    /// Distinct canonical machines (a state is a machine with its timers and store).
    public var machines = 0
    /// Distinct stores (as keyed after their machine's tokens), the three shared ones included.
    public var stores = 0
    /// Moves applied to a machine by the reducer (each machine's own moves, once per machine).
    public var machineMoves = 0
    /// Moves applied to a whole world (those that depend on its timers or store). A relaunch a
    /// thread remembers is not applied again, so on several threads this varies a little with
    /// which thread expanded which state; the states and transitions do not.
    public var worldMoves = 0

    /// An empty split.
    public init() {}

    /// Counts a merge that began at `start` (`Stopwatch.now()`) and ends now.
    mutating func merged(since start: UInt64) {
      let elapsed = Stopwatch.now() &- start
      visitedNanos &+= elapsed
      mergeNanos &+= elapsed
    }

    /// Counts one move applied from `clock` to `now`: the reducer's and the invariants' time as
    /// `sink` measured them, the rest as the successors'.
    mutating func applied(from clock: UInt64, to now: UInt64, _ sink: some StepSink) {
      successorNanos &+= now &- clock &- sink.invariantNanos
      invariantNanos &+= sink.invariantNanos
      reducerNanos &+= sink.reducerNanos
    }

    mutating func add(_ o: Stats) {
      successorNanos &+= o.successorNanos
      invariantNanos &+= o.invariantNanos
      reducerNanos &+= o.reducerNanos
      canonicalNanos &+= o.canonicalNanos
      visitedNanos &+= o.visitedNanos
      machineMoves += o.machineMoves
      worldMoves += o.worldMoves
    }
  }

  /// What expanding one world state found, in flat arrays: its successors (each once), the
  /// new states, the transitions that broke an invariant, the edges its own moves took.
  struct Expansion {
    /// Each successor once, in the order first reached: a known state's number, or `-(k + 1)`
    /// for the k-th of `fresh`. A transition back to the state itself, or to a successor listed
    /// already, is here only when it broke an invariant (its target is then listed again); the
    /// others are only counted (`selfLoops`, `transitions`), so the merge, on one thread, does
    /// not walk them.
    var targets: [Int32] = []
    /// Transitions back to the state itself that broke nothing (not in `targets`).
    var selfLoops = 0
    /// States not in the visited set when the chunk was expanded (each once per expansion), with
    /// their machine and store as `FreshParts` numbers them.
    var fresh: [(machine: Int32, store: Int32, refresh: UInt64, retry: UInt64)] = []
    /// The move that first reached each fresh state.
    var freshMoves: [UInt16] = []
    /// The transitions that broke an invariant: the target's position, the move, and what broke
    /// (`nil`: the machine's move, whose violations the machine's expansion kept).
    var broken: [(target: Int32, move: UInt16, violations: [Violation]?)] = []
    /// The first move of this state that took each edge, among the moves of the whole world.
    var edges: [(code: UInt32, move: UInt16)] = []
    var parts = FreshParts()
    var transitions = 0
    var stats = Stats()
    /// Which of the arrays above hold anything, kept beside them (`seal()`): the merge reads
    /// these instead of the arrays' own counts, which are in memory the expanding thread wrote
    /// (a cache miss each, on the one thread the others wait for), and most are empty.
    var hasFresh = false
    var hasBroken = false
    var hasEdges = false
    var hasParts = false

    /// How many expansions the merge asks for at once (`touch`).
    static let touchAhead = 8

    /// Reads the first word of the lists the merge reads next from the `touchAhead` expansions
    /// from `k` on, all at once. Each expansion's lists were written by the thread that expanded
    /// it and are long out of this core's cache; read one after the other, the merge waited
    /// for each in turn (half of its own time, in a profile of the first 2,000,000 states), and
    /// read together the waits overlap. Returns what it read, for the caller to keep, so the
    /// reads are not left out.
    static func touch(_ expansions: [Expansion], from k: Int) -> Int {
      expansions.withUnsafeBufferPointer { x in
        var sum = 0
        for j in k..<min(k + touchAhead, x.count) {
          sum &+= x[j].targets.count &+ x[j].fresh.count &+ x[j].edges.count
        }
        return sum
      }
    }

    /// Notes which arrays hold anything, once the expansion is done.
    mutating func seal() {
      hasFresh = !fresh.isEmpty
      hasBroken = !broken.isEmpty
      hasEdges = !edges.isEmpty
      hasParts = !parts.machines.isEmpty || !parts.stores.isEmpty
    }

    /// Empty, keeping the arrays' memory.
    mutating func reset() {
      targets.removeAllKeepingCapacity()
      selfLoops = 0
      fresh.removeAllKeepingCapacity()
      freshMoves.removeAllKeepingCapacity()
      broken.removeAllKeepingCapacity()
      edges.removeAllKeepingCapacity()
      parts.reset()
      transitions = 0
      stats = Stats()
      seal()
    }
  }

  /// What a relaunch led to: the state, and the edges it took.
  typealias Relaunch = (next: WorldKey, codes: [UInt32])

  /// Collects the edges a world move takes and lends the effect buffer.
  struct EdgeSink: StepSink {
    var timesInvariants: Bool
    var invariantNanos: UInt64 = 0
    var reducerNanos: UInt64 = 0
    var buffer: [Effect] = []
    var codes: [UInt32] = []
    /// What a relaunch led to, by what it depends on: the state and the edges taken. Only
    /// numbered states are kept. A store with a number of its own is the key itself; a store
    /// holding the machine's session is keyed by that session's canonical form (many machines
    /// share one), found from the machine's number once per machine.
    var relaunchesByStore: [UInt32: Relaunch] = [:]
    var relaunchesBySession: [[UInt32]: Relaunch] = [:]
    var relaunchesByMachine: [UInt32: Relaunch] = [:]
    /// The numbered states the state being expanded reached so far, by key.
    var found: [(key: WorldKey, number: Int32)] = []
    /// A move's tokens renamed after the machine's (see `MachineMove.names`), kept from move to
    /// move so that renaming allocates nothing once it is large enough.
    var renamed: [String] = []

    init(timesInvariants: Bool) {
      self.timesInvariants = timesInvariants
      buffer.reserveCapacity(16)
    }

    mutating func takeBuffer() -> [Effect] {
      var b: [Effect] = []
      swap(&b, &buffer)
      b.removeAllKeepingCapacity()
      return b
    }

    mutating func returnBuffer(_ b: [Effect]) { buffer = b }

    mutating func observe(
      before: AuthMachine, event: Event, after: AuthMachine, effects: [Effect], at: Instant,
      same: Bool
    ) {
      // Only transitions that do something: an ignored intent or a stale answer is no edge.
      if !same {
        codes.append(
          ModelChecker.edgeCode(before.stateName, ModelChecker.eventCode(event), after.stateName))
      }
    }
  }

  /// Everything the exploration has numbered: machines with their moves, stores, timer
  /// operations, and world states.
  struct Tables {
    /// Canonical machines by their words, and each machine.
    var machineKeys = StateTable()
    var machines: [AuthMachine] = []
    /// Per machine, its moves (empty: not expanded yet; every machine has a move per intent).
    /// Each machine's array is the one its expansion built, kept as it is: the merge copies no
    /// move, and the pages were touched by the thread that expanded the machine.
    var moves: [[MachineMove]] = []
    /// Per machine, whether its moves are in `moves` (whether its list is not empty), one byte
    /// each: a level's first pass asks it of every state's machine, and reading each machine's
    /// list for that was a cache miss on the one thread the others wait for.
    var expanded: [Bool] = []
    /// The violations of machines' moves, by `violationKey(machine, move)`.
    var moveViolations: [Int: [Violation]] = [:]
    /// Stores by their words (after their machine's), and each store's canonical session.
    var storeKeys = StateTable()
    var stores: [Session?] = []
    /// The machines' moves' token renamings (see `MachineMove.names`).
    var names: [UInt8] = []
    /// Timer operations by number.
    var ops: [TimerOps] = [.keep]
    var opNumbers: [TimerOps: UInt32] = [.keep: 0]
    /// The visited set.
    var worlds = WorldTable()

    init() {
      // The stores every machine can have: not read, its own session, empty.
      for w in [[UInt32(0)], [1], [2]] {
        storeKeys.insert(w, hash: StateTable.hash(w))
        stores.append(nil)
      }
    }

    /// Adds a machine known not to be here; returns its number.
    mutating func add(machine: AuthMachine, words: [UInt32], hash: UInt64) -> Int32 {
      machines.append(machine)
      moves.append([])
      expanded.append(false)
      return machineKeys.insert(words, hash: hash)
    }

    /// Starts the visited sets' lists of what is added from now on (see `RecentIndex`): called
    /// before a chunk's merge, whose look-ups are only of keys its expansions did not find.
    mutating func mark() {
      machineKeys.mark()
      storeKeys.mark()
      worlds.mark()
    }

    /// The number of timer operations (given now when new).
    mutating func number(_ op: TimerOps) -> UInt32 {
      if let n = opNumbers[op] { return n }
      let n = UInt32(ops.count)
      opNumbers[op] = n
      ops.append(op)
      return n
    }

    /// The key of a machine's move in `moveViolations`.
    static func violationKey(_ machine: Int, _ move: Int) -> Int { machine << 16 | move }

    /// Numbers an expansion's fresh parts, in order; the result maps `-(k + 2)` to a number.
    /// A machine or session new to the tables is moved out of `parts`, not copied: a copy
    /// would retain each of its boxes here and the expanding thread would release them again,
    /// each a cache miss on memory another core wrote, on the one thread the others wait for.
    /// One another expansion numbered first stays in `parts`, for the expanding thread to free.
    /// The parts were looked up by the expansion in the tables as they were at the last
    /// `mark()`, so only what was added since is looked up again.
    mutating func number(_ parts: inout FreshParts) -> (machines: [Int32], stores: [Int32]) {
      let machineNumbers = parts.machineWords.indices.map { k in
        let words = parts.machineWords[k]
        let hash = parts.machineHashes[k]
        if let n = machineKeys.findRecent(words, hash: hash) { return n }
        return add(machine: parts.takeMachine(k), words: words, hash: hash)
      }
      let storeNumbers = parts.storeWords.indices.map { k in
        let words = parts.storeWords[k]
        let hash = parts.storeHashes[k]
        if let n = storeKeys.findRecent(words, hash: hash) { return n }
        stores.append(parts.takeStore(k))
        return storeKeys.insert(words, hash: hash)
      }
      return (machineNumbers, storeNumbers)
    }

    /// The concrete world of a state (time 0, as every abstract state is).
    func world(_ key: WorldKey, reducer: World.Reducer?) -> World {
      let machine = machines[Int(key.machine)]
      // No record of requests and no history: an abstract state has no past to check against.
      var w = World(machine: machine, now: Instant(0), reducer: reducer, keepsRecords: false)
      w.timers.tokenRefresh = TimerBits.seconds(key.refresh).map(Instant.init)
      w.timers.restoreRetry = TimerBits.seconds(key.retry).map(Instant.init)
      switch key.store {
      case 0: w.storeKnown = false
      case 1:
        w.storeKnown = true
        w.store = machine.user?.session
      default:
        w.storeKnown = true
        w.store = stores[Int(key.store)]
      }
      w.counter = 1000
      return w
    }

    /// The concrete world of a machine alone: no timers, the store not read.
    func world(machine m: Int, reducer: World.Reducer?) -> World {
      world(
        WorldKey(machine: UInt32(m), store: 0, refresh: TimerBits.none, retry: TimerBits.none),
        reducer: reducer)
    }
  }

  /// Explores the space breadth-first, a level at a time. Each level is expanded in two passes,
  /// each on every core (`options.threads`) against what is already numbered, then merged in a
  /// fixed order, so the result (states, counterexamples, edges) is the same on any number of
  /// cores:
  ///
  /// 1. every machine the level meets for the first time: each of its own moves (intents,
  ///    answers, timers firing, other processes' writes) is applied once, with the invariants,
  ///    and kept as the machine afterwards, its timer operations and what it does to the store;
  /// 2. every state of the level: each move of its machine composed with the state's timers and
  ///    store, and the moves that depend on those (a relaunch, time passing) applied whole.
  ///
  /// A state is a machine with timers and a store, and far fewer machines than states exist, so
  /// the reducer and the invariants run once per machine and move, not once per state and move.
  public func run() -> Result {
    let wallStart = Stopwatch.now()
    var result = Result()
    let interner = Interner()
    var t = Tables()
    var parent: [Int32] = []
    var via: [UInt16] = []
    // The graph, for liveness: state i's successors are succ[succStart[i]..<succStart[i + 1]]
    // (self-loops and repeats left out: they change nothing about what can be reached).
    var succ: [Int32] = []
    var succStart: [Int] = [0]
    var violationAt: Set<Int32> = []
    var edgeCodes: Set<UInt32> = []
    var witnessAt: [UInt32: (state: Int32, move: UInt16)] = [:]
    // Edges of machines' answers to a first launch's read, kept for the first state with that
    // machine whose store is not read yet (only such a state takes them).
    var loadEdges: [Int: [(code: UInt32, move: Int)]] = [:]
    var stats = Stats()
    stats.threads = max(1, options.threads)

    do {
      let root = World(policy: options.policy, reducer: options.reducer)
      var encoder = PackedEncoder(policy: options.policy, cache: InternerCache(interner))
      encoder.machine(root.machine, now: root.now)
      let m = t.add(
        machine: AbstractState(root).machine, words: encoder.words, hash: encoder.hash)
      let key = WorldKey(
        machine: UInt32(m), store: 0, refresh: TimerBits.none, retry: TimerBits.none)
      t.worlds.insert(key, hash: key.hash)
    }
    parent.append(-1)
    via.append(0)

    var levelStart = 0
    var stoppedEarly = false
    var level = 0
    while levelStart < t.worlds.count {
      let levelEnd = t.worlds.count
      result.maxDepth = level
      if let maxDepth = options.maxDepth, level >= maxDepth {
        stoppedEarly = true
        break
      }
      let count = levelEnd - levelStart

      // 1. The machines met for the first time.
      var newMachines: [Int] = []
      do {
        var seen = Set<UInt32>()
        t.worlds.keys.withUnsafeBufferPointer { keys in
          for k in levelStart..<levelEnd {
            let m = keys[k].machine
            if !t.expanded[Int(m)], seen.insert(m).inserted { newMachines.append(Int(m)) }
          }
        }
      }
      // Expanded a chunk at a time (the chunk's expansions are merged before the next is expanded,
      // so memory holds one chunk's), each thread keeping its encoder from chunk to chunk.
      var levelEdges: [Int: [(code: UInt32, move: Int)]] = [:]
      let machineChunk = max(1, options.chunk.machines)
      let stateChunk = max(1, options.chunk.states)
      do {
        let threads = max(1, min(options.threads, newMachines.count / 16 + 1))
        var encoders = (0..<threads).map { _ in
          PackedEncoder(policy: options.policy, cache: InternerCache(interner))
        }
        var sinks = (0..<threads).map { _ in MachineSink(timesInvariants: options.collectStats) }
        var machineExpansions = [MachineExpansion](
          repeating: MachineExpansion(), count: min(newMachines.count, machineChunk))
        for from in stride(from: 0, to: newMachines.count, by: machineChunk) {
          let to = min(from + machineChunk, newMachines.count)
          do {
            let frozen = t
            let list = newMachines
            Self.expand(
              from..<to, threads: threads, perThread: 16, into: &machineExpansions,
              encoders: &encoders, sinks: &sinks
            ) { k, encoder, sink, x in
              expandMachine(list[k], tables: frozen, encoder: &encoder, sink: &sink, into: &x)
            }
          }
          let mergeStart = options.collectStats ? Stopwatch.now() : 0
          t.mark()
          for k in from..<to {
            let m = newMachines[k]
            // Moved out and back: its arrays are freed by the thread that next fills the slot,
            // not by this one, which the others wait for.
            var x = MachineExpansion()
            swap(&x, &machineExpansions[k - from])
            defer { swap(&x, &machineExpansions[k - from]) }
            stats.add(x.stats)
            let (machines, stores) = t.number(&x.fresh)
            let ops = x.freshOps.map { t.number($0) }
            let namesBase = Int32(t.names.count)
            x.moves.withUnsafeMutableBufferPointer { moves in
              for j in moves.indices {
                let move = moves[j]
                if move.target < -1 { moves[j].target = machines[Int(-move.target - 2)] }
                if move.store < -1 { moves[j].store = stores[Int(-move.store - 2)] }
                if move.fromSame < -1 { moves[j].fromSame = stores[Int(-move.fromSame - 2)] }
                if move.names >= 0 { moves[j].names += namesBase }
                if move.timers & MachineMove.freshOps != 0 {
                  moves[j].timers = ops[Int(move.timers & ~MachineMove.freshOps)]
                }
              }
            }
            t.names.append(contentsOf: x.names)
            for (j, v) in x.violations { t.moveViolations[Tables.violationKey(m, j)] = v }
            let isLoad = { (e: (code: UInt32, move: Int)) in
              x.moves[e.move].flags & MachineMove.loadAnswer != 0
            }
            // Only edges not witnessed yet: for the others the first state would do nothing.
            let novel = x.edges.filter { !edgeCodes.contains($0.code) }
            let level = novel.filter { !isLoad($0) }
            if !level.isEmpty { levelEdges[m] = level }
            let load = novel.filter(isLoad)
            if !load.isEmpty { loadEdges[m] = load }
            t.moves[m] = x.moves
            t.expanded[m] = true
          }
          if options.collectStats { stats.merged(since: mergeStart) }
        }
      }

      // 2. The level's states.
      do {
        let threads = max(1, min(options.threads, count / 64 + 1))
        var encoders = (0..<threads).map { _ in
          PackedEncoder(policy: options.policy, cache: InternerCache(interner))
        }
        var sinks = (0..<threads).map { _ in EdgeSink(timesInvariants: options.collectStats) }
        var expansions = [Expansion](repeating: Expansion(), count: min(count, stateChunk))
        var freshIndex: [Int32] = []
        for from in stride(from: levelStart, to: levelEnd, by: stateChunk) {
          let to = min(from + stateChunk, levelEnd)
          do {
            let frozen = t
            Self.expand(
              from..<to, threads: threads, perThread: 64, into: &expansions, encoders: &encoders,
              sinks: &sinks
            ) { i, encoder, sink, e in
              expandWorld(i, tables: frozen, encoder: &encoder, sink: &sink, into: &e)
            }
          }
          // Merge in order.
          let mergeStart = options.collectStats ? Stopwatch.now() : 0
          t.mark()
          var touched = 0
          for i in from..<to {
            if (i - from) % Expansion.touchAhead == 0 {
              touched &+= Expansion.touch(expansions, from: i - from)
            }
            let key = t.worlds.keys[i]
            var e = Expansion()
            swap(&e, &expansions[i - from])
            // Put back: freed by the thread that fills the slot next, not by this one.
            defer { swap(&e, &expansions[i - from]) }
            stats.add(e.stats)
            result.transitions += e.transitions
            func witness(_ code: UInt32, _ move: UInt16) {
              edgeCodes.insert(code)
              // Breadth-first: the first is the shortest.
              if witnessAt[code] == nil { witnessAt[code] = (Int32(i), move) }
            }
            // The first state with a machine takes its machine's edges.
            if !levelEdges.isEmpty, let edges = levelEdges.removeValue(forKey: Int(key.machine)) {
              for (code, move) in edges { witness(code, UInt16(move)) }
            }
            if key.store == 0, !loadEdges.isEmpty,
              let edges = loadEdges.removeValue(forKey: Int(key.machine))
            {
              for (code, move) in edges { witness(code, UInt16(move)) }
            }
            if e.hasEdges {
              for (code, move) in e.edges { witness(code, move) }
            }
            let (machines, stores) = e.hasParts ? t.number(&e.parts) : ([], [])
            func resolve(_ n: Int32, _ fresh: [Int32]) -> UInt32 {
              UInt32(n < -1 ? fresh[Int(-n - 2)] : n)
            }
            // The fresh states' numbers, found or given now, in the order of their first move.
            freshIndex.removeAllKeepingCapacity()
            if e.hasFresh { freshIndex.append(contentsOf: repeatElement(-1, count: e.fresh.count)) }
            let brokenCount = e.hasBroken ? e.broken.count : 0
            var brokenAt = 0
            var allSelf = true
            var anyTarget = e.selfLoops > 0
            stats.selfLoops += e.selfLoops
            let before = succ.count
            for (p, target0) in e.targets.enumerated() {
              var target = target0
              if target0 < 0 {
                let f = Int(-target0 - 1)
                if freshIndex[f] < 0 {
                  let fr = e.fresh[f]
                  let fk = WorldKey(
                    machine: resolve(fr.machine, machines), store: resolve(fr.store, stores),
                    refresh: fr.refresh, retry: fr.retry)
                  let h = fk.hash
                  // Not in the visited set when the chunk was expanded, so only what this
                  // merge added can hold it.
                  if let j = t.worlds.findRecent(fk, hash: h) {
                    freshIndex[f] = j
                  } else if let maxStates = options.maxStates, t.worlds.count >= maxStates {
                    stoppedEarly = true
                  } else {
                    freshIndex[f] = t.worlds.insert(fk, hash: h)
                    parent.append(Int32(i))
                    via.append(e.freshMoves[f])
                  }
                }
                target = freshIndex[f]
              }
              var broken: (move: UInt16, violations: [Violation]?)?
              if brokenAt < brokenCount, e.broken[brokenAt].target == Int32(p) {
                broken = (e.broken[brokenAt].move, e.broken[brokenAt].violations)
                brokenAt += 1
              }
              guard target >= 0 else { continue }
              anyTarget = true
              if target != Int32(i) {
                allSelf = false
                if succ.count == before || succ[succ.count - 1] != target { succ.append(target) }
              } else {
                stats.selfLoops += 1
              }
              if let broken {
                result.violationCount += 1
                if result.violations.count < options.keepViolations, !violationAt.contains(target) {
                  violationAt.insert(target)
                  let violations =
                    broken.violations
                    ?? t.moveViolations[Tables.violationKey(Int(key.machine), Int(broken.move))]
                    ?? []
                  let path =
                    self.path(to: i, parent: parent, via: via, tables: t)
                    + [choice(key, move: Int(broken.move), tables: t)]
                  result.violations.append(
                    Counterexample(
                      violations: violations, events: concrete(path), policy: policy(of: path)))
                }
              }
            }
            if anyTarget, allSelf { result.deadEnds += 1 }
            succStart.append(succ.count)
          }
          if options.collectStats { stats.merged(since: mergeStart) }
          stats.touched &+= touched
        }
      }
      options.progress?(t.worlds.count, result.transitions, level)
      levelStart = levelEnd
      level += 1
    }
    // States never expanded (a limit was hit) have no successors.
    while succStart.count <= t.worlds.count { succStart.append(succ.count) }
    result.states = t.worlds.count
    result.edges = Set(edgeCodes.map(Self.edge))
    if options.keepWitnesses {
      for (code, w) in witnessAt {
        let path =
          self.path(to: Int(w.state), parent: parent, via: via, tables: t)
          + [choice(t.worlds.keys[Int(w.state)], move: Int(w.move), tables: t)]
        result.witnesses[Self.edge(code)] = concrete(path)
        result.witnessPolicies[Self.edge(code)] = policy(of: path)
      }
    }
    result.complete = !stoppedEarly
    let livenessStart = Stopwatch.now()
    if result.complete {
      // Liveness: which states reach a signedOut state.
      let states = t.worlds.count
      var canReach = [Bool](repeating: false, count: states)
      for k in 0..<states
      where t.machines[Int(t.worlds.keys[k].machine)].stateName == .signedOut {
        canReach[k] = true
      }
      Self.markReaching(&canReach, succ: &succ, succStart: succStart)
      let stuck = canReach.indices.filter { !canReach[$0] }
      result.cannotSignOut = stuck.count
      if let first = stuck.first {
        result.cannotSignOutExample = concrete(
          self.path(to: first, parent: parent, via: via, tables: t))
      }
    }
    stats.livenessNanos = Stopwatch.now() &- livenessStart
    stats.wallNanos = Stopwatch.now() &- wallStart
    stats.visitedBytes = t.worlds.bytes
    stats.machines = t.machines.count
    stats.stores = t.stores.count
    stats.peakResidentBytes = Self.peakResidentBytes()
    result.stats = stats
    // The tables hold every machine, session and move list met: millions of boxes and arrays,
    // whose release takes seconds on a large space. They are released on another thread, so the
    // result is returned without waiting for them.
    var tables = Tables()
    swap(&tables, &t)
    Self.releaseLater(tables)
    return result
  }

  /// Releases `value` on a background thread, so what it holds is freed there; the caller
  /// keeps no other reference to it.
  static func releaseLater<T>(_ value: consuming T) {
    let owner = Owner(consume value)
    DispatchQueue.global(qos: .utility).async { owner.release() }
  }

  /// Owns a value until `release()`, so only the thread that calls it frees the value.
  final class Owner<T>: @unchecked Sendable {
    private var value: T?
    init(_ value: consuming T) { self.value = consume value }
    func release() { value = nil }
  }

  /// Marks in `canReach` every state with a path to one already marked: the fixpoint. First by
  /// sweeps over the successor lists, last state first (a successor is mostly numbered after
  /// its state, so one sweep carries a mark back along most paths, and most states are a move
  /// or two from signing out); where a few sweeps leave it still changing, by a walk backwards
  /// over the reversed graph from every marked state, which needs the reversed graph's memory
  /// (as many entries as `succ`) and is exact in one pass. Either way the result is the same
  /// set. `succ` is emptied.
  static func markReaching(_ canReach: inout [Bool], succ: inout [Int32], succStart: [Int]) {
    let states = canReach.count
    var changed = true
    var sweeps = 0
    while changed, sweeps < 4 {
      changed = false
      sweeps += 1
      canReach.withUnsafeMutableBufferPointer { reach in
        succ.withUnsafeBufferPointer { succ in
          for from in stride(from: states - 1, through: 0, by: -1) where !reach[from] {
            for s in succStart[from]..<succStart[from + 1] where reach[Int(succ[s])] {
              reach[from] = true
              changed = true
              break
            }
          }
        }
      }
    }
    guard changed else {
      succ = []
      return
    }
    var reverseStart = [Int](repeating: 0, count: states + 1)
    for to in succ { reverseStart[Int(to) + 1] += 1 }
    for k in 0..<states { reverseStart[k + 1] += reverseStart[k] }
    var fill = reverseStart
    var reverse = [Int32](repeating: 0, count: succ.count)
    for from in 0..<states {
      for s in succStart[from]..<succStart[from + 1] {
        let to = Int(succ[s])
        reverse[fill[to]] = Int32(from)
        fill[to] += 1
      }
    }
    succ = []
    fill = []
    var queue = canReach.indices.filter { canReach[$0] }.map(Int32.init)
    var head = 0
    while head < queue.count {
      let k = Int(queue[head])
      head += 1
      for r in reverseStart[k]..<reverseStart[k + 1] where !canReach[Int(reverse[r])] {
        canReach[Int(reverse[r])] = true
        queue.append(reverse[r])
      }
    }
  }

  /// Fills `out[0..<range.count]` with `expand(k, …)` for each `k` in `range`, on up to `threads`
  /// threads (one per `perThread` items of a small range); thread `th` lends `encoders[th]` and
  /// `sinks[th]`, which it keeps from chunk to chunk. Each thread claims the next `perThread`
  /// items whenever it is done with its last, so a thread that met costlier items does not keep
  /// the others waiting at the chunk's end; what lands in `out` does not depend on who took what.
  static func expand<Sink, Output>(
    _ range: Range<Int>, threads: Int, perThread: Int, into out: inout [Output],
    encoders: inout [PackedEncoder], sinks: inout [Sink],
    _ expand: @Sendable (Int, inout PackedEncoder, inout Sink, inout Output) -> Void
  ) {
    let n = max(1, min(threads, range.count / perThread + 1))
    let claims = Claims(range, batch: max(1, perThread))
    out.withUnsafeMutableBufferPointer { out in
      encoders.withUnsafeMutableBufferPointer { encoders in
        sinks.withUnsafeMutableBufferPointer { sinks in
          let buffer = UnsafeMutableSendable(out)
          let encoders = UnsafeMutableSendable(encoders)
          let sinks = UnsafeMutableSendable(sinks)
          DispatchQueue.concurrentPerform(iterations: n) { th in
            while let batch = claims.next() {
              for k in batch {
                expand(
                  k, &encoders.pointer[th], &sinks.pointer[th],
                  &buffer.pointer[k - range.lowerBound])
              }
            }
          }
        }
      }
    }
  }

  /// Every move of one machine's own, applied once with the invariants checked: the machine
  /// afterwards, its timer operations, and what it does to the store. `x` is emptied first; its
  /// arrays keep their memory from the machine it last held, so a machine's expansion allocates
  /// nothing once they are large enough.
  func expandMachine(
    _ m: Int, tables t: Tables, encoder: inout PackedEncoder, sink: inout MachineSink,
    into x: inout MachineExpansion
  ) {
    x.reset()
    let timing = options.collectStats
    var clock = timing ? Stopwatch.now() : 0
    let world = t.world(machine: m, reducer: options.reducer)
    let machine = world.machine
    let restoring: Bool
    if case .restoring = machine.phase { restoring = true } else { restoring = false }
    // Each family's answers are built once (the world after building them is the same whichever
    // answer is then taken). Three arrays, not one of tuples: reading a field of an array's tuple
    // copies the whole tuple, a world included.
    var cachedFamilies: [RequestFamily] = []
    var cachedWorlds: [World] = []
    var cachedAnswers: [Alphabet.Answers] = []
    encoder.machine(machine, now: world.now)
    // A copy in the sink's own buffer: sharing the encoder's would make its next reset allocate.
    sink.ownTokens.removeAllKeepingCapacity()
    sink.ownTokens.append(contentsOf: encoder.tokens)
    // The machine's moves (`Alphabet.machineChoices`): the intents, the same for every
    // machine, then the machine's own.
    let intents = Alphabet.intents
    let own = Alphabet.choicesAfterIntents(
      world, everyMigrationPolicy: options.everyMigrationPolicy)
    x.moves.reserveCapacity(intents.count + own.count)
    for j in 0..<(intents.count + own.count) {
      // Each move copies the world once: from the machine's, or from its answers' family's.
      var next: World
      let event: WorldEvent
      var entry = MachineMove()
      var migration: MigrationPolicy? = nil
      var firing: TimerID? = nil
      if j < intents.count {
        // Sent straight from the list: no move is built for an intent.
        next = world
        event = Alphabet.send(intents[j], in: &next)
      } else {
        // The machine's own moves copy their choice once (out of the list, where the list's
        // element was copied twice: by the loop and into a variable).
        let choice: Choice
        if case .underMigrationPolicy(let p, let inner) = own[j - intents.count] {
          migration = p
          choice = inner
        } else {
          choice = own[j - intents.count]
        }
        if case .answer(let family, let k) = choice {
          if restoring, family == .flow { entry.flags |= MachineMove.loadAnswer }
          if let c = cachedFamilies.firstIndex(of: family) {
            next = cachedWorlds[c]
            event = cachedAnswers[c].event(k)
          } else {
            next = world
            guard let answers = Alphabet.answers(for: family, in: &next) else {
              x.moves.append(entry)
              continue
            }
            cachedFamilies.append(family)
            cachedWorlds.append(next)
            cachedAnswers.append(answers)
            event = answers.event(k)
          }
        } else {
          next = world
          guard let resolved = Alphabet.resolve(choice, in: &next) else {
            x.moves.append(entry)  // Does not apply to this machine.
            continue
          }
          event = resolved
        }
        if case .fire(let timer) = choice { firing = timer }
      }
      sink.reset(firing: firing)
      let violations: [Violation]
      if let migration {
        violations = next.apply(event, migration: migration, into: &sink)
      } else {
        violations = next.apply(event, into: &sink)
      }
      // From here on the move's world is only read (see `FreshParts.machine` for why no closure
      // captures it).
      let w = consume next
      x.evaluated += 1
      if timing {
        let now = Stopwatch.now()
        x.stats.applied(from: clock, to: now, sink)
        clock = now
      }
      if !violations.isEmpty {
        entry.flags |= MachineMove.broken
        x.violations.append((j, violations))
      }
      if let code = sink.code, !x.edges.contains(where: { $0.code == code }) {
        x.edges.append((code, j))
      }
      if w.machine.user != nil { entry.flags |= MachineMove.userAfter }
      entry.timers = x.timerOps(sink.ops, known: t.opNumbers)
      if sink.code == nil, !w.storeKnown {
        // The machine as it was, nothing emitted: the store relates to it as before.
        entry.flags |= MachineMove.unchanged
        entry.target = Int32(m)
        x.moves.append(entry)
        continue
      }
      encoder.machine(w.machine, now: w.now)
      let (target, canonical) = x.fresh.machine(
        encoder.words, hash: encoder.hash, of: w, known: t.machineKeys)
      entry.target = target
      if !w.storeKnown, encoder.tokens.count < 255 {
        entry.names = Int32(x.names.count)
        x.names.append(UInt8(encoder.tokens.count))
        for token in encoder.tokens {
          x.names.append(sink.ownTokens.firstIndex(of: token).map { UInt8($0 + 1) } ?? 0)
        }
      }
      if w.storeKnown {
        // The move decided the store: a write, another process's write, or the first read.
        entry.store = x.fresh.store(
          encoder.storeWords(AbstractState.storeView(w)), of: w, canonical: canonical,
          known: t.storeKeys)
      } else if w.machine.user?.session != machine.user?.session {
        // The store held the session the machine had, and the machine moved on without it.
        var held = w
        held.storeKnown = true
        held.store = machine.user?.session
        entry.fromSame = x.fresh.store(
          encoder.storeWords(AbstractState.storeView(held)), of: held, known: t.storeKeys)
      }
      x.moves.append(entry)
      if timing {
        let now = Stopwatch.now()
        x.stats.canonicalNanos &+= now &- clock
        clock = now
      }
    }
    x.stats.machineMoves = x.evaluated
  }

  /// Every move from one world state: its machine's moves composed with its timers and store,
  /// then the moves of its own (applied whole), each keyed. `e` is emptied first and keeps its
  /// arrays' memory, as in `expandMachine`.
  func expandWorld(
    _ i: Int, tables t: Tables, encoder: inout PackedEncoder, sink: inout EdgeSink,
    into e: inout Expansion
  ) {
    e.reset()
    let timing = options.collectStats
    var clock = timing ? Stopwatch.now() : 0
    let key = t.worlds.keys[i]
    let m = Int(key.machine)
    let count = t.moves[m].count
    var world: World?
    var machineChoices: [Choice]?
    var ownTokens: [String]?
    e.targets.reserveCapacity(count + 3)
    sink.found.removeAllKeepingCapacity()

    /// A successor: this state, a known one, or a fresh one.
    func reach(_ next: WorldKey, machine: Int32, store: Int32, move: Int) {
      // A broken move's entry is made just before its target, which is then listed whatever it
      // is; any other move back to this state, or to one listed already, is only counted.
      let broken = e.broken.last.map { $0.target == Int32(e.targets.count) } ?? false
      if next == key {
        if broken { e.targets.append(Int32(i)) } else { e.selfLoops += 1 }
        return
      }
      if machine >= 0, store >= 0 {
        // Almost half the look-ups of a state's moves repeat one of its earlier ones; those are
        // answered from the state's own short list instead of the visited set, whose slots and
        // keys are each a cache miss once the space is large.
        if let j = sink.found.first(where: { $0.key == next })?.number {
          if broken { e.targets.append(j) }
          return
        }
        if let j = t.worlds.find(next, hash: next.hash) {
          sink.found.append((next, j))
          e.targets.append(j)
          return
        }
      }
      for f in e.fresh.indices
      where e.fresh[f].machine == machine && e.fresh[f].store == store
        && e.fresh[f].refresh == next.refresh && e.fresh[f].retry == next.retry
      {
        if broken { e.targets.append(-Int32(f) - 1) }
        return
      }
      e.targets.append(-Int32(e.fresh.count) - 1)
      e.fresh.append((machine, store, next.refresh, next.retry))
      e.freshMoves.append(UInt16(move))
    }

    /// Applies a move to the whole world and keys what comes of it; returns the state it led
    /// to when that is numbered and no invariant broke.
    @discardableResult
    func whole(_ choice: Choice, move: Int) -> WorldKey? {
      if world == nil { world = t.world(key, reducer: options.reducer) }
      var w = world!
      guard let event = Alphabet.resolve(choice, in: &w) else { return nil }
      sink.codes.removeAllKeepingCapacity()
      sink.invariantNanos = 0
      sink.reducerNanos = 0
      let violations: [Violation]
      if case .underMigrationPolicy(let p, _) = choice {
        violations = w.apply(event, migration: p, into: &sink)
      } else {
        violations = w.apply(event, into: &sink)
      }
      e.transitions += 1
      e.stats.worldMoves += 1
      for code in sink.codes where !e.edges.contains(where: { $0.code == code }) {
        e.edges.append((code, UInt16(move)))
      }
      if timing {
        let now = Stopwatch.now()
        e.stats.applied(from: clock, to: now, sink)
        clock = now
      }
      if !violations.isEmpty {
        e.broken.append((Int32(e.targets.count), UInt16(move), violations))
      }
      encoder.machine(w.machine, now: w.now)
      let (machine, canonical) = e.parts.machine(
        encoder.words, hash: encoder.hash, of: w, known: t.machineKeys)
      let store = e.parts.store(
        encoder.storeWords(AbstractState.storeView(w)), of: w, canonical: canonical,
        known: t.storeKeys)
      let next = WorldKey(
        machine: UInt32(bitPattern: machine), store: UInt32(bitPattern: store),
        refresh: TimerBits.of(w.timers.tokenRefresh.map { $0 - w.now }),
        retry: TimerBits.of(w.timers.restoreRetry.map { $0 - w.now }))
      if timing {
        let now = Stopwatch.now()
        e.stats.canonicalNanos &+= now &- clock
        clock = now
      }
      reach(next, machine: machine, store: store, move: move)
      return violations.isEmpty && machine >= 0 && store >= 0 ? next : nil
    }

    t.moves[m].withUnsafeBufferPointer { moves in
      for j in 0..<count {
        let move = moves[j]
        if move.target < 0 { continue }
        if move.flags & MachineMove.loadAnswer != 0, key.store != 0 { continue }
        // The store afterwards, where the machine's move says it without the whole world.
        var store: Int32
        if move.store >= 0 {
          store = move.store
        } else if move.flags & MachineMove.unchanged != 0 {
          store = Int32(key.store)
        } else {
          switch key.store {
          case 0: store = 0
          case 1: store = move.fromSame
          case 2: store = move.flags & MachineMove.userAfter != 0 ? 2 : 1
          default:
            // A session the machine does not have, named after the machine's tokens: the
            // machine changed, so the store is keyed again after the new machine's tokens (or,
            // where that gives a store not numbered yet, from the whole world).
            if move.names >= 0 {
              if ownTokens == nil {
                encoder.machine(t.machines[m], now: Instant(0))
                ownTokens = encoder.tokens
              }
              let at = Int(move.names)
              sink.renamed.removeAllKeepingCapacity()
              for k in 0..<Int(t.names[at]) {
                let n = Int(t.names[at + 1 + k])
                sink.renamed.append(n > 0 ? ownTokens![n - 1] : "\u{1}new\(k)")
              }
              let words = encoder.storeWords(
                holding: t.stores[Int(key.store)], tokens: sink.renamed)
              if let n = t.storeKeys.find(words, hash: StateTable.hash(words)) {
                store = n
                break
              }
            }
            if machineChoices == nil {
              machineChoices = Alphabet.machineChoices(
                t.world(machine: m, reducer: options.reducer),
                everyMigrationPolicy: options.everyMigrationPolicy)
            }
            whole(machineChoices![j], move: j)
            continue
          }
        }
        e.transitions += 1
        if move.flags & MachineMove.broken != 0 {
          e.broken.append((Int32(e.targets.count), UInt16(j), nil))
        }
        let ops = t.ops[Int(move.timers)]
        let next = WorldKey(
          machine: UInt32(move.target), store: UInt32(store),
          refresh: TimerBits.apply(ops.refresh, to: key.refresh),
          retry: TimerBits.apply(ops.retry, to: key.retry))
        reach(next, machine: move.target, store: store, move: j)
      }
    }
    if timing {
      let now = Stopwatch.now()
      e.stats.visitedNanos &+= now &- clock
      clock = now
    }
    let extra = ownChoices(key, tables: t, world: &world)
    for (x, choice) in extra.enumerated() {
      if case .relaunch(lostLastWrite: false) = choice {
        // A new process: what it comes to depends on the store alone, so it is remembered by
        // the store's number, or, for a store holding the machine's session, by that session's
        // canonical form (which many machines share), found once per machine.
        var known: Relaunch?
        var session: [UInt32]?
        if key.store != 1 {
          known = sink.relaunchesByStore[key.store]
        } else if let r = sink.relaunchesByMachine[key.machine] {
          known = r
        } else {
          encoder.reset(now: Instant(0))
          encoder.store(.holds(t.machines[m].user?.session))
          let words = encoder.words
          session = words
          known = sink.relaunchesBySession[words]
          if let known { sink.relaunchesByMachine[key.machine] = known }
        }
        if let (next, codes) = known {
          e.transitions += 1
          for code in codes where !e.edges.contains(where: { $0.code == code }) {
            e.edges.append((code, UInt16(count + x)))
          }
          reach(next, machine: Int32(next.machine), store: Int32(next.store), move: count + x)
        } else if let next = whole(choice, move: count + x) {
          let r = (next, sink.codes)
          if let session {
            sink.relaunchesBySession[session] = r
            sink.relaunchesByMachine[key.machine] = r
          } else {
            sink.relaunchesByStore[key.store] = r
          }
        }
        continue
      }
      whole(choice, move: count + x)
    }
    e.seal()
  }

  /// The move numbered `move` from a state: its machine's, or one of its own after those.
  func choice(_ key: WorldKey, move: Int, tables t: Tables) -> Choice {
    let count = t.moves[Int(key.machine)].count
    if move < count {
      return Alphabet.machineChoices(
        t.world(machine: Int(key.machine), reducer: options.reducer),
        everyMigrationPolicy: options.everyMigrationPolicy)[move]
    }
    var world: World?
    return ownChoices(key, tables: t, world: &world)[move - count]
  }

  /// A state's own moves (`Alphabet.worldChoices` of its world), read from its key: the world is
  /// built into `world` only where they depend on more than the key says (a relaunch's read
  /// answered), so a state whose moves all compose or are remembered builds none.
  func ownChoices(_ key: WorldKey, tables t: Tables, world: inout World?) -> [Choice] {
    Alphabet.worldChoices(
      t.machines[Int(key.machine)], storeKnown: key.store != 0,
      timers: key.refresh != TimerBits.none || key.retry != TimerBits.none
    ) {
      if let world { return world }
      let w = t.world(key, reducer: options.reducer)
      world = w
      return w
    }
  }

  /// The choices from the root to state `i`.
  func path(to i: Int, parent: [Int32], via: [UInt16], tables t: Tables) -> [Choice] {
    var out: [Choice] = []
    var k = i
    while parent[k] >= 0 {
      let p = Int(parent[k])
      out.append(choice(t.worlds.keys[p], move: Int(via[k]), tables: t))
      k = p
    }
    return out.reversed()
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

  /// Answers' outcome names in `eventKinds`' order, found without hashing the name.
  static let answerNames = StringList(AnswerName.allCases.map(\.rawValue))

  static let answersEnd = UInt32(Intent.Kind.allCases.count + AnswerName.allCases.count)

  /// The number of an event's kind in `eventKinds`.
  static func eventCode(_ event: Event) -> UInt32 {
    switch event {
    case .intent(let i): return UInt32(caseNumber(i.kind))
    case .answer(let a):
      return answerNames.index(of: a.outcomeName).map { UInt32(Intent.Kind.allCases.count + $0) }
        ?? 0
    case .timerFired(let t): return answersEnd + UInt32(caseNumber(t))
    case .persistFailed: return answersEnd + UInt32(TimerID.allCases.count)
    case .storeChanged: return answersEnd + UInt32(TimerID.allCases.count) + 1
    }
  }

  /// A packed edge: the state names' and the event kind's numbers.
  static func edgeCode(_ from: StateName, _ event: UInt32, _ to: StateName) -> UInt32 {
    UInt32(caseNumber(from)) << 24 | UInt32(caseNumber(to)) << 16 | event
  }

  /// A payload-free enum's case by number: its place in `allCases`. Swift numbers such an
  /// enum's cases in the order they are declared, the order `allCases` lists them, and holds
  /// the number in one byte, which this reads. The enums used here have `String` raw values,
  /// and a dictionary keyed by one hashes its raw string (about 50 ns a look-up, three times
  /// for each move that changes a machine). `CaseNumberTests` checks every enum it is used on.
  @inline(__always)
  static func caseNumber<E: CaseIterable>(_ value: E) -> Int {
    Int(unsafeBitCast(value, to: UInt8.self))
  }

  static func edge(_ code: UInt32) -> Edge {
    let names = StateName.allCases
    return Edge(
      from: names[Int(code >> 24)].rawValue, event: eventKinds[Int(code & 0xFFFF)],
      to: names[Int((code >> 16) & 0xFF)].rawValue)
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

/// The items of a range handed out a batch at a time to whichever thread asks next.
final class Claims: @unchecked Sendable {
  private let lock = NSLock()
  private var start: Int
  private let end: Int
  private let batch: Int

  init(_ range: Range<Int>, batch: Int) {
    start = range.lowerBound
    end = range.upperBound
    self.batch = batch
  }

  /// The next batch, or `nil` when every item was handed out.
  func next() -> Range<Int>? {
    lock.lock()
    defer { lock.unlock() }
    guard start < end else { return nil }
    let from = start
    start = min(end, start + batch)
    return from..<start
  }
}

/// A buffer handed to the threads that expand a level; each writes only its own slots.
struct UnsafeMutableSendable<T>: @unchecked Sendable {
  let pointer: UnsafeMutableBufferPointer<T>
  init(_ pointer: UnsafeMutableBufferPointer<T>) { self.pointer = pointer }
}
