import AuthFlowCore
import Foundation

/// Random event sequences, checked after every step, shrunk to a minimal counterexample.
public struct PropertyTester: Sendable {
  /// How many sequences, how long, from which seed.
  public struct Config: Sendable {
    /// Sequences to run.
    public var sequences = 10_000
    /// Longest sequence (events).
    public var maxLength = 60
    /// The master seed; sequence i uses `seed(for: i)`.
    public var seed: UInt64 = 0x5EED_A17F_10E5_0001
    /// Replay only this sequence seed (as printed by a failure).
    public var only: UInt64?
    /// The machine's policy.
    public var policy = Policy()
    /// Draw the migration policy of each sequence at random (ask, merge, switch, stay), so the
    /// flows behind every policy are searched, not only `ask`'s.
    public var variesMigrationPolicy = true
    /// Draw the policy's durations too (margin, backoff base and cap, throttled delay), so the
    /// timing invariants are checked on more than the defaults.
    public var variesTiming = true
    /// A stand-in reducer (to prove the net catches bugs).
    public var reducer: World.Reducer?
    /// Check JSON round-trips every this many steps (0: never).
    public var codingEvery = 7

    /// Defaults: 10,000 sequences of up to 60 events from a fixed master seed.
    public init() {}

    /// A fresh master seed for each run (printed by the tests, so a run can be repeated with
    /// `AUTHFLOW_MASTER_SEED`), `AUTHFLOW_PROPERTY_SEQUENCES` sequences, and `AUTHFLOW_SEED` to
    /// replay the one sequence a failure printed.
    public static func fromEnvironment() -> Config {
      var c = Config()
      let env = ProcessInfo.processInfo.environment
      if let n = env["AUTHFLOW_PROPERTY_SEQUENCES"].flatMap(Int.init), n > 0 { c.sequences = n }
      if let s = env["AUTHFLOW_SEED"].flatMap({ UInt64($0) }) { c.only = s }
      var g = SystemRandomNumberGenerator()
      c.seed = env["AUTHFLOW_MASTER_SEED"].flatMap { UInt64($0) } ?? g.next()
      return c
    }

    /// The seed of sequence `i`.
    public func seed(for i: Int) -> UInt64 { seed &+ UInt64(i) &* 0x9E37_79B9_7F4A_7C15 }
  }

  /// A broken property, shrunk.
  public struct Failure: Sendable {
    /// The seed of the failing sequence (`AUTHFLOW_SEED=<seed>` replays it).
    public var seed: UInt64
    /// The violations at the end of the shrunk sequence.
    public var violations: [Violation]
    /// Length of the sequence as generated.
    public var originalLength: Int
    /// The shrunk sequence's moves.
    public var shrunk: [Choice]
    /// The shrunk sequence as concrete events (what a scenario file holds).
    public var events: [WorldEvent]
    /// The policy the sequence ran with.
    public var policy: Policy
  }

  /// What a run did.
  public struct Summary: Sendable {
    /// Sequences run.
    public var sequences = 0
    /// Events applied in all.
    public var events = 0
    /// Distinct top-level states seen.
    public var statesSeen: Set<String> = []
    /// The first failure, shrunk.
    public var failure: Failure?
  }

  let config: Config

  /// A tester with this configuration.
  public init(_ config: Config) { self.config = config }

  /// Runs the sequences; stops at the first failure and shrinks it.
  public func run() -> Summary {
    var summary = Summary()
    let seeds: [UInt64] =
      config.only.map { [$0] } ?? (0..<config.sequences).map { config.seed(for: $0) }
    for seed in seeds {
      var rng = Xoshiro256(seed: seed)
      let length = 1 + rng.below(config.maxLength)
      let policy = self.policy(for: seed)
      var world = newWorld(policy)
      var choices: [Choice] = []
      var codingProblems: [Violation] = []
      summary.sequences += 1
      for step in 0..<length {
        let choice = Self.draw(world, &rng)
        choices.append(choice)
        guard let event = Alphabet.resolve(choice, in: &world) else { continue }
        summary.events += 1
        let sample = config.codingEvery > 0 && step % config.codingEvery == 0
        var violations = world.apply(event) { t in
          if sample, let v = Coding.roundTrip(t.event, t.effects) { codingProblems.append(v) }
        }
        if sample, let v = Coding.roundTrip(world.machine) { violations.append(v) }
        violations += codingProblems
        codingProblems.removeAll()
        summary.statesSeen.insert(world.machine.stateName.rawValue)
        if !violations.isEmpty {
          let invariant = violations[0].invariant
          let shrunk = shrink(choices, invariant: invariant, policy: policy)
          let (events, final) = replay(shrunk, policy: policy)
          summary.failure = Failure(
            seed: seed, violations: final.isEmpty ? violations : final,
            originalLength: choices.count, shrunk: shrunk, events: events, policy: policy)
          return summary
        }
      }
    }
    return summary
  }

  func newWorld(_ policy: Policy) -> World { World(policy: policy, reducer: config.reducer) }

  /// The policy sequence `seed` runs with.
  public func policy(for seed: UInt64) -> Policy {
    var p = config.policy
    if config.variesMigrationPolicy {
      let all = MigrationPolicy.allCases
      p.migration = all[Int(seed % UInt64(all.count))]
    }
    if config.variesTiming, (seed >> 8) % 2 == 1 {
      // Half the sequences keep the defaults; the others draw every duration.
      var rng = Xoshiro256(seed: seed ^ 0x7131_5EED)
      p.refreshMargin = rng.pick([30, 60, 300, 600])
      p.backoffBase = rng.pick([1, 5, 30, 60])
      p.backoffCap = p.backoffBase * rng.pick([1, 2, 8, 100])
      p.throttledDelay = rng.pick([0, 10, 300, 1200])
    }
    return p
  }

