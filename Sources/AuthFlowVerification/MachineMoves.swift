import AuthFlowCore

/// A timer's time relative to now, as the bits a world key holds.
enum TimerBits {
  /// No timer.
  static let none: UInt64 = .max
  /// In a move's timer operations: the timer is left as it was.
  static let keep: UInt64 = .max - 1

  /// The bits of a relative time (never below 0; -0 is 0), or `none`.
  static func of(_ seconds: Double?) -> UInt64 {
    guard let seconds else { return none }
    let v = max(0, seconds)
    return v == 0 ? 0 : v.bitPattern
  }

  /// The relative time the bits hold.
  static func seconds(_ bits: UInt64) -> Double? { bits == none ? nil : Double(bitPattern: bits) }

  /// `bits` after the operation `op`.
  @inline(__always)
  static func apply(_ op: UInt64, to bits: UInt64) -> UInt64 { op == keep ? bits : op }
}

/// A state of the model checker: its machine and its store by number, its timers relative to
/// now. Two worlds have equal keys exactly when their abstract states are equal: machines are
/// numbered by their canonical form, and a store by its canonical form after its machine's (see
/// `PackedEncoder.storeWords`).
struct WorldKey: Hashable {
  /// The canonical machine's number.
  var machine: UInt32
  /// The store's number: 0 not read yet, 1 the machine's session, 2 empty while the machine has
  /// a user, 3 and up a session the machine does not have.
  var store: UInt32
  /// When `tokenRefresh` fires, relative to now (`TimerBits`).
  var refresh: UInt64
  /// When `restoreRetry` fires, relative to now (`TimerBits`).
  var retry: UInt64

  /// A 64-bit mix of the four fields.
  @inline(__always)
  var hash: UInt64 {
    var h = (UInt64(machine) << 32 | UInt64(store)) &* 0x9E37_79B9_7F4A_7C15
    h ^= h >> 29
    h = (h ^ refresh) &* 0xBF58_476D_1CE4_E5B9
    h ^= h >> 31
    h = (h ^ retry) &* 0x94D0_49BB_1331_11EB
    return h ^ (h >> 29)
  }
}

/// The visited set over world keys: every key once in one flat array (in state order), found
/// through an open-addressing table of state numbers. Exact: a look-up compares the whole key.
struct WorldTable {
  /// The index of state numbers.
  private var slots: Slots
  /// Every state's key, by number.
  private(set) var keys: [WorldKey] = []
  /// The states added since `mark()`.
  private var recent = RecentIndex()

  init(capacity: Int = 1 << 16) { slots = Slots(capacity: capacity) }

  /// How many states it holds.
  var count: Int { keys.count }

  /// The bytes its arrays take.
  var bytes: Int { slots.bytes + keys.capacity * MemoryLayout<WorldKey>.stride }

  /// The number of the state with this key, if it is here.
  func find(_ key: WorldKey, hash: UInt64) -> Int32? {
    keys.withUnsafeBufferPointer { keys in slots.find(hash) { keys[Int($0)] == key } }
  }

  /// Starts a new `recent` list: what is added from now on.
  mutating func mark() { recent.mark(count: keys.count) }

  /// The number of the state with this key if it was added since `mark()`: for a key known not
  /// to have been here at the mark, the same answer as `find`, from a small index.
  func findRecent(_ key: WorldKey, hash: UInt64) -> Int32? {
    keys.withUnsafeBufferPointer { keys in recent.find(hash) { keys[$0] == key } }
  }

  /// Adds a key known not to be here; returns its number (states are numbered in order).
  @discardableResult
  mutating func insert(_ key: WorldKey, hash: UInt64) -> Int32 {
    if slots.isFull(adding: keys.count) {
      let keys = self.keys
      slots.grow(count: keys.count) { keys[$0].hash }
    }
    let n = Int32(keys.count)
    keys.append(key)
    slots.place(n, hash)
    if recent.isFull {
      let keys = self.keys
      recent.grow { keys[$0].hash }
    }
    recent.add(Int(n), hash)
    return n
  }
}

/// What one move does to one machine, whatever the timers and the store hold: computed once per
/// machine (reducer, invariants, canonical form) and composed with each world's timers and store.
struct MachineMove {
  /// The machine afterwards; -1 when the move does not apply to this machine (while a level's
  /// machines are expanded, `-(k + 2)` is the expansion's k-th new machine).
  var target: Int32 = -1
  /// The store afterwards whatever it held (a write, another process's write, the first read),
  /// or -1 when the move left it alone (while expanding, `-(k + 2)`: the k-th new store).
  var store: Int32 = -1
  /// The store afterwards when it held the machine's session and the move left it alone.
  var fromSame: Int32 = 1
  /// The move's timer operations: an index into the checker's table of them (while a level's
  /// machines are expanded, `freshOps | k`: the expansion's k-th operations the table lacked).
  var timers: UInt32 = 0
  /// Where the machine afterwards names its tokens, in `Tables.names` (a count, then for each
  /// token in the new machine's order its number in this machine's order, 0 for a new one), or
  /// -1. With it a store the machine does not hold is keyed again after the move without
  /// applying the move again (`PackedEncoder.storeWords(_:tokens:)`).
  var names: Int32 = -1
  /// `unchanged`, `userAfter`, `broken`, `loadAnswer`.
  var flags: UInt8 = 0

