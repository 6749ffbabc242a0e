import AuthFlowCore
import AuthFlowVerification
import Testing

@Suite("The checker's packed key")
struct PackedKeyTests {
  /// The visited set compares packed keys, the rest of the checker abstract states: the two
  /// must agree, or two different states are merged (a field the key leaves out) or one state
  /// is explored twice. Random walks over the checker's own alphabet reach every kind of value
  /// a state holds (an email link's address included).
  @Test("two worlds have equal packed keys exactly when their abstract states are equal")
  func keyMatchesAbstractState() {
    var rng = Xoshiro256(seed: 20_261_203)
    let interner = Interner()
    var byKey: [PackedKey: AbstractState] = [:]
    var byState: [AbstractState: PackedKey] = [:]
    var linkAddresses = 0
    for _ in 0..<1_000 {
      var world = World()
      for _ in 0..<60 {
        // Half the moves are what a user would plausibly do here, so the walks go deep.
        let likely = Alphabet.likelyIntents(world.machine)
        let choice =
          rng.chance(0.5) && !likely.isEmpty
          ? Choice.intent(rng.pick(likely)) : rng.pick(Alphabet.choices(world))
        guard let event = Alphabet.resolve(choice, in: &world) else { continue }
        world.apply(event)
        let key = PackedKey(world, interner: interner)
        let state = AbstractState(world)
        if world.machine.emailLinkAddress != nil { linkAddresses += 1 }
        if let seen = byKey[key], seen != state {
          Issue.record(
            "one key for two states: \(seen.machine.stateName) and \(state.machine.stateName)")
          return
        }
        if let seen = byState[state], seen != key {
          Issue.record("two keys for one state in \(state.machine.stateName)")
          return
        }
        byKey[key] = state
        byState[state] = key
      }
    }
    #expect(byKey.count > 300, "the walks reached \(byKey.count) states")
    #expect(linkAddresses > 0, "no walk kept an email link's address")
  }
}
