import AuthFlowCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One concrete thing that happens to the machine: what a scenario step does.
public enum WorldEvent: Hashable, Sendable {
  /// The app sends an intent.
  case send(Intent)
  /// An interpreter answers a request (issued by an effect named `to`) with `answer`, which
  /// carries the request's id.
  case respond(to: String, with: Answer)
  /// Virtual time moves on; due timers fire in (time, name) order.
  case advance(Double)
  /// A timer fires now, due or not.
  case fire(TimerID)
  /// The process dies and the app starts again: a fresh machine reads what the store holds.
  /// With `lostLastWrite`, the writes of the last event never reached the store (the process
  /// died during them; the store keeps what it held before, never a torn mix).
  case relaunch(lostLastWrite: Bool)
  /// Another process wrote the shared store: it now holds `session` (`nil`: cleared).
  case storeChanged(Session?)
}

/// A machine with its surroundings: virtual time, the timers it scheduled, the requests it
/// issued. Applying an event checks every invariant on every transition it causes.
public struct World: Sendable {
  /// The machine under test.
  public var machine: AuthMachine
  /// Virtual time.
  public var now: Instant
  /// Scheduled timers (the last `scheduleTimer` of each name, until cancelled or fired).
  public var timers = TimerTable()
  /// Every request issued, oldest first (answered or not), with its effect name; kept only
  /// when `recordsIssued` (the model checker does not need it).
  public var issued: [(id: RequestID, name: String)] {
    get { setup.issued }
    _modify { yield &ownSetup().issued }
  }
  /// Whether `issued` is kept.
  public var recordsIssued: Bool {
    get { setup.recordsIssued }
    set { ownSetup().recordsIssued = newValue }
  }
  /// A counter for fresh tokens and app request ids.
  public var counter = 0
  /// A stand-in for the reducer, to prove the checks catch bugs (`nil`: the real one).
  public var reducer: Reducer? {
    get { setup.reducer }
    set { ownSetup().reducer = newValue }
  }
  /// Also check that each state, event and effect survives a JSON round-trip (invariant 10).
  public var checkCoding: (@Sendable (AuthMachine, Event, [Effect]) -> Violation?)? {
    get { setup.checkCoding }
    set { ownSetup().checkCoding = newValue }
  }
  /// What the session store holds: the last `persistSession` or `clearSession`, or what the
  /// first launch read.
  public var store: Session?
  /// Whether `store` is known: false until the first launch read the store (which may hold
  /// anything then).
  public var storeKnown = false
  /// What the store held before the last event's writes (for `relaunch(lostLastWrite: true)`).
  public var storeBeforeLastEvent: Session?
  /// The accounts deleted and sessions cleared so far (the invariants across steps).
  public var history: RunHistory {
    get { setup.history }
    _modify { yield &ownSetup().history }
  }
  /// Whether `history` is kept (the model checker's states have no history: it does not).
  public var tracksHistory: Bool {
    get { setup.tracksHistory }
    set { ownSetup().tracksHistory = newValue }
  }

  /// What the model checker's moves never change (the reducer, the record of requests, the
  /// history and whether they are kept), in one box shared by copies until one of them changes
  /// it: the checker copies a world for every move, and one reference is retained and released
  /// instead of six.
  private var setup: Setup

  /// Copy-on-write storage for `setup`: changed only while one world holds it.
  private final class Setup: @unchecked Sendable {
    var issued: [(id: RequestID, name: String)] = []
    var recordsIssued = true
    var history = RunHistory()
    var tracksHistory = true
    var reducer: Reducer?
    var checkCoding: (@Sendable (AuthMachine, Event, [Effect]) -> Violation?)?

    init(reducer: Reducer?, recordsIssued: Bool, tracksHistory: Bool) {
      self.reducer = reducer
      self.recordsIssued = recordsIssued
      self.tracksHistory = tracksHistory
    }

    func copy() -> Setup {
      let c = Setup(reducer: reducer, recordsIssued: recordsIssued, tracksHistory: tracksHistory)
      c.issued = issued
      c.history = history
      c.checkCoding = checkCoding
      return c
    }
  }

  /// `setup`, copied first if another world shares it.
  private mutating func ownSetup() -> Setup {
    if !isKnownUniquelyReferenced(&setup) { setup = setup.copy() }
    return setup
  }

