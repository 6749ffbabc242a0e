import AuthFlowCore
import Testing

@Suite("Sign-out and cancel")
struct SignOutAndCancelTests {
  @Test(
    "sign-out from every signed-in state clears the session and cancels the timer",
    arguments: Start.signedIn)
  func signOutEverywhere(start: Start) {
    var d = Driver.reach(start)
    let user = d.state.user!
    let effects = d.send(.signOutTapped(discardAnonymousData: true))
    var expected: [Effect] = [.cancelTimer(timer: .tokenRefresh), .clearSession]
    if user.session.providers.contains("google.com") { expected.append(.signOutGoogle) }
    #expect(effects == expected)
    #expect(d.state == .signedOut)
    #expect(d.state.session == nil)
  }

  @Test("an anonymous user's sign-out needs consent to discard the data")
  func anonymousConsent() {
    for start in [Start.anonymous, .migrationRequired, .migrating, .awaitingProviderUpgrade] {
      var d = Driver.reach(start)
      let before = d.state
      #expect(
        d.send(.signOutTapped(discardAnonymousData: false)) == [
          .notify(notification: .error(error: .discardConsentRequired))
        ])
      #expect(d.state == before)
    }
  }

  @Test("a sign-out answers waiting token requests with NOT_SIGNED_IN")
  func waitersOnSignOut() {
    var d = Driver.permanent()
    d.send(.idTokenRequested(requestId: 3, forceRefresh: true))
    #expect(
      d.send(.signOutTapped(discardAnonymousData: false)).first
        == .deliverIDToken(
          requestIds: [3], result: .failure(error: .notSignedIn)))
  }

  @Test(
    "cancel returns each in-flight flow to where it started, and its late result is stale",
    arguments: [
      (Start.signingInAnonymously, "signedOut"), (.awaitingProviderSignIn, "signedOut"),
      (.awaitingProviderUpgrade, "anonymous"), (.awaitingProviderLink, "firebaseAuthenticated"),
      (.awaitingProviderReauthenticate, "firebaseAuthenticated"),
      (.googleAuthenticatedSignIn, "signedOut"), (.googleAuthenticatedUpgrade, "anonymous"),
      (.googleAuthenticatedLink, "firebaseAuthenticated"), (.migrationRequired, "anonymous"),
      (.migrating, "anonymous"), (.reauthenticationRequired, "firebaseAuthenticated"),
      (.signingInWithEmail, "signedOut"), (.creatingAccountSignedOut, "signedOut"),
      (.creatingAccountAnonymous, "anonymous"), (.sendingPasswordReset, "signedOut"),
    ])
  func cancel(start: Start, back: String) {
    var d = Driver.reach(start)
    let pending = d.machine.phase.pendingRequest
    let user = d.state.user
    #expect(d.send(.cancelTapped) == [])
    #expect(d.state.name == back)
    #expect(d.state.user == user)
    if let pending {
      let after = d.state
      #expect(d.respond(pending, .signedIn(session: Fixture.google(uid: "late"))) == [])
      #expect(d.state == after)
    }
  }

  @Test("cancel does not take back a deletion already sent")
  func cancelDelete() {
    var d = Driver.reach(.deletingAccount)
    #expect(d.send(.cancelTapped) == [])
    #expect(d.state.name == "deletingAccount")
  }

  @Test(
    "a result with the wrong request id changes nothing, in every state",
    arguments: Start.allCases)
  func staleEverywhere(start: Start) {
    var d = Driver.reach(start)
    let before = d.machine
    for result in [
      Reply.signedIn(session: Fixture.google()), .accountDeleted,
      .requestFailed(error: AuthError(code: "TOKEN_EXPIRED")), .providerCancelled,
    ] {
      #expect(d.respond(10_000, result) == [])
      #expect(d.machine == before)
    }
  }
}

@Suite("Reauthentication and account deletion")
struct ReauthAndDeleteTests {
  @Test("delete succeeds: signed out, storage cleared")
  func delete() {
    var d = Driver.permanent()
    #expect(d.send(.deleteAccountTapped) == [.deleteAccount(requestId: 4, idToken: "id-u1")])
    #expect(
      d.answer(.accountDeleted) == [
        .cancelTimer(timer: .tokenRefresh), .clearSession, .disconnectGoogle,
      ])
    #expect(d.state == .signedOut)
  }

  @Test("delete needing a recent login waits in reauthenticationRequired, then resumes")
  func resumesDelete() {
    var d = Driver.reauthenticationRequired()
    #expect(d.state.name == "reauthenticationRequired")
    #expect(
      d.send(.reauthenticateTapped()) == [
        .authorizeWithGoogle(requestId: 5, intent: .reauthenticate, loginHint: "mike@example.com")
      ])
    d.answer(.providerSucceeded(credential: Fixture.credential))
    let renewed = Fixture.google(token: "id-u2")
    #expect(
      d.answer(.signedIn(session: renewed)) == [
        .persistSession(session: renewed),
        .scheduleTimer(timer: .tokenRefresh, at: renewed.expiresAt + -300),
        .deleteAccount(requestId: 7, idToken: "id-u2"),
      ])
    #expect(d.state.name == "deletingAccount")
  }

  @Test("reauthentication as another user: userMismatch, the original session stays")
  func mismatch() {
    var d = Driver.reauthenticationRequired()
    let before = d.state
    d.send(.reauthenticateTapped())
    d.answer(.providerSucceeded(credential: Fixture.credential))
    #expect(
      d.answer(.signedIn(session: Fixture.google(uid: "intruder"))) == [
        .notify(notification: .userMismatch)
      ])
    #expect(d.state == before)
  }

  @Test("a plain reauthentication renews the session of the same user")
  func plain() {
    var d = Driver.reach(.awaitingProviderReauthenticate)
    d.answer(.providerSucceeded(credential: Fixture.credential))
    #expect(
      d.effects == [.signInWithIdp(requestId: 5, credential: Fixture.credential, linkTo: nil)])
    d.answer(.signedIn(session: Fixture.google(token: "id-u3")))
    #expect(d.state.name == "firebaseAuthenticated")
    #expect(d.state.session?.idToken == "id-u3")
  }

  @Test("delete failing transiently keeps the user signed in; sessionDead signs out")
  func deleteFailures() {
    var d = Driver.reach(.deletingAccount)
    d.answer(.requestFailed(error: AuthError(code: "NETWORK")))
    #expect(d.state.name == "firebaseAuthenticated")
    var e = Driver.reach(.deletingAccount)
    let dead = AuthError(code: "USER_DISABLED")
    #expect(
      e.answer(.requestFailed(error: dead)) == [
        .cancelTimer(timer: .tokenRefresh), .clearSession, .signOutGoogle,
        .notify(notification: .signedOutAfterError(error: dead)),
      ])
  }

  @Test("INVALID_ID_TOKEN forces one refresh, which decides")
  func invalidIDToken() {
    var d = Driver.reach(.deletingAccount)
    let error = AuthError(code: "INVALID_ID_TOKEN")
    #expect(
      d.answer(.requestFailed(error: error)) == [
        .notify(notification: .error(error: error)),
        .refreshToken(requestId: 5, refreshToken: "rt-id-u1"),
      ])
    #expect(d.state.name == "firebaseAuthenticated")
  }

  @Test("an anonymous user may delete their own account")
  func anonymousDelete() {
    var d = Driver.anonymous()
    #expect(d.send(.deleteAccountTapped) == [.deleteAccount(requestId: 3, idToken: "id-a1")])
    #expect(d.answer(.accountDeleted) == [.cancelTimer(timer: .tokenRefresh), .clearSession])
  }
}
