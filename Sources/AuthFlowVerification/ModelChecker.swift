import AuthFlowCore

/// Breadth-first exploration of every state reachable from `starting` over the alphabet, checking
/// every invariant on every transition, then liveness on the whole graph.
public struct ModelChecker {
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
    /// Called every so many states with (states, transitions, depth).
    public var progress: (@Sendable (Int, Int, Int) -> Void)?

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

    /// An empty result.
    public init() {}
  }

  let options: Options

  /// A checker with these options.
  public init(options: Options = Options()) { self.options = options }

  /// Explores the space.
  public func run() -> Result {
    var result = Result()
    var states: [AbstractState] = []
    var index: [AbstractState: Int32] = [:]
    var parent: [Int32] = []
    var via: [Choice] = []
    var depth: [Int32] = []
    var successors: [[Int32]] = []
    var violationAt: Set<Int32> = []

    let root = World(policy: options.policy, reducer: options.reducer)
    let rootState = AbstractState(root)
    states.append(rootState)
    index[rootState] = 0
    parent.append(-1)
    via.append(.stale)
    depth.append(0)

    var next = 0
    var stoppedEarly = false
    while next < states.count {
      let i = next
      next += 1
      let d = Int(depth[i])
      result.maxDepth = max(result.maxDepth, d)
      if let maxDepth = options.maxDepth, d >= maxDepth {
        stoppedEarly = true
        successors.append([])
        continue
      }
      let world = states[i].world(reducer: options.reducer)
      var out: [Int32] = []
      // Each family's answers are built once per state (the world after building them is the
      // same whichever answer is then taken).
      var answerCache: [RequestFamily: (world: World, answers: Alphabet.Answers)] = [:]
      for choice in Alphabet.choices(world) {
        var w = world
        let event: WorldEvent
        if case .answer(let family, let k) = choice {
          if answerCache[family] == nil {
            var base = world
            guard let answers = Alphabet.answers(for: family, in: &base) else { continue }
            answerCache[family] = (base, answers)
          }
          let cached = answerCache[family]!
          w = cached.world
          event = cached.answers.event(k)
        } else {
          guard let e = Alphabet.resolve(choice, in: &w) else { continue }
          event = e
        }
        let violations = w.apply(event) { step in
          // Only transitions that do something: an ignored intent or a stale answer is no edge.
          if !step.effects.isEmpty || step.before != step.after {
            result.edges.insert(
              Edge(
                from: step.before.stateName.rawValue, event: Self.kind(step.event),
                to: step.after.stateName.rawValue))
          }
        }
        result.transitions += 1
        let s = AbstractState(w)
        var j = index[s]
        if j == nil {
          if let maxStates = options.maxStates, states.count >= maxStates {
            stoppedEarly = true
            continue
          }
          j = Int32(states.count)
          index[s] = j
          states.append(s)
          parent.append(Int32(i))
          via.append(choice)
          depth.append(Int32(d + 1))
        }
        out.append(j!)
        if !violations.isEmpty {
          result.violationCount += 1
          if result.violations.count < options.keepViolations, !violationAt.contains(j!) {
            violationAt.insert(j!)
            let path = Self.path(to: i, parent: parent, via: via) + [choice]
            result.violations.append(
              Counterexample(violations: violations, events: concrete(path)))
          }
        }
      }
      if !out.isEmpty, out.allSatisfy({ $0 == Int32(i) }) { result.deadEnds += 1 }
      successors.append(out)
      if i % 1_000 == 0 { options.progress?(states.count, result.transitions, d) }
    }
    result.states = states.count
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
      w.apply(e)
      events.append(e)
    }
    return events
  }

  /// The kind of an event, as the graph and coverage name it.
  public static func kind(_ event: Event) -> String {
    switch event {
    case .intent(let i): return i.kind.rawValue
    case .result(_, let r): return r.kind.rawValue
    case .timerFired(let t): return "timerFired(\(t.rawValue))"
    case .persistFailed: return "persistFailed"
    }
  }
}