  /// A reducer: handles one event, appending effects.
  public typealias Reducer = @Sendable (inout AuthMachine, Event, Instant, inout [Effect]) -> Void

  /// A world at `now` with a fresh machine.
  public init(policy: Policy = Policy(), now: Instant = World.epoch, reducer: Reducer? = nil) {
    self.init(machine: AuthMachine(policy: policy), now: now, reducer: reducer)
  }

  /// A world at `now` around `machine` (the model checker's states: no fresh machine built only
  /// to be replaced).
  init(machine: AuthMachine, now: Instant, reducer: Reducer?) {
    self.init(machine: machine, now: now, reducer: reducer, keepsRecords: true)
  }

  /// A world around `machine` that keeps the record of requests and the history only with
  /// `keepsRecords` (the model checker's states keep neither).
  init(machine: AuthMachine, now: Instant, reducer: Reducer?, keepsRecords: Bool) {
    self.machine = machine
    self.now = now
    self.setup = Setup(
      reducer: reducer, recordsIssued: keepsRecords, tracksHistory: keepsRecords)
  }

  /// 2026-01-01T09:00:00Z, where generated stories start.
  public static let epoch = Instant(1_767_258_000)

  /// One transition: the event, the states around it and the effects.
  public struct Step: Sendable {
    public var before: AuthMachine
    public var event: Event
    public var after: AuthMachine
    public var effects: [Effect]
    public var at: Instant
  }

  /// Applies `event` and everything it causes; returns the transitions and any violations.
  @discardableResult
  public mutating func apply(_ event: WorldEvent, record: ((Step) -> Void)? = nil)
    -> [Violation]
  {
    guard let record else {
      var sink = DiscardingSink()
      return apply(event, into: &sink)
    }
    var sink = RecordingSink(record: record)
    return apply(event, into: &sink)
  }

  /// Applies `event`, handing each transition to `sink` (which also lends the effect buffer).
  mutating func apply<S: StepSink>(_ event: WorldEvent, into sink: inout S) -> [Violation] {
    var violations: [Violation] = []
    if case .relaunch(let lost) = event {
      // Both only when there is something to change: a world that changes neither shares its
      // `setup` with the world it was copied from.
      if lost {
        if !history.deleted.isEmpty || !history.cleared.isEmpty {
          history.writeLost(restoring: storeBeforeLastEvent)
        }
        store = storeBeforeLastEvent
      }
      storeKnown = true
      machine = AuthMachine(policy: machine.policy)
      timers = TimerTable()
      if !issued.isEmpty { issued.removeAll() }  // The old process's requests died with it.
      storeBeforeLastEvent = store
      return feed(.intent(.appLaunched), &sink)
    }
    storeBeforeLastEvent = store
    switch event {
    case .relaunch: break
    case .storeChanged(let session):
      store = session
      storeKnown = true
      violations.add(feed(.storeChanged(session: session), &sink))
    case .send(let intent): violations.add(feed(.intent(intent), &sink))
    case .respond(_, let answer):
      violations.add(feed(.answer(answer), &sink))
    case .fire(let timer):
      timers[timer] = nil
      violations.add(feed(.timerFired(timer: timer), &sink))
    case .advance(let seconds):
      let target = now + seconds
      while let (timer, at) = timers.earliest(upTo: target) {
        now = at
        timers[timer] = nil
        violations.add(feed(.timerFired(timer: timer), &sink))
      }
      now = target
    }
    return violations
  }

