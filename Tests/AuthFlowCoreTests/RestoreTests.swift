import AuthFlowCore
import Testing

@Suite("Restore at launch")
struct RestoreTests {
  @Test("launch reads the stored session before anything else")
  func launch() {
    var d = Driver()
    #expect(d.state == .starting)
    #expect(d.send(.appLaunched) == [.loadSession(requestId: 1)])
    #expect(d.state.name == "restoring")
    #expect(d.send(.appLaunched) == [])  // said once
  }

  @Test("nothing stored: signed out, and waiting token requests learn it")
  func nothingStored() {
    var d = Driver()
    d.send(.appLaunched)
    d.send(.idTokenRequested(requestId: 4, forceRefresh: false))
    #expect(
      d.answer(.sessionLoaded(session: nil)) == [
        .deliverIDToken(requestIds: [4], result: .failure(error: .notSignedIn))
      ])
    #expect(d.state == .signedOut)
  }

  @Test("a valid stored session resumes without being written again")
  func valid() {
    let d = Driver.launched(stored: Fixture.google())
    #expect(
      d.effects == [.scheduleTimer(timer: .tokenRefresh, at: Fixture.google().expiresAt + -300)])
    #expect(d.state == .firebaseAuthenticated(user: SignedInUser(session: Fixture.google())))
  }

  @Test("an anonymous stored session resumes as anonymous")
  func anonymous() {
    let d = Driver.launched(stored: Fixture.anonymous())
    #expect(d.state.name == "anonymous")
  }

  @Test("a corrupt store is cleared and reported; the app starts signed out")
  func corrupt() {
    var d = Driver()
    d.send(.appLaunched)
    #expect(
      d.answer(.requestFailed(error: .corruptSession)) == [
        .clearSession, .notify(notification: .error(error: .corruptSession)),
      ])
    #expect(d.state == .signedOut)
  }

  @Test("an unreadable store (locked keychain) is read again later, never signed out")
  func transient() {
    var d = Driver()
    d.send(.appLaunched)
    #expect(
      d.answer(.requestFailed(error: AuthError(code: "STORAGE_UNAVAILABLE"))) == [
        .scheduleTimer(timer: .restoreRetry, at: d.now + 60)
      ])
    #expect(d.state.name == "restoring")
    #expect(
      d.fire(.restoreRetry, after: 30) == [
        .scheduleTimer(timer: .restoreRetry, at: Fixture.t0 + 60)
      ])
    #expect(d.fire(.restoreRetry, after: 30) == [.loadSession(requestId: 2)])
    d.answer(.sessionLoaded(session: Fixture.anonymous()))
    #expect(d.state.name == "anonymous")
  }

  @Test("a stale loadSession answer changes nothing")
  func stale() {
    var d = Driver()
    d.send(.appLaunched)
    #expect(d.respond(99, .sessionLoaded(session: Fixture.anonymous())) == [])
    #expect(d.state.name == "restoring")
  }
}
