import AuthFlowCore
import AuthFlowScenarios
import Testing

@testable import AuthFlowVerification

/// The checker numbers state names, intents and timers by reading their case's byte
/// (`ModelChecker.caseNumber`) instead of looking them up; these tests hold that number to the
/// case's place in `allCases`, which the packed edges are decoded by.
@Suite("Case numbers and packed edges")
struct CaseNumberTests {
  @Test("a case's number is its place in allCases, for every enum the checker numbers")
  func numbersAreAllCasesPlaces() {
    func check<E: CaseIterable & Equatable>(_: E.Type) {
      #expect(MemoryLayout<E>.size == 1)
      for (place, value) in E.allCases.enumerated() {
        #expect(ModelChecker.caseNumber(value) == place, "\(value)")
      }
    }
    check(StateName.self)
    check(Intent.Kind.self)
    check(TimerID.self)
  }

  @Test("every event kind's code names that kind, and an edge decodes to its parts")
  func eventCodesRoundTrip() {
    var events: [Event] = TimerID.allCases.map { .timerFired(timer: $0) }
    events.append(.persistFailed(error: AuthError(code: "STORAGE_UNAVAILABLE")))
    events.append(.storeChanged(session: nil))
    var world = World()
    var rng = Xoshiro256(seed: 20_261_207)
    var answers = Set<String>()
    var intents = Set<String>()
    // Answers and intents as the checker's own alphabet makes them, along random walks.
    for _ in 0..<300 {
      world = World()
      for _ in 0..<40 {
        let choice = rng.pick(Alphabet.choices(world))
        guard let event = Alphabet.resolve(choice, in: &world) else { continue }
        if case .respond(_, let a) = event, answers.insert(a.outcomeName).inserted {
          events.append(.answer(a))
        }
        if case .send(let i) = event, intents.insert(i.kind.rawValue).inserted {
          events.append(.intent(i))
        }
        world.apply(event)
      }
    }
    #expect(answers.count > 10)
    #expect(intents.count > 10)
    for event in events {
      let code = ModelChecker.eventCode(event)
      #expect(ModelChecker.eventKinds[Int(code)] == ModelChecker.kind(event))
      let edge = ModelChecker.edge(ModelChecker.edgeCode(.anonymous, code, .signedOut))
      #expect(edge.from == "anonymous" && edge.to == "signedOut")
      #expect(edge.event == ModelChecker.kind(event))
    }
  }
}