  /// The machine is as it was and nothing was emitted: the store still relates to it as before.
  static let unchanged: UInt8 = 1
  /// A user is signed in afterwards.
  static let userAfter: UInt8 = 2
  /// The move broke an invariant.
  static let broken: UInt8 = 4
  /// An answer to `loadSession` as the first launch gets it: taken only while the store is not
  /// known (after that, the answer is what the store holds: a move of the world's).
  static let loadAnswer: UInt8 = 8
  /// In `timers`, while expanding: the rest is an index into the expansion's `freshOps`.
  static let freshOps: UInt32 = 1 << 31
}

/// Timer operations of one move: for each timer, `TimerBits.keep`, `TimerBits.none` (cancelled
/// or fired), or the relative time it is scheduled for.
struct TimerOps: Hashable {
  var refresh: UInt64
  var retry: UInt64

  /// Leaves both timers alone.
  static let keep = TimerOps(refresh: TimerBits.keep, retry: TimerBits.keep)
}

/// Watches the one transition a machine's move makes: its edge, its timer operations.
struct MachineSink: StepSink {
  var timesInvariants: Bool
  var invariantNanos: UInt64 = 0
  var reducerNanos: UInt64 = 0
  var buffer: [Effect] = []
  /// The edge taken, if the transition changed the machine or emitted something.
  var code: UInt32?
  /// Transitions seen (a machine's move makes exactly one).
  var steps = 0
  var ops = TimerOps.keep
  /// The tokens of the machine being expanded, in its canonical order (kept here, not as a
  /// copy of the encoder's array, so the encoder's next reset reuses its buffer).
  var ownTokens: [String] = []

  init(timesInvariants: Bool) {
    self.timesInvariants = timesInvariants
    buffer.reserveCapacity(16)
  }

  mutating func reset(firing timer: TimerID?) {
    code = nil
    steps = 0
    invariantNanos = 0
    reducerNanos = 0
    ops = .keep
    if let timer { set(timer, TimerBits.none) }
  }

  mutating func set(_ timer: TimerID, _ bits: UInt64) {
    if timer == .tokenRefresh { ops.refresh = bits } else { ops.retry = bits }
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
    steps += 1
    if !same {
      code = ModelChecker.edgeCode(before.stateName, ModelChecker.eventCode(event), after.stateName)
    }
    for effect in effects {
      switch effect {
      case .scheduleTimer(let timer, let t): set(timer, TimerBits.of(t - at))
      case .cancelTimer(let timer): set(timer, TimerBits.none)
      default: break
      }
    }
  }
}

/// One machine's moves, computed while its level is expanded.
struct MachineExpansion {
  var moves: [MachineMove] = []
  /// Timer operations the checker's table did not hold when the chunk was expanded.
  var freshOps: [TimerOps] = []
  /// The moves that broke an invariant, with what broke.
  var violations: [(move: Int, violations: [Violation])] = []
  /// The first move that took each edge.
  var edges: [(code: UInt32, move: Int)] = []
  /// Machines and stores not known when the chunk was expanded.
  var fresh = FreshParts()
  /// The moves' token renamings (`MachineMove.names` points here until the merge).
  var names: [UInt8] = []
  var evaluated = 0
  var stats = ModelChecker.Stats()

  /// Empty, keeping the arrays' memory.
  mutating func reset() {
    moves.removeAllKeepingCapacity()
    freshOps.removeAllKeepingCapacity()
    violations.removeAllKeepingCapacity()
    edges.removeAllKeepingCapacity()
    fresh.reset()
    names.removeAllKeepingCapacity()
    evaluated = 0
    stats = ModelChecker.Stats()
  }

  /// The number of a move's timer operations: the table's (`known`), or a fresh one's.
  mutating func timerOps(_ ops: TimerOps, known: [TimerOps: UInt32]) -> UInt32 {
    if ops == .keep { return 0 }
    if let n = known[ops] { return n }
    if let k = freshOps.firstIndex(of: ops) { return MachineMove.freshOps | UInt32(k) }
    freshOps.append(ops)
    return MachineMove.freshOps | UInt32(freshOps.count - 1)
  }
}

/// Canonical machines and stores that one expansion met and the tables did not hold when its
/// chunk was expanded; the merge numbers them.
struct FreshParts {
  var machineWords: [[UInt32]] = []
  var machineHashes: [UInt64] = []
  var machines: [AuthMachine] = []
  var storeWords: [[UInt32]] = []
  var storeHashes: [UInt64] = []
  var stores: [Session?] = []

  /// What a machine taken out (`takeMachine`) leaves in its place: one shared machine, so
  /// taking costs no copy of the machine's boxes.
  static let taken = AuthMachine(policy: Policy())

  /// The `k`-th machine, moved out.
  mutating func takeMachine(_ k: Int) -> AuthMachine {
    var m = Self.taken
    swap(&m, &machines[k])
    return m
  }

