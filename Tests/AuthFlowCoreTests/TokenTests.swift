import AuthFlowCore
import Testing

@Suite("Token lifecycle inside the signed-in states")
struct TokenTests {
  @Test("a fresh token is answered from the session, with no other effect")
  func hotPath() {
    var d = Driver.anonymous()
    #expect(
      d.send(.idTokenRequested(requestId: 70, forceRefresh: false)) == [
        .deliverIDToken(requestIds: [70], result: .token(idToken: "id-a1"))
      ])
  }

  @Test("inside the margin or forced, the request starts a refresh")
  func refreshOnDemand() {
    var d = Driver.anonymous()
    d.now = d.now + 3301  // 299 s before expiry
    #expect(
      d.send(.idTokenRequested(requestId: 1, forceRefresh: false)) == [
        .refreshToken(requestId: 3, refreshToken: "rt-id-a1")
      ])
    var f = Driver.anonymous()
    #expect(
      f.send(.idTokenRequested(requestId: 1, forceRefresh: true)) == [
        .refreshToken(requestId: 3, refreshToken: "rt-id-a1")
      ])
  }

  @Test("single flight: many requests, one refresh, one delivery to every waiter")
  func singleFlight() {
    var d = Driver.anonymous()
    d.send(.idTokenRequested(requestId: 1, forceRefresh: true))
    #expect(d.send(.idTokenRequested(requestId: 2, forceRefresh: false)) == [])
    #expect(d.send(.idTokenRequested(requestId: 3, forceRefresh: true)) == [])
    #expect(d.send(.idTokenRequested(requestId: 4, forceRefresh: true)) == [])
    let effects = d.answerRefresh(
      .tokenRefreshed(idToken: "id-new", refreshToken: "rt-new", expiresIn: 3600))
    var s = Fixture.anonymous()
    s.idToken = "id-new"
    s.refreshToken = "rt-new"
    #expect(
      effects == [
        .persistSession(session: s), .scheduleTimer(timer: .tokenRefresh, at: d.now + 3300),
        .deliverIDToken(requestIds: [1, 2, 3, 4], result: .token(idToken: "id-new")),
      ])
  }

  @Test("the refresh timer fires at expiry minus the margin; an early one is armed again")
  func timer() {
    var d = Driver.permanent()
    #expect(d.fire(after: 3000) == [.scheduleTimer(timer: .tokenRefresh, at: Fixture.t0 + 3300)])
    #expect(d.fire(after: 300) == [.refreshToken(requestId: 4, refreshToken: "rt-id-u1")])
  }

  @Test("transient failures back off 60 s doubling to 16 min and keep the user signed in")
  func backoff() {
    var d = Driver.anonymous()
    d.fire(after: 3300)
    var delays: [Double] = []
    for _ in 0..<7 {
      let effects = d.answerRefresh(.requestFailed(error: AuthError(code: "NETWORK")))
      guard case .scheduleTimer(_, let at)? = effects.last else {
        Issue.record("no timer after failure")
        return
      }
      delays.append(at - d.now)
      #expect(d.state.name == "anonymous")
      d.fire(after: at - d.now)
    }
    #expect(delays == [60, 120, 240, 480, 960, 960, 960])
  }

  @Test("a throttled refresh waits at least the throttled delay")
  func throttled() {
    var d = Driver.anonymous()
    d.fire(after: 3300)
    let effects = d.answerRefresh(
      .requestFailed(error: AuthError(code: "TOO_MANY_ATTEMPTS_TRY_LATER")))
    #expect(effects == [.scheduleTimer(timer: .tokenRefresh, at: d.now + 300)])
  }

  @Test("waiters get the failure when the refresh fails transiently")
  func waitersGetFailure() {
    var d = Driver.anonymous()
    d.send(.idTokenRequested(requestId: 9, forceRefresh: true))
    let error = AuthError(code: "TIMEOUT")
    #expect(
      d.answerRefresh(.requestFailed(error: error)) == [
        .deliverIDToken(requestIds: [9], result: .failure(error: error)),
        .scheduleTimer(timer: .tokenRefresh, at: d.now + 60),
      ])
  }

  @Test(
    "sessionDead refresh failures sign out with sessionExpired",
    arguments: ["TOKEN_EXPIRED", "USER_DISABLED", "USER_NOT_FOUND", "INVALID_REFRESH_TOKEN"])
  func sessionDead(code: String) {
    var d = Driver.permanent()
    d.send(.idTokenRequested(requestId: 5, forceRefresh: true))
    let error = AuthError(code: code)
    #expect(
      d.answerRefresh(.requestFailed(error: error)) == [
        .deliverIDToken(requestIds: [5], result: .failure(error: error)),
        .cancelTimer(timer: .tokenRefresh), .clearSession, .signOutGoogle,
        .notify(notification: .sessionExpired),
      ])
    #expect(d.state == .signedOut)
  }

  @Test("a restored session inside the margin refreshes at once and waiters join it")
  func restoreExpiring() {
    var d = Driver()
    d.send(.appLaunched)
    d.send(.idTokenRequested(requestId: 1, forceRefresh: false))
    var old = Fixture.anonymous()
    old.expiresAt = d.now + 100
    #expect(
      d.answer(.sessionLoaded(session: old)) == [
        .refreshToken(requestId: 2, refreshToken: "rt-id-a1")
      ])
    #expect(
      d.answerRefresh(.tokenRefreshed(idToken: "n", refreshToken: "r", expiresIn: 3600)).last
        == .deliverIDToken(requestIds: [1], result: .token(idToken: "n")))
  }

  @Test("a refresh result after sign-out changes nothing")
  func refreshAfterSignOut() {
    var d = Driver.permanent()
    d.send(.idTokenRequested(requestId: 1, forceRefresh: true))
    let refresh = d.nextID - 1
    d.send(.signOutTapped(discardAnonymousData: false))
    #expect(
      d.respond(refresh, .tokenRefreshed(idToken: "x", refreshToken: "y", expiresIn: 1)) == [])
    #expect(d.state == .signedOut)
  }

  @Test("a short-lived token is not refreshed in a loop: the timer waits half its life")
  func shortLived() {
    var d = Driver.anonymous()
    d.send(.idTokenRequested(requestId: 1, forceRefresh: true))
    let effects = d.answerRefresh(.tokenRefreshed(idToken: "n", refreshToken: "r", expiresIn: 120))
    #expect(effects.contains(.scheduleTimer(timer: .tokenRefresh, at: d.now + 60)))
  }

  @Test("before appLaunched there is no token; signed out there is none either")
  func noUser() {
    var d = Driver()
    #expect(
      d.send(.idTokenRequested(requestId: 1, forceRefresh: false)) == [
        .deliverIDToken(requestIds: [1], result: .failure(error: .notStarted))
      ])
    var s = Driver.signedOut()
    #expect(
      s.send(.idTokenRequested(requestId: 2, forceRefresh: false)) == [
        .deliverIDToken(requestIds: [2], result: .failure(error: .notSignedIn))
      ])
  }

  @Test(
    "backoff delays follow the policy", arguments: [(1, 60.0), (2, 120.0), (5, 960.0), (9, 960.0)])
  func delays(failures: Int, delay: Double) {
    #expect(Policy().backoffDelay(failures: failures, throttled: false) == delay)
  }
}
