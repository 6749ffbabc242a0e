import AuthFlowCore
import Foundation
import Testing

/// A value's JSON, keys sorted.
func json<T: Encodable>(_ value: T) throws -> String {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys]
  return String(decoding: try encoder.encode(value), as: UTF8.self)
}

@Suite("JSON encoding and error classes")
struct CodingTests {

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
      ("HTTP_500", .transient), ("INTERNAL_ERROR", .transient), ("UNEXPECTED_RESPONSE", .transient),
      ("STORAGE_UNAVAILABLE", .transient), ("BACKEND_ERROR", .transient),
      ("UNAVAILABLE", .transient), ("RESPONSE_TOO_LARGE", .transient),
      ("QUOTA_EXCEEDED", .throttled), ("HTTP_429", .throttled),
      ("TOO_MANY_ATTEMPTS_TRY_LATER", .throttled),
      ("RESET_PASSWORD_EXCEED_LIMIT", .throttled),
      ("CREDENTIAL_TOO_OLD_LOGIN_AGAIN", .reauthenticate),
      ("TOKEN_EXPIRED", .sessionDead), ("USER_DISABLED", .sessionDead),
      ("USER_NOT_FOUND", .sessionDead), ("INVALID_REFRESH_TOKEN", .sessionDead),
      ("PROJECT_NUMBER_MISMATCH", .sessionDead), ("INVALID_ID_TOKEN", .invalidIDToken),
      ("INVALID_PASSWORD", .user), ("EMAIL_EXISTS", .user), ("WEAK_PASSWORD", .user),
      ("HTTP_404", .user), ("NETWORX", .user), ("network", .user), ("", .user),
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

@Suite("A request's fields, declared once")
struct RequestFieldTests {
  /// One request of every kind, every optional field given.
  static let every: [Request] = [
    .signUpAnonymously,
    .authorize(provider: .apple, intent: .link, loginHint: "h"),
    .signInWithIdp(
      credential: IdPCredential(provider: "microsoft.com", pendingToken: "p"), linkTo: "l"),
    .signInWithPassword(email: "e", password: "p"),
    .signUpWithPassword(email: "e", password: "p", linkTo: "l"),
    .sendPasswordReset(email: "e"),
    .refreshToken(refreshToken: "r"),
    .deleteAccount(idToken: "t"),
    .revokeToken(provider: .apple, authorizationCode: "c", idToken: "t"),
    .unlinkProvider(provider: .apple, idToken: "t"),
    .lookupAccount(idToken: "t"),
    .sendVerificationEmail(idToken: "t"),
    .applyActionCode(code: "c"),
    .checkActionCode(code: "c"),
    .confirmPasswordReset(code: "c", newPassword: "p"),
    .signInWithCustomToken(token: "t"),
    .updatePassword(idToken: "t", newPassword: "p"),
    .sendEmailChangeVerification(idToken: "t", newEmail: "e"),
    .updateProfile(idToken: "t", change: ProfileChange(displayName: "n", photoURL: "u")),
    .sendSignInLink(email: "e"),
    .signInWithEmailLink(email: "e", code: "c", linkTo: "l"),
    .startSecondFactorSignIn(pendingCredential: "p", factor: "f", appVerification: "token"),
    .finalizeSecondFactorSignIn(
      pendingCredential: "p", factor: "f", sessionInfo: "s", verificationCode: "c",
      displayName: "n"),
    .startTotpEnrollment(idToken: "t"),
    .finalizeTotpEnrollment(
      idToken: "t", sessionInfo: "s", verificationCode: "c", displayName: "n"),
    .withdrawSecondFactor(idToken: "t", factor: "f"),
    .startPhoneEnrollment(idToken: "t", phoneNumber: "+1", appVerification: "token"),
    .finalizePhoneEnrollment(
      idToken: "t", sessionInfo: "s", verificationCode: "c", displayName: "n"),
    .sendVerificationCode(phoneNumber: "+1", appVerification: "token"),
    .signInWithPhoneNumber(sessionInfo: "s", verificationCode: "c", linkTo: "l"),
    .signInWithTemporaryProof(PhoneProof(phoneNumber: "+1", temporaryProof: "p")),
  ]

  @Test("the list above has every request kind (but the store's read, which is no Request)")
  func everyKind() {
    #expect(
      Set(Self.every.map(\.kind)) == Set(RequestKind.allCases).subtracting([.loadSession]))
  }

  @Test("each request's effect is written with exactly its kind's declared fields and reads back")
  func declaredFields() throws {
    for request in Self.every + [.authorize(provider: .google, intent: .signIn, loginHint: "h")] {
      let effect = Effect.request(5, request)
      let data = try JSONEncoder().encode(effect)
      let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
      #expect(Array(object.keys) == [effect.name])
      let fields = try #require(object[effect.name] as? [String: Any])
      #expect(Set(fields.keys) == Set(effect.kind.fields), "\(effect.name)")
      #expect(try JSONDecoder().decode(Effect.self, from: data) == effect, "\(effect.name)")
    }
    let store = Effect.loadSession(requestId: 2)
    #expect(try JSONDecoder().decode(Effect.self, from: JSONEncoder().encode(store)) == store)
    #expect(Effect.Kind(rawValue: "loadSession") == .request(.loadSession))
    #expect(Effect.Kind.allCases.map(\.rawValue).count == Set(Effect.Kind.allCases).count)
  }

