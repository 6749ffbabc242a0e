import AuthFlowCore
import AuthFlowScenarios

/// Writes a path of world events as a scenario with full expectations: after each step, the
/// state and the exact list of effects (by name), as the machine gives them. What
/// `flowrun generate` writes, ready to review and keep.
public enum StoryWriter {
  /// The scenario text for `events` under `policy`.
  public static func scenario(
    name: String, description: String, events: [WorldEvent], policy: Policy,
    clock: Instant = World.epoch
  ) -> String {
    var world = World(policy: policy, now: clock)
    var steps: [JSONValue] = []
    for event in events {
      var effects: [String] = []
      world.apply(event) { step in effects += step.effects.map(\.name) }
      let expect = JSONValue.object([
        ("state", .string(world.machine.stateName.rawValue)),
        ("effects", .array(effects.map(JSONValue.string))),
      ])
      var members = event.stepMembers
      members.append(("expect", expect))
      steps.append(.object(members))
    }
    return JSONValue.object([
      ("$schema", .string("../../Docs/scenario.schema.json")),
      ("name", .string(name)), ("description", .string(description)),
      ("clock", ScenarioEncoding.time(clock)), ("config", ScenarioEncoding.config(policy)),
      ("allowPending", .bool(true)), ("steps", .array(steps)),
    ]).prettyText + "\n"
  }
}