  /// One move, weighted toward what the machine waits for.
  static func draw(_ world: World, _ rng: inout Xoshiro256) -> Choice {
    let awaited = Invariants.awaited(world.machine)
    let families = RequestFamily.allCases.filter { awaited[$0] != nil }
    let roll = rng.below(100)
    if roll < 45, !families.isEmpty {
      let family = rng.pick(families)
      guard let name = Alphabet.effectName(family, world.machine) else { return .stale }
      // Half the answers are successes, so long flows (a merge, a deletion) are reached as
      // often as their failures.
      let successes = Alphabet.successes(name, in: world)
      if successes > 0, rng.chance(0.5) { return .answer(family, rng.below(successes)) }
      return .answer(family, rng.below(Alphabet.resultCount(name, in: world)))
    }
    if roll < 50 { return .replay(rng.below(4), rng.below(9)) }
    if roll < 53 { return .stale }
    if roll < 63 {
      if !world.timers.isEmpty, rng.chance(0.6) { return .advanceToTimer }
      return .advance(rng.pick([1, 30, 60, 299, 300, 1000, 3600, 7200]))
    }
    if roll < 66 { return .fire(rng.chance(0.8) ? .tokenRefresh : .restoreRetry) }
    if roll < 68, world.machine.stateName != .starting {
      // The process dies here; sometimes during the last event's writes.
      return .relaunch(lostLastWrite: rng.chance(0.3))
    }
    if roll < 70 { return .storeChanged(rng.pick(StoreChange.allCases)) }  // Another process.
    // Mostly what a user would do in this state, so long flows (a migration, a deletion) are
    // reached; sometimes anything, for the taps that should change nothing.
    if roll < 90 { return .intent(rng.pick(Alphabet.likelyIntents(world.machine))) }
    return .intent(rng.pick(Alphabet.intents))
  }

  /// Replays moves on a fresh world: the concrete events and the violations of the last step.
  public func replay(_ choices: [Choice], policy: Policy? = nil) -> ([WorldEvent], [Violation]) {
    var world = newWorld(policy ?? config.policy)
    var events: [WorldEvent] = []
    var last: [Violation] = []
    for choice in choices {
      guard let event = Alphabet.resolve(choice, in: &world) else { continue }
      events.append(event)
      last = world.apply(event)
      if let v = Coding.roundTrip(world.machine) { last.append(v) }
      if !last.isEmpty { break }
    }
    return (events, last)
  }

  /// Whether the moves still break the invariant somewhere.
  func fails(_ choices: [Choice], invariant: Invariant, policy: Policy) -> Bool {
    replay(choices, policy: policy).1.contains { $0.invariant == invariant }
  }

  /// Drops moves (halves, quarters, … single moves), then simplifies each, until nothing
  /// smaller still fails.
  public func shrink(_ original: [Choice], invariant: Invariant, policy: Policy) -> [Choice] {
    var current = original
    // Cut everything after the first failing step.
    for n in 1...current.count
    where fails(Array(current.prefix(n)), invariant: invariant, policy: policy) {
      current = Array(current.prefix(n))
      break
    }
    var progress = true
    while progress {
      progress = false
      var chunk = max(1, current.count / 2)
      while chunk >= 1 {
        var i = 0
        while i + chunk <= current.count {
          var candidate = current
          candidate.removeSubrange(i..<(i + chunk))
          if !candidate.isEmpty, fails(candidate, invariant: invariant, policy: policy) {
            current = candidate
            progress = true
          } else {
            i += chunk
          }
        }
        chunk /= 2
      }
      for i in current.indices {
        for simpler in Self.simplifications(current[i]) {
          var candidate = current
          candidate[i] = simpler
          if fails(candidate, invariant: invariant, policy: policy) {
            current = candidate
            progress = true
            break
          }
        }
      }
    }
    return current
  }

  /// Simpler versions of a move, simplest first.
  static func simplifications(_ choice: Choice) -> [Choice] {
    switch choice {
    case .answer(let f, let k) where k > 0: return (0..<k).map { .answer(f, $0) }
    case .replay(let k, let i) where k > 0 || i > 0:
      return [.replay(0, 0), .replay(0, i), .replay(k, 0)].filter { $0 != choice }
    case .advance(let s) where s > 1: return [.advanceToTimer, .advance(1), .advance(s / 2)]
    default: return []
    }
  }
}

/// Invariant 10: states survive a JSON round-trip unchanged.
public enum Coding {
  /// A violation when `machine` does not come back equal from JSON.
  public static func roundTrip(_ machine: AuthMachine) -> Violation? {
    do {
      let data = try JSONEncoder().encode(machine)
      let back = try JSONDecoder().decode(AuthMachine.self, from: data)
      return back == machine
        ? nil : Violation(.jsonRoundTrip, "\(machine.stateName) changed in a JSON round-trip")
    } catch {
      return Violation(.jsonRoundTrip, "\(machine.stateName) failed a JSON round-trip: \(error)")
    }
  }

  /// A violation when an event or effect does not come back equal from JSON.
  public static func roundTrip(_ event: Event, _ effects: [Effect]) -> Violation? {
    do {
      let e = try JSONDecoder().decode(Event.self, from: JSONEncoder().encode(event))
      let f = try JSONDecoder().decode([Effect].self, from: JSONEncoder().encode(effects))
      return e == event && f == effects
        ? nil : Violation(.jsonRoundTrip, "an event or effect changed in JSON")
    } catch {
      return Violation(.jsonRoundTrip, "an event or effect failed a JSON round-trip: \(error)")
    }
  }
}
