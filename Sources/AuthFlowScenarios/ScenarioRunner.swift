import AuthFlowCore

/// One handled event: the state before and after, and the effects it produced.
public struct Transition: Sendable {
  /// Virtual time of the event.
  public var at: Instant
  /// The state's name before.
  public var from: String
  /// The event.
  public var event: Event
  /// The state's name after.
  public var to: String
  /// The effects, in order.
  public var effects: [Effect]
  /// The 0-based step that caused it.
  public var step: Int
  /// Whether the machine changed or emitted effects (false for an ignored event).
  public var changed: Bool
}

/// Why a scenario failed.
public struct StepFailure: Sendable, Equatable {
  /// The 0-based step index, or `nil` for an end-of-scenario check.
  public var step: Int?
  /// What the step did, as a short text.
  public var action: String
  /// One entry per failed expectation; multi-line diffs included.
  public var problems: [String]
}

/// The outcome of replaying one scenario.
public struct ScenarioReport: Sendable {
  /// The scenario's name.
  public var name: String
  /// The file it came from.
  public var file: String
  /// Number of steps in the file.
  public var stepCount: Int
  /// Steps actually run.
  public var stepsRun: Int
  /// Every transition, in order.
  public var transitions: [Transition]
  /// The failure, if any.
  public var failure: StepFailure?
  /// The virtual clock's start.
  public var clock: Instant
  /// What the story does that tests less than it says, under lenient rules (strict rules make
  /// each of these a failure).
  public var warnings: [String] = []
  /// The scenario's description.
  public var description = ""
  /// The values the file spells, shown as written in its failure (see `Redactor.revealed`).
  public var revealed: Set<String> = []

  /// True when every expectation held.
  public var passed: Bool { failure == nil }
}

/// Replays a scenario against the pure machine with the scripted interpreter and a virtual clock.
public struct ScenarioRunner {
  /// The machine being driven.
  public private(set) var machine: AuthMachine
  /// Virtual time.
  public private(set) var now: Instant
  private(set) var interpreter: ScriptedInterpreter
  /// Every request issued so far, by id (to name them when a `respond` names another).
  private var issued: [(id: RequestID, name: String, kind: RequestKind)] = []
  private var timers: [TimerID: Instant] = [:]
  private var pending: [(name: String, requestId: RequestID, effect: Effect)] = []
  private var transitions: [Transition] = []
  private var stepIndex = 0
  private var stepEffects: [Effect] = []
  private var stepPath: [String] = []
  private let redactor: Redactor
  private var invariantProblems: [String] = []
  /// What the app's session store holds: the last write that succeeded, or what the first
  /// launch read (`nil` until known).
  private var store: Session?
  private var storeKnown = false
  /// The store before the current step's writes (for `relaunch` with `lostLastWrite`).
  private var storeBeforeStep: Session?
  private var storeBeforeLastStep: Session?
  /// Accounts deleted and sessions cleared so far (the invariants across steps and relaunches).
  private var history = RunHistory()
  /// Values bound by `"$name"` captures in expectations.
  public private(set) var captures: [String: String] = [:]
  /// Whether every transition is checked against the model's invariants (on by default).
  public var checkInvariants = true
  /// Strict rules: a `respond` to a request never issued is a failure, not a warning.
  public var strict = false
  /// Whether answers of the wrong kind are on purpose (no warning; see `Scenario`).
  public var allowWrongKinds = false
  /// Problems of the current step that only strict rules make failures.
  private var strictProblems: [String] = []
  /// Warnings so far (lenient rules).
  public private(set) var warnings: [String] = []
  /// The most events one step may cause before the runner calls it a livelock.
  public static let eventLimitPerStep = 10_000

  /// A runner at the scenario's clock (or `clock`), with its policy and script.
  public init(
    scenario: Scenario, redactor: Redactor = Redactor(showSecrets: false), clock: Instant? = nil
  ) {
    machine = AuthMachine(policy: scenario.policy)
    now = clock ?? scenario.clock
    interpreter = ScriptedInterpreter(script: scenario.script)
    self.redactor = redactor
    file = scenario.file
  }

