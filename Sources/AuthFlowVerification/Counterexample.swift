import AuthFlowCore
import AuthFlowScenarios
import Foundation

/// Writes a sequence of world events as a scenario file that `flowrun` replays.
public enum CounterexampleWriter {
  /// A new, empty folder in the system's temporary directory for a run's counterexamples
  /// (never the working directory, which may be a checkout, and never a fixed name).
  public static func newFolder() throws -> String {
    let base = FileManager.default.temporaryDirectory
    let name = "authflow-counterexamples-\(UInt64.random(in: 0...UInt64.max))"
    let url = base.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url.path
  }

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
    case .respond(let to, let answer):
      return [
        (
          "respond",
          .object([
            ("to", .string(to)), ("requestId", .number(Double(answer.id.rawValue))),
            ("with", ScenarioEncoding.result(answer)),
          ])
        )
      ]
    case .advance(let seconds):
      return [("advance", .number(seconds))]
    case .fire(let timer):
      return [("fire", .string(timer.rawValue))]
    case .relaunch(let lost):
      return [("relaunch", lost ? .object([("lostLastWrite", .bool(true))]) : .bool(true))]
    case .storeChanged(let session):
      return [("storeChanged", ScenarioEncoding.storeChanged(session))]
    }
  }
}