  /// The `k`-th session, moved out.
  mutating func takeStore(_ k: Int) -> Session? {
    var s: Session?
    swap(&s, &stores[k])
    return s
  }

  /// Empty, keeping the arrays' memory.
  mutating func reset() {
    machineWords.removeAllKeepingCapacity()
    machineHashes.removeAllKeepingCapacity()
    machines.removeAllKeepingCapacity()
    storeWords.removeAllKeepingCapacity()
    storeHashes.removeAllKeepingCapacity()
    stores.removeAllKeepingCapacity()
  }

  /// A move's machine's number: known, or `-(k + 2)` for the k-th new one here. A new one keeps
  /// the canonical machine of `world`, whose canonical state is returned then (for the move's
  /// store) and built only then. The world is a parameter, not captured: a closure that captured
  /// it would box or copy it on every move.
  mutating func machine(
    _ words: [UInt32], hash: UInt64, of world: World, known: StateTable
  ) -> (number: Int32, canonical: AbstractState?) {
    if let n = known.find(words, hash: hash) { return (n, nil) }
    if let k = machineHashes.indices.first(where: {
      machineHashes[$0] == hash && machineWords[$0] == words
    }) {
      return (-Int32(k) - 2, nil)
    }
    let canonical = AbstractState(world)
    machineWords.append(words)
    machineHashes.append(hash)
    machines.append(canonical.machine)
    return (-Int32(machines.count) - 1, canonical)
  }

  /// A store's number: known, or `-(k + 2)` for the k-th new one here, which keeps the session
  /// of `world`'s canonical state (`canonical`, where the caller built it already).
  mutating func store(
    _ words: [UInt32], of world: World, canonical: AbstractState? = nil, known: StateTable
  ) -> Int32 {
    let hash = StateTable.hash(words)
    if let n = known.find(words, hash: hash) { return n }
    if let k = storeHashes.indices.first(where: {
      storeHashes[$0] == hash && storeWords[$0] == words
    }) {
      return -Int32(k) - 2
    }
    storeWords.append(words)
    storeHashes.append(hash)
    stores.append((canonical ?? AbstractState(world)).heldSession)
    return -Int32(stores.count) - 1
  }
}

extension Alphabet {
  /// The moves whose outcome depends on the machine alone, in a fixed order: every intent, the
  /// answers to the requests it awaits (to `loadSession` as the first launch gets them), a stale
  /// answer, each timer fired, each write of another process's, and each upgrade conflict under
  /// the other migration policies. `world` is the machine's with no timers and no store read.
  static func machineChoices(_ world: World, everyMigrationPolicy: Bool) -> [Choice] {
    intentChoices + choicesAfterIntents(world, everyMigrationPolicy: everyMigrationPolicy)
  }

  /// `machineChoices` after the intents (`intentChoices`, the same for every machine): the
  /// model checker reads the two lists in turn instead of copying the intents into each
  /// machine's list, which retained every intent's strings once per machine.
  static func choicesAfterIntents(_ world: World, everyMigrationPolicy: Bool) -> [Choice] {
    var out: [Choice] = []
    let awaited = Invariants.awaited(world.machine)
    for family in RequestFamily.allCases {
      guard awaited[family] != nil, let name = effectName(family, world.machine) else {
        continue
      }
      for i in 0..<resultCount(name, in: world) { out.append(.answer(family, i)) }
    }
    out.append(.stale)
    out.append(.fire(.tokenRefresh))
    out.append(.fire(.restoreRetry))
    out += StoreChange.allCases.map(Choice.storeChanged)
    if everyMigrationPolicy {
      let policy = world.machine.policy.migration
      for i in conflictAnswers(world) {
        for p in MigrationPolicy.allCases where p != policy {
          out.append(.underMigrationPolicy(p, .answer(.flow, i)))
        }
      }
    }
    return out
  }

  /// Every intent as a move, built once.
  static let intentChoices = intents.map(Choice.intent)

  /// The moves that depend on the timers or the store too, after the machine's: the answers to a
  /// relaunch's `loadSession` (what the store holds), time moving to the next timer, a relaunch.
  static func worldChoices(_ world: World) -> [Choice] {
    worldChoices(world.machine, storeKnown: world.storeKnown, timers: !world.timers.isEmpty) {
      world
    }
  }

  /// The same moves from what they depend on: the machine, whether the store was read, whether
  /// a timer is set, and the whole world, asked for only where a relaunch's read is answered.
  static func worldChoices(
    _ machine: AuthMachine, storeKnown: Bool, timers: Bool, world: () -> World
  ) -> [Choice] {
    var out: [Choice] = []
    if storeKnown, case .restoring = machine.phase {
      let name = RequestKind.loadSession.rawValue
      for i in 0..<resultCount(name, in: world()) { out.append(.answer(.flow, i)) }
    }
    if timers { out.append(.advanceToTimer) }
    if machine.stateName != .starting { out.append(.relaunch(lostLastWrite: false)) }
    return out
  }
}