  /// The scenario's file, for errors in an intent whose captures are put in as it runs.
  private let file: String

  /// `json` with every string that names a bound capture replaced by its value (and `"$$x"` by
  /// the literal `"$x"`). A `"$name"`
  /// that nothing bound yet is sent as written (a file may mean it literally): a warning, a
  /// failure under strict rules.
  private mutating func fillCaptures(_ json: JSONValue) -> JSONValue {
    switch json {
    case .string(let s):
      if s.hasPrefix("$$") { return .string(String(s.dropFirst())) }
      guard let name = Matching.captureName(s) else { return json }
      if let value = captures[name] { return .string(value) }
      let problem =
        "step \(stepIndex + 1): \(s) in the intent is bound by no earlier expectation; it is sent"
        + " as written (bind it first, or write \"$\(s)\" for the literal)"
      if strict { strictProblems.append(problem) } else { warnings.append(problem) }
      return json
    case .array(let items): return .array(items.map { fillCaptures($0) })
    case .object(let members): return .object(members.map { ($0.key, fillCaptures($0.value)) })
    case .null, .bool, .number: return json
    }
  }

  /// Replays `scenario` from the start and reports. With `strict` (or `"strict": true` in the
  /// file), unused script entries and answers to requests never issued fail the scenario.
  public static func run(
    _ scenario: Scenario, redactor: Redactor = Redactor(showSecrets: false), strict: Bool = false
  ) -> ScenarioReport {
    var runner = ScenarioRunner(scenario: scenario, redactor: redactor.revealing(scenario.spelled))
    runner.strict = strict || scenario.strict
    runner.allowWrongKinds = scenario.allowWrongKinds
    var failure: StepFailure? = nil
    var stepsRun = 0
    for (i, step) in scenario.steps.enumerated() {
      stepsRun += 1
      if let f = runner.perform(step, index: i) {
        failure = f
        break
      }
    }
    let unused = runner.interpreter.unusedEntries
    if failure == nil, !scenario.allowUnused, !unused.isEmpty {
      let problem =
        "script entries never used: " + unused.joined(separator: ", ")
        + "; the story tests less than its script says: remove them, or set \"allowUnused\": true"
      if runner.strict {
        failure = StepFailure(step: nil, action: "end of scenario", problems: [problem])
      } else {
        runner.warnings.append(problem)
      }
    }
    if failure == nil, !scenario.allowPending, !runner.pending.isEmpty {
      let list = runner.pending.map { "\($0.name) (request \($0.requestId))" }
      failure = StepFailure(
        step: nil, action: "end of scenario",
        problems: [
          "requests still pending: " + list.joined(separator: ", ")
            + "; answer them with a \"respond\" step or a script entry,"
            + " or set \"allowPending\": true"
        ])
    }
    return ScenarioReport(
      name: scenario.name, file: scenario.file, stepCount: scenario.steps.count,
      stepsRun: stepsRun, transitions: runner.transitions, failure: failure,
      clock: scenario.clock, warnings: runner.warnings, description: scenario.description,
      revealed: scenario.spelled)
  }

  /// Runs one step and checks its expectations; returns the failure, if any.
  public mutating func perform(_ step: Step, index: Int) -> StepFailure? {
    beginStep(index)
    let problems = act(step.action) + endStep(step.expect)
    return problems.isEmpty
      ? nil
      : StepFailure(step: index, action: Render.action(step.action, redactor), problems: problems)
  }

  /// The requests still waiting for an answer, oldest first.
  public var pendingRequests: [Effect] { pending.map(\.effect) }

  /// Starts a step: what follows counts toward its path and effects.
  public mutating func beginStep(_ index: Int) {
    stepIndex = index
    storeBeforeLastStep = storeBeforeStep
    storeBeforeStep = store
    stepEffects.removeAll(keepingCapacity: true)
    stepPath.removeAll(keepingCapacity: true)
  }

