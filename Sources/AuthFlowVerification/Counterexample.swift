import AuthFlowCore
import AuthFlowScenarios

/// Writes a sequence of world events as a scenario file that `flowrun` replays.
public enum CounterexampleWriter {
  /// The scenario JSON text: every event a step, requests answered by exact id, no script.
  public static func scenario(
    name: String, description: String, events: [WorldEvent], policy: Policy,
    clock: Instant = World.epoch
  ) -> String {
    let steps: [JSONValue] = events.map { event in
      switch event {
      case .send(let intent):
        return .object([("send", ScenarioEncoding.intent(intent))])
      case .respond(let to, let id, let result):
        return .object([
          (
            "respond",
            .object([
              ("to", .string(to)), ("requestId", .number(Double(id.rawValue))),
              ("with", ScenarioEncoding.result(result)),
            ])
          )
        ])
      case .advance(let seconds):
        return .object([("advance", .number(seconds))])
      case .fire(let timer):
        return .object([("fire", .string(timer.rawValue))])
      }
    }
    return JSONValue.object([
      ("name", .string(name)), ("description", .string(description)),
      ("clock", ScenarioEncoding.time(clock)), ("config", ScenarioEncoding.config(policy)),
      ("allowPending", .bool(true)), ("steps", .array(steps)),
    ]).prettyText + "\n"
  }
}