  mutating func feed<S: StepSink>(_ event: Event, _ sink: inout S) -> [Violation] {
    let before = machine
    var effects = sink.takeBuffer()
    let timing = sink.timesInvariants
    let reducing = timing ? Stopwatch.now() : 0
    if let reducer {
      reducer(&machine, event, now, &effects)
    } else {
      machine.handle(event, now: now, into: &effects)
    }
    let started = timing ? Stopwatch.now() : 0
    if timing { sink.reducerNanos &+= started &- reducing }
    // Compared once: the check and the sink's edge both ask whether the step did anything.
    let same = effects.isEmpty && before == machine
    var violations = Invariants.check(
      before: before, event: event, after: machine, effects: effects, now: now, same: same)
    if let checkCoding, let v = checkCoding(machine, event, effects) { violations.append(v) }
    if tracksHistory {
      violations.add(
        history.observe(before: before, event: event, after: machine, effects: effects))
    }
    if timing { sink.invariantNanos &+= Stopwatch.now() &- started }
    if !storeKnown, case .answer(.loadSession(_, .sessionLoaded(let s))) = event {
      store = s  // What the first launch found on disk.
      storeKnown = true
    }
    sink.observe(
      before: before, event: event, after: machine, effects: effects, at: now, same: same)
    for effect in effects {
      switch effect {
      case .scheduleTimer(let timer, let at): timers[timer] = at
      case .cancelTimer(let timer): timers[timer] = nil
      case .request(let id, _), .loadSession(let id):
        if recordsIssued { issued.append((id, effect.name)) }
      case .persistSession(let s):
        store = s
        storeKnown = true
      case .clearSession:
        store = nil
        storeKnown = true
      case .deliverIDToken, .signOutProvider, .notify:
        break
      }
    }
    sink.returnBuffer(effects)
    return violations
  }

  /// Applies `event` with the machine's migration policy set to `migration` for that event
  /// only (see `Choice.underMigrationPolicy`).
  @discardableResult
  public mutating func apply(
    _ event: WorldEvent, migration: MigrationPolicy, record: ((Step) -> Void)? = nil
  ) -> [Violation] {
    guard let record else {
      var sink = DiscardingSink()
      return apply(event, migration: migration, into: &sink)
    }
    var sink = RecordingSink(record: record)
    return apply(event, migration: migration, into: &sink)
  }

  mutating func apply<S: StepSink>(
    _ event: WorldEvent, migration: MigrationPolicy, into sink: inout S
  ) -> [Violation] {
    let original = machine.policy
    var p = original
    p.migration = migration
    machine = machine.repolicied(p)
    defer { machine = machine.repolicied(original) }
    return apply(event, into: &sink)
  }

  /// A fresh name for a token or an app request.
  public mutating func fresh(_ prefix: String) -> String {
    counter += 1
    return "\(prefix)\(counter)"
  }
}

extension AuthMachine {
  /// The same state under another policy.
  func repolicied(_ policy: Policy) -> AuthMachine {
    var m = AuthMachine(policy: policy)
    m.restate(phase: phase, user: user, nextRequestID: nextRequestID)
    return m
  }
}

/// Where `World.apply` hands each transition, and who lends it the buffer its effects go in.
protocol StepSink {
  /// Whether the reducer's and the invariants' times are measured (`reducerNanos`,
  /// `invariantNanos`).
  var timesInvariants: Bool { get }
  /// The time spent in the invariants so far, in nanoseconds.
  var invariantNanos: UInt64 { get set }
  /// The time spent in the reducer so far, in nanoseconds.
  var reducerNanos: UInt64 { get set }
  /// An empty buffer for one transition's effects.
  mutating func takeBuffer() -> [Effect]
  /// The buffer back, once the transition is done with it.
  mutating func returnBuffer(_ buffer: [Effect])
  /// One transition; `same` says it emitted nothing and left the machine as it was.
  mutating func observe(
    before: AuthMachine, event: Event, after: AuthMachine, effects: [Effect], at: Instant,
    same: Bool)
}

/// Keeps nothing.
struct DiscardingSink: StepSink {
  var timesInvariants: Bool { false }
  var invariantNanos: UInt64 = 0
  var reducerNanos: UInt64 = 0
  func takeBuffer() -> [Effect] { [] }
  func returnBuffer(_ buffer: [Effect]) {}
  func observe(
    before: AuthMachine, event: Event, after: AuthMachine, effects: [Effect], at: Instant,
    same: Bool
  ) {}
}

/// Hands each transition to a closure.
struct RecordingSink: StepSink {
  let record: (World.Step) -> Void
  var timesInvariants: Bool { false }
  var invariantNanos: UInt64 = 0
  var reducerNanos: UInt64 = 0
  func takeBuffer() -> [Effect] { [] }
  func returnBuffer(_ buffer: [Effect]) {}
  func observe(
    before: AuthMachine, event: Event, after: AuthMachine, effects: [Effect], at: Instant,
    same: Bool
  ) {
    record(World.Step(before: before, event: event, after: after, effects: effects, at: at))
  }
}

/// A monotonic clock in nanoseconds, for the checker's time split.
enum Stopwatch {
  static func now() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
  }
}