  /// Does one action within the current step; returns problems (none when all went well).
  public mutating func act(_ action: Step.Action) -> [String] {
    var problems: [String] = []
    switch action {
    case .send(let intent):
      if !process(.intent(intent)) { problems.append(livelock) }
    case .sendWithCaptures(let json):
      let filled = fillCaptures(json)
      do {
        let intent = try JSONReader(file: file).intent(filled, "steps[\(stepIndex)].send")
        if !process(.intent(intent)) { problems.append(livelock) }
      } catch {
        problems.append("step \(stepIndex + 1): the intent with its captures put in: \(error)")
      }
    case .respond(let to, let id?, let template):
      if !issued.contains(where: { $0.id == id }) {
        let list =
          issued.isEmpty
          ? "none yet" : issued.map { "\($0.name) #\($0.id)" }.joined(separator: ", ")
        let problem =
          "step \(stepIndex + 1): respond to \(to) #\(id): no request #\(id) was ever issued"
          + " (issued: \(list)); a stale answer should name a request that exists"
        if strict { return [problem] }
        warnings.append(problem)
      }
      let request = pending.first { $0.requestId == id }?.effect.asRequest
      pending.removeAll { $0.requestId == id }
      let kind = issued.first { $0.id == id }?.kind ?? Vocabulary.requestKind(to)
      noteWrongKind(template, "respond to \(to) #\(id)")
      let answer = template.materialize(
        now: now, id: id, kind: kind, answering: request, store: store)
      if !process(.answer(answer)) { problems.append(livelock) }
    case .fire(let timer):
      timers[timer] = nil
      if !process(.timerFired(timer: timer)) { problems.append(livelock) }
    case .respond(let to, nil, let template):
      guard let i = pending.firstIndex(where: { $0.name == to }) else {
        let waiting = pending.isEmpty ? "none" : pending.map(\.name).joined(separator: ", ")
        return ["no pending \"\(to)\" request to respond to (pending: \(waiting))"]
      }
      let answered = pending.remove(at: i)
      noteWrongKind(template, "respond to \(to)")
      let answer = template.materialize(
        now: now, id: answered.requestId, kind: answered.effect.requestKind,
        answering: answered.effect.asRequest, store: store)
      if !process(.answer(answer)) { problems.append(livelock) }
    case .storeChanged(let template):
      // Another process wrote the store: the store model takes it, and so does the machine.
      guard
        case .loadSession(_, .sessionLoaded(let session)) = template.materialize(
          now: now, id: 0, kind: .loadSession, store: store)
      else { break }
      store = session
      storeKnown = true
      if !process(.storeChanged(session: session)) { problems.append(livelock) }
    case .relaunch(let lost):
      if lost {
        // The previous step's writes never reached the store.
        store = storeBeforeLastStep
        history.writeLost(restoring: store)
      }
      storeBeforeStep = store
      storeKnown = true
      machine = AuthMachine(policy: machine.policy)
      timers.removeAll()
      pending.removeAll()  // The old process's requests died with it; so did their answers.
      issued.removeAll()
      if !process(.intent(.appLaunched)) { problems.append(livelock) }
    case .advance(let seconds):
      let target = now + seconds
      while let (timer, at) = timers.filter({ $0.value <= target })
        .min(by: { ($0.value, $0.key.rawValue) < ($1.value, $1.key.rawValue) })
      {
        now = at
        timers[timer] = nil
        if !process(.timerFired(timer: timer)) {
          problems.append(livelock)
          break
        }
      }
      now = target
    }
    return problems
  }

  /// Ends the step: invariant problems seen during it, then its expectations.
  public mutating func endStep(_ expect: Expectation?) -> [String] {
    var problems = invariantProblems + strictProblems
    invariantProblems.removeAll()
    strictProblems.removeAll()
    if let expect { problems += check(expect) }
    return problems
  }