  @Test("a field left out is left out of the JSON, and a missing required one is an error")
  func optionalFields() throws {
    let bare = Effect.request(1, .signInWithEmailLink(email: "e", code: "c", linkTo: nil))
    let text = String(decoding: try JSONEncoder().encode(bare), as: UTF8.self)
    #expect(!text.contains("linkTo"))
    #expect(try JSONDecoder().decode(Effect.self, from: Data(text.utf8)) == bare)
    let missing = Data(#"{"signInWithEmailLink":{"requestId":1,"email":"e"}}"#.utf8)
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(Effect.self, from: missing) }
  }

}

@Suite("An intent's fields, declared once: the JSON reads and writes them")
struct IntentFieldTests {

  @Test("intents keep their JSON: one key, labelled fields, optional ones left out when nil")
  func intentShapes() throws {
    let shapes: [(Intent, String)] = [
      (.appLaunched, #"{"appLaunched":{}}"#),
      (.linkGoogleTapped, #"{"linkGoogleTapped":{}}"#),
      (
        .linkProviderTapped(provider: "oidc.acme"),
        #"{"linkProviderTapped":{"provider":"oidc.acme"}}"#
      ),
      (
        .signOutTapped(discardAnonymousData: false),
        #"{"signOutTapped":{"discardAnonymousData":false}}"#
      ),
      (.reauthenticateTapped(provider: nil), #"{"reauthenticateTapped":{}}"#),
      (.migrationDecided(choice: .merge), #"{"migrationDecided":{"choice":"merge"}}"#),
      (
        .idTokenRequested(requestId: 4, forceRefresh: true),
        #"{"idTokenRequested":{"forceRefresh":true,"requestId":4}}"#
      ),
      (
        .updateProfile(change: ProfileChange(displayName: "Ada")),
        #"{"updateProfile":{"displayName":"Ada"}}"#
      ),
      (
        .signInWithEmailLink(code: "c", email: nil), #"{"signInWithEmailLink":{"code":"c"}}"#
      ),
      (
        .sendPhoneCode(phoneNumber: "+15555550100", appVerification: .recaptcha(token: "t")),
        #"{"sendPhoneCode":{"appVerification":"t","phoneNumber":"+15555550100"}}"#
      ),
    ]
    for (intent, text) in shapes {
      #expect(try json(intent) == text)
      #expect(try JSONDecoder().decode(Intent.self, from: Data(text.utf8)) == intent, "\(text)")
    }
    for bad in [#"{}"#, #"{"appLaunched":{},"cancelTapped":{}}"#, #"{"noSuchIntent":{}}"#] {
      #expect(throws: DecodingError.self, "\(bad)") {
        try JSONDecoder().decode(Intent.self, from: Data(bad.utf8))
      }
    }
    let missing = Data(#"{"signInWithEmail":{"email":"e"}}"#.utf8)
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(Intent.self, from: missing) }
  }

  @Test("each intent is written with exactly its kind's declared fields and reads back")
  func intentDeclaredFields() throws {
    for kind in Intent.Kind.allCases {
      var sample = SampleIntentFields(declared: kind.fields)
      let intent = try Intent(kind, &sample)
      #expect(sample.index == kind.fields.count, "\(kind) reads fewer fields than it declares")
      #expect(intent.kind == kind)
      let data = try JSONEncoder().encode(intent)
      let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
      #expect(Array(object.keys) == [kind.rawValue])
      let fields = try #require(object[kind.rawValue] as? [String: Any])
      #expect(Set(fields.keys) == Set(kind.fields.map(\.name)), "\(kind)")
      #expect(try JSONDecoder().decode(Intent.self, from: data) == intent, "\(kind)")
      #expect(!kind.summary.isEmpty)
    }
  }
}

/// Gives every declared field of an intent a value of its declared type (none left out), and
/// fails when the intent reads a field as another type or reads more than it declares.
struct SampleIntentFields: IntentFieldReader {
  let declared: [IntentField]
  var index = 0

  struct Mismatch: Error {}

  mutating func next<T: Decodable & Sendable>() throws -> T {
    guard index < declared.count else { throw Mismatch() }
    defer { index += 1 }
    let value: Any =
      switch declared[index].type {
      case .text: "x"
      case .provider: ProviderID("oidc.sample")
      case .flag: true
      case .migrationChoice: MigrationChoice.switchWithoutData
      case .tokenRequestID: TokenRequestID(7)
      case .appVerification: AppVerification.recaptcha(token: "proof")
      }
    guard let typed = value as? T else { throw Mismatch() }
    return typed
  }

  mutating func optional<T: Decodable & Sendable>() throws -> T? { try next() as T }
}
