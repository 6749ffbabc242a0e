import AuthFlowCore
import Testing

@Suite("Google sign-in: fresh sign-in, upgrade, upgrade conflict, link, link conflict")
struct GoogleSignInTests {
  let linked = Session(
    uid: "anon-1", anonymous: false, providers: ["google.com"], email: "mike@example.com",
    idToken: "id-a2", refreshToken: "rt-a2", expiresAt: Fixture.t0 + 3600)

  @Test("upgrade: anonymous user, unused Google account: linked, same uid, now permanent")
  func case1() {
    var d = Driver.anonymous()
    #expect(
      d.send(.signInWithGoogleTapped) == [
        .authorizeWithGoogle(requestId: 3, intent: .link, loginHint: nil)
      ])
    #expect(d.state.name == "awaitingProvider")
    #expect(
      d.answer(.providerSucceeded(credential: Fixture.credential)) == [
        .signInWithIdp(requestId: 4, credential: Fixture.credential, linkTo: "id-a1")
      ])
    #expect(d.state.name == "googleAuthenticated")
    #expect(
      d.answer(.signedIn(session: linked)) == [
        .persistSession(session: linked),
        .scheduleTimer(timer: .tokenRefresh, at: linked.expiresAt + -300),
      ])
    #expect(d.state == .firebaseAuthenticated(user: SignedInUser(session: linked)))
  }

  @Test("upgrade: a link answer with another uid is refused, the anonymous user stays")
  func case1UidChange() {
    var d = Driver.reach(.googleAuthenticatedUpgrade)
    var other = linked
    other.uid = "someone-else"
    #expect(
      d.answer(.signedIn(session: other)) == [
        .notify(notification: .error(error: .unexpectedResponse))
      ])
    #expect(d.state == .anonymous(user: SignedInUser(session: Fixture.anonymous())))
  }

  @Test(
    "upgrade conflict (ask): the conflict stops in migrationRequired with the updated credential")
  func case2Ask() {
    var d = Driver.reach(.googleAuthenticatedUpgrade)
    let effects = d.answer(
      .credentialAlreadyInUse(credential: Fixture.conflictCredential, email: "mike@example.com"))
    #expect(effects == [])
    #expect(
      d.state
        == .migrationRequired(
          proof: .credential(Fixture.conflictCredential), email: "mike@example.com",
          user: SignedInUser(session: Fixture.anonymous())))
  }

  @Test("link: permanent user links an unused Google account")
  func case3() {
    var d = Driver.launched(
      stored: Session(
        uid: "user-9", anonymous: false, providers: ["password"], email: "a@example.com",
        idToken: "id-9", refreshToken: "rt-9", expiresAt: Fixture.t0 + 3600))
    #expect(
      d.send(.linkGoogleTapped) == [
        .authorizeWithGoogle(requestId: 2, intent: .link, loginHint: nil)
      ])
    #expect(
      d.answer(.providerSucceeded(credential: Fixture.credential)) == [
        .signInWithIdp(requestId: 3, credential: Fixture.credential, linkTo: "id-9")
      ])
    let after = Session(
      uid: "user-9", anonymous: false, providers: ["password", "google.com"],
      email: "a@example.com", idToken: "id-9b", refreshToken: "rt-9b", expiresAt: Fixture.t0 + 3600)
    #expect(
      d.answer(.signedIn(session: after)) == [
        .persistSession(session: after),
        .scheduleTimer(timer: .tokenRefresh, at: after.expiresAt + -300),
      ])
    #expect(d.state.session == after)
  }

  @Test("link conflict: permanent user, Google account owned by another: error, user unchanged")
  func case4() {
    var d = Driver.reach(.googleAuthenticatedLink)
    let before = d.state.user!
    #expect(
      d.answer(.credentialAlreadyInUse(credential: Fixture.conflictCredential, email: nil)) == [
        .notify(notification: .error(error: .credentialAlreadyInUse))
      ])
    #expect(d.state == .firebaseAuthenticated(user: before))
  }

  @Test("fresh sign-in: nobody signed in: sign in with Google")
  func case5() {
    var d = Driver.signedOut()
    #expect(
      d.send(.signInWithGoogleTapped) == [
        .authorizeWithGoogle(requestId: 2, intent: .signIn, loginHint: nil)
      ])
    #expect(
      d.answer(.providerSucceeded(credential: Fixture.credential)) == [
        .signInWithIdp(requestId: 3, credential: Fixture.credential, linkTo: nil)
      ])
    let s = Fixture.google()
    #expect(
      d.answer(.signedIn(session: s)) == [
        .persistSession(session: s), .scheduleTimer(timer: .tokenRefresh, at: s.expiresAt + -300),
      ])
    #expect(d.state.name == "firebaseAuthenticated")
  }

  @Test("a signed-in permanent user tapping sign-in with Google changes nothing")
  func permanentSignInIgnored() {
    var d = Driver.permanent()
    let before = d.state
    #expect(d.send(.signInWithGoogleTapped) == [])
    #expect(d.state == before)
  }

  @Test(
    "provider cancel and failure return to where the flow started",
    arguments: [
      (Start.awaitingProviderSignIn, "signedOut"), (.awaitingProviderUpgrade, "anonymous"),
      (.awaitingProviderLink, "firebaseAuthenticated"),
      (.awaitingProviderReauthenticate, "firebaseAuthenticated"),
    ])
  func providerCancelled(start: Start, back: String) {
    var d = Driver.reach(start)
    let user = d.state.user
    #expect(d.answer(.providerCancelled) == [])
    #expect(d.state.name == back)
    #expect(d.state.user == user)
    var f = Driver.reach(start)
    let error = AuthError(code: "access_denied")
    #expect(
      f.answer(.providerFailed(error: error)) == [.notify(notification: .error(error: error))])
    #expect(f.state.name == back)
  }

  @Test(
    "signInWithIdp failures keep the user where they were",
    arguments: ["NETWORK", "INVALID_IDP_RESPONSE", "TOO_MANY_ATTEMPTS_TRY_LATER", "HTTP_503"])
  func idpFailure(code: String) {
    var d = Driver.reach(.googleAuthenticatedUpgrade)
    let error = AuthError(code: code)
    #expect(d.answer(.requestFailed(error: error)) == [.notify(notification: .error(error: error))])
    #expect(d.state == .anonymous(user: SignedInUser(session: Fixture.anonymous())))
  }

  @Test("a link refused as CREDENTIAL_TOO_OLD waits for reauth, then resumes the link")
  func linkNeedsReauth() {
    var d = Driver.reach(.googleAuthenticatedLink)
    d.answer(.requestFailed(error: AuthError(code: "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")))
    #expect(d.state.name == "reauthenticationRequired")
    d.send(.reauthenticateTapped())
    d.answer(.providerSucceeded(credential: Fixture.credential))
    let renewed = Fixture.google(token: "id-u2")
    let effects = d.answer(.signedIn(session: renewed))
    #expect(
      effects.last
        == .signInWithIdp(
          requestId: d.nextID - 1, credential: Fixture.credential, linkTo: "id-u2"))
    #expect(d.state.name == "googleAuthenticated")
  }
}
