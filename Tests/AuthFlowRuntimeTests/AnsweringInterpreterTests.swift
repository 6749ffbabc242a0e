import AuthFlowCore
import AuthFlowRuntime
import Testing

/// Answers each request with whatever `answer` gives, to see what `AnsweringInterpreter`
/// makes of it.
private struct Fixed: AnsweringInterpreter {
  let answer: @Sendable (Request, RequestID) -> Answer
  func respond(to request: Request, id: RequestID) async -> Answer { answer(request, id) }
}

@Suite("Interpreters that answer in one place")
struct AnsweringInterpreterTests {
  @Test("a slot's answer is an answer of its kind with that outcome, read back by the slot alone")
  func slotRoundTrip() {
    let a = RequestSlot.lookupAccount.answer(7, .requestFailed(error: AuthError(code: "X")))
    #expect(a == .lookupAccount(7, .requestFailed(error: AuthError(code: "X"))))
    #expect(RequestSlot.lookupAccount.outcome(of: a) == .requestFailed(error: AuthError(code: "X")))
    #expect(RequestSlot.sendVerificationEmail.outcome(of: a) == nil)
    let shared = RequestSlot.sendEmailChangeVerification.answer(3, .verificationEmailSent)
    #expect(shared.kind == .sendEmailChangeVerification)
    #expect(RequestSlot.sendVerificationEmail.outcome(of: shared) == nil)
  }

  @Test("an answer of another kind is the request's failure, WRONG_ANSWER, in perform and per kind")
  func wrongKind() async {
    let interpreter = Fixed { _, id in RequestSlot.deleteAccount.answer(id, .accountDeleted) }
    let performed = await interpreter.perform(.lookupAccount(idToken: "t"), id: 4)
    #expect(performed.kind == .lookupAccount)
    #expect(performed.id == 4)
    #expect(performed.error?.code == "WRONG_ANSWER")
    #expect(await interpreter.lookupAccount(idToken: "t").error?.code == "WRONG_ANSWER")
    #expect(await interpreter.deleteAccount(idToken: "t") == .accountDeleted)
    let consent = await interpreter.authorize(provider: .google, intent: .signIn, loginHint: nil)
    #expect(consent.name == "providerFailed")
  }

  @Test("TestInterpreter answers per kind from its queue, then NOT_SCRIPTED, and records each")
  func testInterpreterQueue() async {
    let interpreter = TestInterpreter()
    await interpreter.answer(.sendSignInLink, with: .signInLinkSent)
    #expect(
      await interpreter.perform(.sendSignInLink(email: "a@example.com"), id: 9)
        == .sendSignInLink(9, .signInLinkSent))
    await interpreter.answer(.updatePassword, with: .requestFailed(error: AuthError(code: "W")))
    #expect(await interpreter.updatePassword(idToken: "t", newPassword: "p").error?.code == "W")
    let second = await interpreter.updatePassword(idToken: "t", newPassword: "p")
    #expect(second.error?.code == "NOT_SCRIPTED")
    #expect(await interpreter.count(.updatePassword) == 2)
    #expect(await interpreter.count(.sendSignInLink) == 1)
  }
}
