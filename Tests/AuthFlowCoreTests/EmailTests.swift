import AuthFlowCore
import Testing

@Suite("Email and password")
struct EmailTests {
  let emailUser = Session(
    uid: "user-e", anonymous: false, providers: ["password"], email: "a@example.com",
    idToken: "id-e", refreshToken: "rt-e", expiresAt: Fixture.t0 + 3600)

  @Test("sign in with email and password")
  func signIn() {
    var d = Driver.signedOut()
    #expect(
      d.send(.signInWithEmail(email: "a@example.com", password: "pw")) == [
        .signInWithPassword(requestId: 2, email: "a@example.com", password: "pw")
      ])
    #expect(d.state == .signingInWithEmail(request: 2, email: "a@example.com"))
    d.answer(.signedIn(session: emailUser))
    #expect(d.state.name == "firebaseAuthenticated")
  }

  @Test(
    "a wrong password reports the error and stays signed out",
    arguments: [
      "INVALID_PASSWORD", "EMAIL_NOT_FOUND", "INVALID_LOGIN_CREDENTIALS", "USER_DISABLED",
    ])
  func wrongPassword(code: String) {
    var d = Driver.reach(.signingInWithEmail)
    #expect(
      d.answer(.requestFailed(error: AuthError(code: code))) == [
        .notify(notification: .error(error: AuthError(code: code)))
      ])
    #expect(d.state == .signedOut)
  }

  @Test("create an account; for an anonymous user it links and keeps the uid")
  func createAccount() {
    var d = Driver.anonymous()
    #expect(
      d.send(.createAccount(email: "a@example.com", password: "pw")) == [
        .signUpWithPassword(requestId: 3, email: "a@example.com", password: "pw", linkTo: "id-a1")
      ])
    var linked = emailUser
    linked.uid = "anon-1"
    d.answer(.signedIn(session: linked))
    #expect(d.state.name == "firebaseAuthenticated")
    #expect(d.state.session?.uid == "anon-1")
  }

  @Test("EMAIL_EXISTS while linking keeps the anonymous user")
  func emailExists() {
    var d = Driver.reach(.creatingAccountAnonymous)
    d.answer(.requestFailed(error: AuthError(code: "EMAIL_EXISTS")))
    #expect(d.state == .anonymous(user: SignedInUser(session: Fixture.anonymous())))
  }

  @Test("password reset reports that the email is on its way")
  func reset() {
    var d = Driver.signedOut()
    #expect(
      d.send(.sendPasswordReset(email: "a@example.com")) == [
        .sendPasswordReset(requestId: 2, email: "a@example.com")
      ])
    #expect(
      d.answer(.passwordResetSent) == [
        .notify(notification: .passwordResetSent(email: "a@example.com"))
      ])
    #expect(d.state == .signedOut)
  }

  @Test("an anonymous user cannot sign in to another account without deciding about the data")
  func anonymousSignIn() {
    var d = Driver.anonymous()
    #expect(
      d.send(.signInWithEmail(email: "a@example.com", password: "pw")) == [
        .notify(notification: .error(error: AuthError(code: "ANONYMOUS_USER_SIGNED_IN")))
      ])
    #expect(d.state.name == "anonymous")
  }
}
