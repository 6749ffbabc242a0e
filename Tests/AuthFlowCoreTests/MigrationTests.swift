import AuthFlowCore
import Testing

@Suite("Upgrade conflict: migration of an anonymous user to an existing account")
struct MigrationTests {
  let existing = Fixture.google(uid: "user-7", token: "id-u7")

  @Test("merge: sign in first, then migrationReady, then delete after migrationFinished")
  func merge() {
    var d = Driver.migrationRequired()
    let r = d.nextID
    #expect(
      d.send(.migrationDecided(choice: .merge)) == [
        .signInWithIdp(requestId: r, credential: Fixture.conflictCredential, linkTo: nil)
      ])
    #expect(d.state.name == "migrating")
    var stored = existing
    let anonymous = Fixture.anonymous()
    stored.pendingCleanup = AnonymousCleanup(
      uid: "anon-1", idToken: "id-a1", dataMoved: false, refreshToken: anonymous.refreshToken,
      expiresAt: anonymous.expiresAt)
    #expect(
      d.answer(.signedIn(session: existing)) == [
        .persistSession(session: stored),
        .scheduleTimer(timer: .tokenRefresh, at: existing.expiresAt + -300),
        .notify(notification: .migrationReady(from: "anon-1", to: "user-7")),
      ])
    #expect(d.state.name == "firebaseAuthenticated")
    // Nothing is deleted until the app has moved the data.
    stored.pendingCleanup?.dataMoved = true
    let c = d.nextID
    #expect(
      d.send(.migrationFinished) == [
        .persistSession(session: stored), .deleteAccount(requestId: c, idToken: "id-a1"),
      ])
    stored.pendingCleanup = nil
    #expect(d.respond(c, .accountDeleted) == [.persistSession(session: stored)])
    #expect(d.state.session == stored)
  }

  @Test("switchWithoutData: the anonymous account is deleted at once after the sign-in")
  func switchWithoutData() {
    var d = Driver.migrationRequired()
    d.send(.migrationDecided(choice: .switchWithoutData))
    let c = d.nextID
    let effects = d.answer(.signedIn(session: existing))
    #expect(effects.last == .deleteAccount(requestId: c, idToken: "id-a1"))
    #expect(!effects.contains { if case .notify = $0 { true } else { false } })
  }

  @Test("stayAnonymous and cancel keep the anonymous user and delete nothing")
  func stay() {
    for intent in [Intent.migrationDecided(choice: .stayAnonymous), .cancelTapped] {
      var d = Driver.migrationRequired()
      #expect(d.send(intent) == [])
      #expect(d.state == .anonymous(user: SignedInUser(session: Fixture.anonymous())))
    }
  }

  @Test(
    "a failure mid-way returns to anonymous with nothing deleted",
    arguments: ["NETWORK", "USER_DISABLED", "INVALID_IDP_RESPONSE"])
  func failureMidWay(code: String) {
    var d = Driver.reach(.migrating)
    let effects = d.answer(.requestFailed(error: AuthError(code: code)))
    #expect(effects == [.notify(notification: .error(error: AuthError(code: code)))])
    #expect(d.state == .anonymous(user: SignedInUser(session: Fixture.anonymous())))
  }

  @Test(
    "policy decides without asking",
    arguments: [
      (MigrationPolicy.merge, "firebaseAuthenticated"),
      (.switchWithoutData, "firebaseAuthenticated"), (.stayAnonymous, "anonymous"),
    ])
  func policy(policy: MigrationPolicy, end: String) {
    var d = Driver.anonymous(policy: Policy(migration: policy))
    d.send(.signInWithGoogleTapped)
    d.answer(.providerSucceeded(credential: Fixture.credential))
    d.answer(.credentialAlreadyInUse(credential: Fixture.conflictCredential, email: nil))
    if policy != .stayAnonymous {
      #expect(d.state.name == "migrating")
      d.answer(.signedIn(session: existing))
    }
    #expect(d.state.name == end)
  }

  @Test("a relaunch before migrationFinished asks the app again; after it, resumes deletion")
  func relaunch() {
    var pending = existing
    pending.pendingCleanup = AnonymousCleanup(uid: "anon-1", idToken: "id-a1", dataMoved: false)
    let d = Driver.launched(stored: pending)
    #expect(
      d.effects == [
        .scheduleTimer(timer: .tokenRefresh, at: pending.expiresAt + -300),
        .notify(notification: .migrationReady(from: "anon-1", to: "user-7")),
      ])
    pending.pendingCleanup?.dataMoved = true
    let e = Driver.launched(stored: pending)
    #expect(e.effects.last == .deleteAccount(requestId: 2, idToken: "id-a1"))
  }

  @Test("a cleanup that fails transiently keeps its record; USER_NOT_FOUND drops it quietly")
  func cleanupFailures() {
    var moved = existing
    moved.pendingCleanup = AnonymousCleanup(uid: "anon-1", idToken: "id-a1", dataMoved: true)
    var d = Driver.launched(stored: moved)
    #expect(
      d.respond(2, .requestFailed(error: AuthError(code: "NETWORK"))) == [
        .notify(notification: .error(error: AuthError(code: "NETWORK")))
      ])
    #expect(d.state.session?.pendingCleanup != nil)
    var e = Driver.launched(stored: moved)
    var cleared = moved
    cleared.pendingCleanup = nil
    #expect(
      e.respond(2, .requestFailed(error: AuthError(code: "USER_NOT_FOUND"))) == [
        .persistSession(session: cleared)
      ])
  }
}
