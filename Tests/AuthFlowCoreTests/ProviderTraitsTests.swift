import AuthFlowCore
import Testing

@Suite("A provider declared by its traits alone")
struct ProviderTraitsTests {
  /// microsoft.com, which AuthFlow does not build in, declared in Swift.
  static var policy: Policy {
    var p = Policy()
    p.providers.set(
      "microsoft.com",
      ProviderTraits(
        credential: .authorizationCode, nonce: .none, afterLinkConflict: .retryThenReauthorize))
    return p
  }

  static let redirect = IdPCredential(
    provider: "microsoft.com", requestUri: "https://app.example/__/auth/handler?code=c1",
    sessionId: "s1")

  @Test("signs in, and after a refused conflict retry asks the provider again, from traits")
  func conflictFollowsTraits() {
    var d = Driver.anonymous(policy: Self.policy)
    d.send(.linkProviderTapped(provider: "microsoft.com"))
    #expect(
      d.effects.first?.asRequest
        == .authorize(provider: "microsoft.com", intent: .link, loginHint: nil))
    d.answer(.providerSucceeded(credential: Self.redirect))
    #expect(
      d.effects.first?.asRequest == .signInWithIdp(credential: Self.redirect, linkTo: "id-a1"))
    d.answer(
      .credentialAlreadyInUse(
        credential: IdPCredential(provider: "microsoft.com", pendingToken: "p-1"), email: nil))
    #expect(d.state.name == "migrationRequired")
    d.send(.migrationDecided(choice: .merge))
    d.answer(.requestFailed(error: AuthError(code: "INVALID_PENDING_TOKEN")))
    // Its traits say: retry, then reauthorize. A provider that signs in with the updated
    // credential would have gone back to anonymous here.
    #expect(
      d.effects == [
        .request(
          RequestID(d.nextID - 1),
          .authorize(provider: "microsoft.com", intent: .signIn, loginHint: nil))
      ])
    var plain = Policy()
    plain.providers.set(
      "microsoft.com",
      ProviderTraits(
        credential: .authorizationCode, nonce: .none,
        afterLinkConflict: .signInWithUpdatedCredential))
    var e = Driver.anonymous(policy: plain)
    e.send(.linkProviderTapped(provider: "microsoft.com"))
    e.answer(.providerSucceeded(credential: Self.redirect))
    e.answer(
      .credentialAlreadyInUse(
        credential: IdPCredential(provider: "microsoft.com", pendingToken: "p-1"), email: nil))
    e.send(.migrationDecided(choice: .merge))
    e.answer(.requestFailed(error: AuthError(code: "INVALID_PENDING_TOKEN")))
    #expect(e.state.name == "anonymous")
  }
}