  /// A scripted answer of another request kind: a warning (a failure under strict rules)
  /// unless the file says it does this on purpose.
  private mutating func noteWrongKind(_ template: ResultTemplate, _ place: String) {
    guard let name = template.wrongKind, !allowWrongKinds else { return }
    let problem =
      "\(place): \(name) is not an answer this request can get; it is replayed as "
      + "requestFailed UNEXPECTED_RESPONSE (a broken interpreter). Use the request's own "
      + "answers, or set \"allowWrongKinds\": true if this is on purpose"
    if strict { strictProblems.append(problem) } else { warnings.append(problem) }
  }

  private var livelock: String {
    "the machine did not settle after \(Self.eventLimitPerStep) events (a feedback loop)"
  }

  /// Every transition so far.
  public var transitionLog: [Transition] { transitions }

  /// Feeds an event and everything it causes; false when the event limit was hit.
  private mutating func process(_ first: Event) -> Bool {
    var queue = [first]
    var i = 0
    var effects: [Effect] = []
    while i < queue.count {
      if i >= Self.eventLimitPerStep { return false }
      let event = queue[i]
      i += 1
      let from = machine.stateName.rawValue
      let before = machine
      effects.removeAll(keepingCapacity: true)
      machine.handle(event, now: now, into: &effects)
      let to = machine.stateName.rawValue
      if to != from { stepPath.append(to) }
      if checkInvariants {
        let violations =
          Invariants.check(
            before: before, event: event, after: machine, effects: effects, now: now)
          + history.observe(before: before, event: event, after: machine, effects: effects)
        invariantProblems += violations.map {
          "\($0) (at \(Render.event(event, redactor)) in \(from))"
        }
      }
      if !storeKnown, case .answer(.loadSession(_, .sessionLoaded(let s))) = event {
        store = s  // What the first launch found in the store.
        storeKnown = true
      }
      transitions.append(
        Transition(
          at: now, from: from, event: event, to: to, effects: effects, step: stepIndex,
          changed: !effects.isEmpty || before != machine))
      for effect in effects {
        stepEffects.append(effect)
        execute(effect, queue: &queue)
      }
    }
    return true
  }

  private mutating func execute(_ effect: Effect, queue: inout [Event]) {
    switch effect {
    case .scheduleTimer(let timer, let at): timers[timer] = at
    case .cancelTimer(let timer): timers[timer] = nil
    case .persistSession, .clearSession:
      if case .persistFailed(let error)? = interpreter.next(for: effect) {
        queue.append(.persistFailed(error: error))
        // A clearing that failed did not clear: the session is still in the store.
        if case .clearSession = effect { history.writeLost(restoring: store) }
      } else {
        if case .persistSession(let s) = effect { store = s } else { store = nil }
        storeKnown = true
      }
    case .signOutProvider, .deliverIDToken, .notify:
      break
    case .loadSession(let id), .request(let id, _):
      let kind = effect.requestKind ?? .loadSession
      issued.append((id, effect.name, kind))
      switch interpreter.next(for: effect) {
      case .answer(let template)?:
        noteWrongKind(template, "script.\(effect.name)")
        queue.append(
          .answer(
            template.materialize(
              now: now, id: id, kind: kind, answering: effect.asRequest, store: store)))
      case .pending?, nil, .written?, .persistFailed?:
        pending.append((effect.name, id, effect))
      }
    }
  }

  // MARK: Expectations

