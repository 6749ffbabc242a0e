import AuthFlowCore
import AuthFlowScenarios

/// Writes a sequence of world events as a scenario file that `flowrun` replays.
public enum CounterexampleWriter {
  /// The scenario JSON text: every event a step, requests answered by exact id, no script.
  public static func scenario(
    name: String, description: String, events: [WorldEvent], policy: Policy,
    clock: Instant = World.epoch
  ) -> String {
    let steps: [JSONValue] = events.map { .object($0.stepMembers) }
    return JSONValue.object([
      ("name", .string(name)), ("description", .string(description)),
      ("clock", ScenarioEncoding.time(clock)), ("config", ScenarioEncoding.config(policy)),
      ("allowPending", .bool(true)), ("steps", .array(steps)),
    ]).prettyText + "\n"
  }
}

extension WorldEvent {
  /// The event as the members of a scenario step (without `expect`): requests answered by
  /// exact id.
  public var stepMembers: [(key: String, value: JSONValue)] {
    switch self {
    case .send(let intent):
      return [("send", ScenarioEncoding.intent(intent))]
    case .respond(let to, let id, let result):
      return [
        (
          "respond",
          .object([
            ("to", .string(to)), ("requestId", .number(Double(id.rawValue))),
            ("with", ScenarioEncoding.result(result)),
          ])
        )
      ]
    case .advance(let seconds):
      return [("advance", .number(seconds))]
    case .fire(let timer):
      return [("fire", .string(timer.rawValue))]
    case .relaunch(let lost):
      return [("relaunch", lost ? .object([("lostLastWrite", .bool(true))]) : .bool(true))]
    }
  }
}
