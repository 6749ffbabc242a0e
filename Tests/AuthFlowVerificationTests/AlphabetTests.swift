import AuthFlowCore
import AuthFlowVerification
import Foundation
import Testing

/// The checker enumerates a request's answers by count (`Alphabet.resultCount`) without building
/// them; the answers themselves come from `Alphabet.results`. A count that falls short silently
/// drops the last answers (an answer added to a request is never delivered), one that runs over
/// delivers some twice.
@Suite("The alphabet's answer counts")
struct AlphabetTests {
  final class Mismatches: @unchecked Sendable {
    private let lock = NSLock()
    private var found: [String: String] = [:]
    private var compared = 0

    func record(_ machine: AuthMachine, _ now: Instant) {
      for family in RequestFamily.allCases {
        var world = World(policy: machine.policy, now: now)
        world.machine = machine
        guard let answers = Alphabet.answers(for: family, in: &world) else { continue }
        let counted = Alphabet.resultCount(answers.name, in: world)
        lock.lock()
        compared += 1
        if answers.results.count != counted {
          found[answers.name] = "\(answers.results.count) answers, counted \(counted)"
        }
        lock.unlock()
      }
    }

    var summary: (compared: Int, found: [String: String]) {
      lock.lock()
      defer { lock.unlock() }
      return (compared, found)
    }
  }

  @Test("every request the checker meets has as many answers as it counts")
  func countsMatchTheAnswers() {
    let mismatches = Mismatches()
    _ = runChecker(maxStates: 6_000) { machine, _, now in mismatches.record(machine, now) }
    let (compared, found) = mismatches.summary
    #expect(compared > 10_000)
    #expect(
      found.isEmpty,
      "\(found.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))"
    )
  }
}

/// An intent the alphabet never sends is one the model checker and the property tests never
/// try: every intent name must be in it (Google's spellings included).
@Suite("The alphabet's intents")
struct AlphabetIntentTests {
  @Test("the alphabet sends every kind of intent")
  func everyIntentKind() {
    let missing = Set(Intent.Kind.allCases).subtracting(Alphabet.intents.map(\.kind))
    #expect(missing.isEmpty, "never sent by the checker: \(missing.map(\.rawValue).sorted())")
  }
}