  private mutating func check(_ expect: Expectation) -> [String] {
    var problems: [String] = []
    if let state = expect.state, state != machine.stateName.rawValue {
      problems.append("state: expected \"\(state)\", got \"\(machine.stateName.rawValue)\"")
    }
    if let path = expect.path, path != stepPath {
      problems.append(
        "path: expected [\(path.joined(separator: ", "))], got [\(stepPath.joined(separator: ", "))]"
      )
    }
    let actual = stepEffects.map { Matching.split(JSONValue.encoding($0)) }
    if let patterns = expect.effects {
      if !exactly(patterns, actual) {
        problems.append(
          diffText(
            "effects (exact, in order)", patterns: patterns, actual: actual))
      }
    }
    if let patterns = expect.effectsInclude,
      !Matching.inOrder(patterns, in: actual, captures: &captures)
    {
      problems.append(
        diffText("effectsInclude (in this order)", patterns: patterns, actual: actual))
    }
    if let excluded = expect.effectsExclude {
      let found = excluded.filter { name in actual.contains { $0.0 == name } }
      if !found.isEmpty {
        problems.append(
          "effectsExclude: found " + found.map { "\"\($0)\"" }.joined(separator: ", "))
      }
    }
    if let patterns = expect.notifications {
      let notes: [(String, JSONValue)] = stepEffects.compactMap {
        guard case .notify(let n) = $0 else { return nil }
        return Matching.split(JSONValue.encoding(n))
      }
      if !exactly(patterns, notes) {
        problems.append(
          diffText("notifications (exact, in order)", patterns: patterns, actual: notes))
      }
    }
    if let session = expect.session {
      let current = machine.user?.session
      switch (session, current) {
      case (.none, nil): break
      case (.none, let s?):
        problems.append("session: expected none, got uid \"\(s.uid)\"")
      case (.fields, nil):
        problems.append("session: expected a session, got none (state \(machine.stateName))")
      case (.fields(let fields), let s?):
        let actualJSON = Render.sessionJSON(s, now: now)
        if !Matching.subset(fields, of: actualJSON, captures: &captures) {
          problems.append(
            "session (- expected, + actual):\n    - " + redactor.apply(fields).compactText
              + "\n    + "
              + redactor.apply(Render.only(keysOf: fields, in: actualJSON)).compactText
              + Self.differing(fields, actualJSON, captures))
        }
      }
    }
    return problems
  }

  /// Whether the patterns match the actual list one for one, in order.
  private mutating func exactly(_ patterns: [Pattern], _ actual: [(String, JSONValue)]) -> Bool {
    patterns.count == actual.count
      && zip(patterns, actual).allSatisfy {
        Matching.matches($0, name: $1.0, payload: $1.1, captures: &captures)
      }
  }

  private func diffText(_ title: String, patterns: [Pattern], actual: [(String, JSONValue)])
    -> String
  {
    let expectedLines = patterns.map { p in
      p.fields.map { Render.tagged(p.name, redactor.apply($0)) } ?? p.name
    }
    let actualLines = actual.map {
      Render.tagged($0.0, Render.readableTimes(redactor.apply($0.1)))
    }
    let lines = Matching.diff(expected: expectedLines, actual: actualLines) { i, j in
      Matching.matches(patterns[i], name: actual[j].0, payload: actual[j].1, given: captures)
    }
    // Where an expected entry and an actual one of the same name differ, name the fields.
    var marks = ""
    for p in patterns {
      guard let fields = p.fields,
        !actual.contains(where: {
          Matching.matches(p, name: $0.0, payload: $0.1, given: captures)
        }),
        let same = actual.first(where: { $0.0 == p.name })
      else { continue }
      marks += Self.differing(fields, same.1, captures, name: p.name)
    }
    return "\(title) (- expected, + actual):\n" + lines.map { "    " + $0 }.joined(separator: "\n")
      + marks
  }

  /// `\n    ^ differs: linkTo, credential`: the top-level fields of `pattern` that `actual`
  /// does not match (empty when it is the whole value that differs).
  static func differing(
    _ pattern: JSONValue, _ actual: JSONValue, _ captures: [String: String], name: String? = nil
  ) -> String {
    guard case .object(let members) = pattern else { return "" }
    var names: [String] = []
    for m in members {
      var trial = captures
      if !Matching.subset(.object([m]), of: actual, captures: &trial) { names.append(m.key) }
    }
    if names.isEmpty { return "" }
    return "\n    ^ \(name.map { "\($0): " } ?? "")differs in " + names.joined(separator: ", ")
  }
}
