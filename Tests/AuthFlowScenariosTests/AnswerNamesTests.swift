import AuthFlowCore
import Testing

@testable import AuthFlowScenarios

@Suite("The answers a request can get, read from its answer type")
struct AnswerNamesTests {
  @Test("every answer name of every request kind is a scenario answer name")
  func everyNameKnown() {
    for kind in RequestKind.allCases {
      #expect(!kind.answerNames.isEmpty)
      for name in kind.answerNames { #expect(AnswerName(rawValue: name) != nil, "\(kind) \(name)") }
    }
  }

  @Test("a kind's failure is one of its answers, named as its type names it")
  func failureNamed() {
    for kind in RequestKind.allCases {
      let failure = Answer.failed(kind, 1, AuthError(code: "X"))
      #expect(kind.answerNames.contains(failure.outcomeName), "\(kind)")
      #expect(Vocabulary.answers(for: kind).count == kind.answerNames.count)
    }
  }
}
