import Testing

@testable import AuthFlowCore

@Suite("Hostile numbers and secrets")
struct RobustnessTests {
  static let hugeOrBroken: [Double] = [99_999_999_999, 1e300, .infinity, -.infinity, .nan, -1]

  @Test(
    "a refresh answer whose expiresIn is huge, negative or not a number backs off",
    arguments: hugeOrBroken)
  func hugeExpiresIn(expiresIn: Double) {
    var d = Driver.permanent()
    d.send(.idTokenRequested(requestId: 1, forceRefresh: true))
    let effects = d.answerRefresh(
      .tokenRefreshed(idToken: "x", refreshToken: "y", expiresIn: expiresIn))
    #expect(d.state.name == "firebaseAuthenticated")
    #expect(d.machine.user?.session.idToken == "id-u1", "the absurd token is not taken")
    guard case .deliverIDToken(_, .failure(let error)) = effects.first else {
      Issue.record("\(effects)")
      return
    }
    #expect(error.code == "UNEXPECTED_RESPONSE")
    for case .scheduleTimer(_, let at) in effects { #expect(at.isValid && at >= d.now) }
  }

  @Test(
    "a stored session with an absurd expiry is corrupt: cleared and reported",
    arguments: hugeOrBroken)
  func storedAbsurdExpiry(seconds: Double) {
    var d = Driver()
    d.send(.appLaunched)
    var session = Fixture.google()
    session.expiresAt = Instant(seconds)
    let effects = d.answer(.sessionLoaded(session: session))
    #expect(d.state == .signedOut)
    #expect(effects.contains(.clearSession))
    #expect(
      effects.contains {
        if case .notify(.error(let e)) = $0 { return e.code == "CORRUPT_SESSION" }
        return false
      })
  }

  @Test("a sign-in whose session has an absurd expiry is refused; nothing is stored")
  func signedInAbsurd() {
    var d = Driver.signedOut()
    d.send(.signInAnonymouslyTapped)
    var session = Fixture.anonymous()
    session.expiresAt = Instant(.infinity)
    let effects = d.answer(.signedIn(session: session))
    #expect(d.state == .signedOut)
    #expect(!effects.contains { if case .persistSession = $0 { true } else { false } })
  }

  @Test("a clock that says 'not a number' or the year 30000 schedules nothing absurd")
  func absurdNow() {
    for now in [Instant(.nan), Instant(1e15), Instant(-5)] {
      var m = AuthMachine()
      var fx: [Effect] = []
      m.handle(.intent(.appLaunched), now: now, into: &fx)
      m.handle(
        .answer(.loadSession(1, .sessionLoaded(session: Fixture.google()))), now: now, into: &fx)
      for case .scheduleTimer(_, let at) in fx { #expect(at.isValid) }
    }
  }

  @Test("policy numbers out of range are brought into it")
  func policySanitized() {
    let m = AuthMachine(
      policy: Policy(
        refreshMargin: .nan, backoffBase: -3, backoffCap: .infinity, throttledDelay: 1e300))
    #expect(m.policy.refreshMargin == 300)
    #expect(m.policy.backoffBase == 1)
    #expect(m.policy.backoffCap == Instant.longestDuration)
    #expect(m.policy.throttledDelay == Instant.longestDuration)
  }

  @Test("sleeping until any instant is a whole number of nanoseconds, never a trap")
  func sleepSaturates() {
    let now = Instant(1_767_258_000)
    #expect(now.nanoseconds(until: Instant(.infinity)) == UInt64(Instant.longestDuration * 1e9))
    #expect(now.nanoseconds(until: Instant(.nan)) == 0)
    #expect(now.nanoseconds(until: Instant(-1e300)) == 0)
    #expect(now.nanoseconds(until: now + 1.5) == 1_500_000_000)
  }

  @Test("print, debugPrint and dump of values that hold secrets show fingerprints")
  func secretsStaySecret() {
    let session = Session(
      uid: "u-1", anonymous: false, idToken: "ID-TOKEN-SECRET", refreshToken: "REFRESH-SECRET",
      expiresAt: Instant(1_767_261_600),
      pendingCleanup: AnonymousCleanup(uid: "a-1", idToken: "ANON-SECRET", dataMoved: false))
    let credential = IdPCredential(
      provider: .apple, idToken: "APPLE-SECRET", accessToken: "ACCESS-SECRET",
      rawNonce: "NONCE-SECRET", pendingToken: "PENDING-SECRET", authorizationCode: "CODE-SECRET")
    var d = Driver.permanent()
    d.send(.idTokenRequested(requestId: 1, forceRefresh: true))
    let values: [Any] = [
      session, credential, SignedInUser(session: session),
      AuthState.anonymous(user: SignedInUser(session: session)),
      Effect.persistSession(session: session),
      Effect.request(3, .refreshToken(refreshToken: "REFRESH-SECRET")),
      Effect.request(4, .signInWithPassword(email: "a@b.c", password: "PASSWORD-SECRET")),
      Effect.deliverIDToken(requestIds: [1], result: .token(idToken: "ID-TOKEN-SECRET")),
      Event.answer(
        .refreshToken(
          2,
          .tokenRefreshed(
            Tokens(
              idToken: "ID-TOKEN-SECRET", refreshToken: "REFRESH-SECRET",
              expiresAt: Fixture.t0 + 3600)))),
      Event.intent(.signInWithEmail(email: "a@b.c", password: "PASSWORD-SECRET")),
      Answer.authorize(5, .providerSucceeded(credential: credential)), d.machine,
      Request.deleteAccount(idToken: "ID-TOKEN-SECRET"),
      Phase.migrationRequired(MigrationOffer(credential: credential)),
      Request.confirmPasswordReset(code: "oob-1", newPassword: "NEW-PASSWORD-SECRET"),
      Event.intent(.confirmPasswordReset(code: "oob-1", newPassword: "NEW-PASSWORD-SECRET")),
      Request.signInWithCustomToken(token: "CUSTOM-TOKEN-SECRET"),
      Event.intent(.signInWithCustomToken(token: "CUSTOM-TOKEN-SECRET")),
    ]
    for value in values {
      var dumped = ""
      dump(value, to: &dumped)
      for text in [String(describing: value), String(reflecting: value), dumped] {
        #expect(!text.contains("SECRET"), "\(text)")
        #expect(!text.contains("rt-id-u1") && !text.contains("\"id-u1\""), "\(text)")
      }
    }
    #expect(String(describing: session).contains(Secrets.fingerprint("ID-TOKEN-SECRET")))
    #expect(String(describing: session).contains("u-1"), "what is not secret stays readable")
  }
}

@Suite("Found by the fuzzers")
struct FuzzFindingsTests {
  @Test("an app that reuses a token-request id while it waits gets one answer for it")
  func duplicateTokenRequestID() {
    var d = Driver.permanent()
    d.send(.idTokenRequested(requestId: 2, forceRefresh: true))
    #expect(d.send(.idTokenRequested(requestId: 2, forceRefresh: false)) == [])
    let effects = d.answerRefresh(
      .tokenRefreshed(idToken: "id-2", refreshToken: "rt-2", expiresIn: 3600))
    #expect(effects.contains(.deliverIDToken(requestIds: [2], result: .token(idToken: "id-2"))))
    var r = Driver()
    r.send(.appLaunched)
    r.send(.idTokenRequested(requestId: 7, forceRefresh: false))
    r.send(.idTokenRequested(requestId: 7, forceRefresh: false))
    #expect(
      r.answer(.sessionLoaded(session: nil)) == [
        .deliverIDToken(requestIds: [7], result: .failure(error: .notSignedIn))
      ])
  }
}
