import AuthFlowCore

/// Runs a scenario's intents through a real interpreter (its `script` is ignored), checking the
/// same expectations. Values that differ on a live backend are written as captures in the file
/// (`"uid": "$anon"`). `respond` steps script a server's answer, so they are skipped live.
public struct LiveRunner {
  /// What came back, in order: the effect's name, the result, and when it was delivered.
  public struct Recorded: Sendable {
    public var name: String
    public var result: Answer
    public var at: Instant
  }

  /// The report, the answers the backend gave, and how many steps were skipped.
  public struct Outcome: Sendable {
    public var report: ScenarioReport
    public var recorded: [Recorded]
    public var skippedSteps: Int
  }

  /// The most requests one step may make before the run is stopped.
  public static let requestLimitPerStep = 100

  /// Runs `scenario` live, starting the virtual clock at `now` (the real time).
  public static func run(
    _ scenario: Scenario, interpreter: any AuthInterpreter, now: Instant,
    redactor: Redactor = Redactor(showSecrets: false)
  ) async -> Outcome {
    var unscripted = scenario
    unscripted.script = [:]
    var runner = ScenarioRunner(scenario: unscripted, redactor: redactor, clock: now)
    var recorded: [Recorded] = []
    var failure: StepFailure? = nil
    var skipped = 0
    var stepsRun = 0
    for (index, step) in scenario.steps.enumerated() {
      if case .respond = step.action {
        skipped += 1
        continue
      }
      stepsRun += 1
      runner.beginStep(index)
      var problems = runner.act(step.action)
      var requests = 0
      while let effect = runner.pendingRequests.first, let id = effect.requestId {
        requests += 1
        if requests > requestLimitPerStep {
          problems.append("more than \(requestLimitPerStep) requests in one step")
          break
        }
        // A live run starts with an empty store; everything else goes to the world.
        let result =
          if let request = effect.asRequest { await interpreter.perform(request, id: id) } else {
            Answer.loadSession(id, .sessionLoaded(session: nil))
          }
        recorded.append(Recorded(name: effect.name, result: result, at: runner.now))
        problems += runner.act(
          .respond(to: effect.name, requestId: id, with: ResultTemplate(result)))
      }
      problems += runner.endStep(step.expect)
      if !problems.isEmpty {
        failure = StepFailure(
          step: index, action: Render.action(step.action, redactor), problems: problems)
        break
      }
    }
    let report = ScenarioReport(
      name: scenario.name, file: scenario.file, stepCount: scenario.steps.count,
      stepsRun: stepsRun, transitions: runner.transitionLog, failure: failure, clock: now,
      description: scenario.description)
    return Outcome(report: report, recorded: recorded, skippedSteps: skipped)
  }

  /// The recorded answers as a `script`, with tokens, uids and emails replaced by stable
  /// placeholders and session expiries written as `expiresIn`, so the file replays offline.
  public static func script(_ recorded: [Recorded]) -> JSONValue {
    var placeholders = Placeholders()
    var byName: [(key: String, value: [JSONValue])] = []
    for r in recorded {
      var json = ScenarioEncoding.result(r.result)
      json = placeholders.apply(json, deliveredAt: r.at)
      if let i = byName.firstIndex(where: { $0.key == r.name }) {
        byName[i].value.append(json)
      } else {
        byName.append((r.name, [json]))
      }
    }
    return .object(byName.map { ($0.key, .array($0.value)) })
  }
}

/// Stable stand-ins for secrets and identities: the same value always gets the same placeholder.
struct Placeholders {
  var tokens: [String: String] = [:]
  var uids: [String: String] = [:]
  var emails: [String: String] = [:]

  mutating func apply(_ value: JSONValue, deliveredAt: Instant) -> JSONValue {
    switch value {
    case .object(let members):
      var out: [(key: String, value: JSONValue)] = []
      for (key, v) in members {
        switch (key, v) {
        case ("idToken", .string(let s)), ("refreshToken", .string(let s)),
          ("accessToken", .string(let s)):
          out.append((key, .string(name(s, in: &tokens, prefix: "tok-"))))
        case ("uid", .string(let s)), ("from", .string(let s)), ("to", .string(let s)):
          out.append((key, .string(name(s, in: &uids, prefix: "uid-"))))
        case ("email", .string(let s)):
          let n = name(s, in: &emails, prefix: "user-")
          out.append((key, .string(n + "@example.com")))
        case ("expiresAt", .string(let s)):
          let seconds = (ISOTime.parse(s).map { $0 - deliveredAt } ?? 3600).rounded()
          out.append(("expiresIn", .number(max(0, seconds))))
        default:
          out.append((key, apply(v, deliveredAt: deliveredAt)))
        }
      }
      return .object(out)
    case .array(let items):
      return .array(items.map { apply($0, deliveredAt: deliveredAt) })
    default:
      return value
    }
  }

  private func name(_ s: String, in table: inout [String: String], prefix: String) -> String {
    if let n = table[s] { return n }
    let n = prefix + String(table.count + 1)
    table[s] = n
    return n
  }
}
