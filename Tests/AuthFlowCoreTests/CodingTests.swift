import AuthFlowCore
import Foundation
import Testing

@Suite("JSON encoding and error classes")
struct CodingTests {
  func json<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }

  @Test("events and effects are one-key objects with labelled fields")
  func oneKey() throws {
    #expect(try json(Intent.signInWithGoogleTapped) == #"{"signInWithGoogleTapped":{}}"#)
    #expect(
      try json(Effect.refreshToken(requestId: 3, refreshToken: "r1"))
        == #"{"refreshToken":{"refreshToken":"r1","requestId":3}}"#)
    #expect(
      try json(Event.answer(.deleteAccount(2, .accountDeleted)))
        == #"{"answer":{"_0":{"answer":{"accountDeleted":{}},"kind":"deleteAccount","requestId":2}}}"#
    )
  }

  @Test("every reachable state round-trips through JSON", arguments: Start.allCases)
  func stateRoundTrip(start: Start) throws {
    let machine = Driver.reach(start).machine
    let data = try JSONEncoder().encode(machine)
    #expect(try JSONDecoder().decode(AuthMachine.self, from: data) == machine)
  }

  @Test("effects and events seen in a long story round-trip through JSON")
  func effectsRoundTrip() throws {
    var d = Driver.migrationRequired()
    var effects = d.send(.migrationDecided(choice: .merge))
    effects += d.answer(.signedIn(session: Fixture.google(uid: "user-7")))
    effects += d.send(.idTokenRequested(requestId: 1, forceRefresh: true))
    effects += d.send(.migrationFinished)
    for effect in effects {
      #expect(try JSONDecoder().decode(Effect.self, from: JSONEncoder().encode(effect)) == effect)
    }
    let event = Event.answer(
      .refreshToken(
        3, .tokenRefreshed(Tokens(idToken: "a", refreshToken: "b", expiresAt: Fixture.t0 + 3600))))
    #expect(try JSONDecoder().decode(Event.self, from: JSONEncoder().encode(event)) == event)
  }

  @Test(
    "error codes map to the classes the reducer acts on",
    arguments: [
      ("NETWORK", ErrorKind.transient), ("TIMEOUT", .transient), ("HTTP_503", .transient),
      ("HTTP_500", .transient), ("TOO_MANY_ATTEMPTS_TRY_LATER", .throttled),
      ("RESET_PASSWORD_EXCEED_LIMIT", .throttled),
      ("CREDENTIAL_TOO_OLD_LOGIN_AGAIN", .reauthenticate),
      ("TOKEN_EXPIRED", .sessionDead), ("USER_DISABLED", .sessionDead),
      ("USER_NOT_FOUND", .sessionDead), ("INVALID_REFRESH_TOKEN", .sessionDead),
      ("PROJECT_NUMBER_MISMATCH", .sessionDead), ("INVALID_ID_TOKEN", .invalidIDToken),
      ("INVALID_PASSWORD", .user), ("EMAIL_EXISTS", .user), ("WEAK_PASSWORD", .user),
      ("HTTP_404", .user),
    ])
  func classify(code: String, kind: ErrorKind) {
    #expect(AuthError(code: code).kind == kind)
  }

  @Test("the machine's state name is the view's, in every starting point")
  func names() {
    for start in Start.allCases {
      let m = Driver.reach(start).machine
      #expect(m.stateName == m.state.kind, "\(start)")
    }
  }

  @Test("Google's spellings and the generic ones are the same values")
  func googleSpellings() throws {
    #expect(Intent.signInWithGoogleTapped == .signInWithProviderTapped(provider: "google.com"))
    #expect(
      try json(Intent.signInWithProviderTapped(provider: "apple.com"))
        == #"{"signInWithProviderTapped":{"provider":"apple.com"}}"#)
    let google = Effect.request(1, .authorize(provider: .google, intent: .signIn, loginHint: nil))
    let apple = Effect.request(1, .authorize(provider: .apple, intent: .signIn, loginHint: nil))
    #expect(google.name == "authorizeWithGoogle")
    #expect(apple.name == "authorize")
    #expect(try json(google) == #"{"authorizeWithGoogle":{"intent":"signIn","requestId":1}}"#)
    for effect in [google, apple] {
      #expect(try JSONDecoder().decode(Effect.self, from: JSONEncoder().encode(effect)) == effect)
    }
  }

  @Test("reduce is the same function as handle")
  func reduceFunction() {
    let d = Driver.anonymous()
    let (next, effects) = reduce(d.machine, .intent(.signInWithGoogleTapped), now: d.now)
    var m = d.machine
    #expect(m.handle(.intent(.signInWithGoogleTapped), now: d.now) == effects)
    #expect(m == next)
  }
}
