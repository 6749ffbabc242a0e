import AuthFlowCore
import AuthFlowHTTP
import AuthFlowRuntime
import Foundation
import Testing

/// An unsigned JWT (`alg: none`) with `payload` as its claims, as the Auth emulator accepts them.
func unsignedJWT(payload: String) -> String {
  Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "."
    + Base64URL.encode(Array(payload.utf8)) + "."
}

/// An unsigned Google-style ID token.
func fakeGoogleToken(sub: String, email: String) -> String {
  unsignedJWT(payload: #"{"sub":"\#(sub)","email":"\#(email)","email_verified":true}"#)
}

@Suite("Firebase over HTTP, against the stand-in", .serialized, .timeLimit(.minutes(2)))
struct FirebaseTests {
  let standIn: StandIn
  let api: FirebaseAPI

  init() throws {
    standIn = try StandIn()
    var api = standIn.api()
    // An allow-listed domain of the stand-in's project, as the console's list would have it.
    api.emailLinkContinueURL = URL(string: "https://authflow.example/finish-sign-in")
    self.api = api
  }

  func session(_ r: some SignsIn) throws -> Session {
    guard let s = r.session else {
      Issue.record("expected signedIn, got \(r)")
      throw AuthError(code: "TEST")
    }
    return s
  }

  @Test("FIREBASE_AUTH_EMULATOR_HOST selects the emulator layout")
  func layout() {
    #expect(FirebaseEndpoints.fromEnvironment([:]) == .production)
    let e = FirebaseEndpoints.fromEnvironment(["FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:9099"])
    #expect(
      e.identityToolkit.absoluteString == "http://127.0.0.1:9099/identitytoolkit.googleapis.com/v1")
    #expect(e.secureToken.absoluteString == "http://127.0.0.1:9099/securetoken.googleapis.com/v1")
  }

  @Test("anonymous sign-up, refresh, delete")
  func anonymous() async throws {
    let s = try session(await api.signUpAnonymously())
    #expect(s.anonymous && s.uid.count == 28 && s.providers.isEmpty)
    #expect(s.expiresAt.seconds > Date().timeIntervalSince1970 + 3500)
    let before = Date().timeIntervalSince1970
    guard case .tokenRefreshed(let t) = await api.refreshToken(s.refreshToken) else {
      Issue.record("refresh failed")
      return
    }
    let (id, rt) = (t.idToken, t.refreshToken)
    // The answer's "3600" became an instant when it arrived.
    #expect(abs(t.expiresAt.seconds - (before + 3600)) < 5 && !id.isEmpty && rt != s.refreshToken)
    #expect(await api.deleteAccount(idToken: id) == .accountDeleted)
    #expect(await api.refreshToken(rt) == .requestFailed(error: AuthError(code: "USER_NOT_FOUND")))
  }

  @Test("email: sign-up, weak password, exists, sign-in, wrong password, reset, link")
  func email() async throws {
    #expect(
      await api.signUpWithPassword(email: "w@example.com", password: "123", linkTo: nil)
        == .requestFailed(
          error: AuthError(
            code: "WEAK_PASSWORD", message: "Password should be at least 6 characters")))
    let s = try session(
      await api.signUpWithPassword(email: "ann@example.com", password: "secret-1", linkTo: nil))
    #expect(s.email == "ann@example.com" && s.providers == ["password"] && !s.anonymous)
    #expect(
      await api.signUpWithPassword(email: "ann@example.com", password: "secret-1", linkTo: nil)
        == .requestFailed(error: AuthError(code: "EMAIL_EXISTS")))
    #expect(
      try session(await api.signInWithPassword(email: "ann@example.com", password: "secret-1")).uid
        == s.uid)
    #expect(
      await api.signInWithPassword(email: "ann@example.com", password: "nope")
        == .requestFailed(error: AuthError(code: "INVALID_LOGIN_CREDENTIALS")))
    #expect(await api.sendPasswordReset(email: "ann@example.com") == .passwordResetSent)
    // Email-enumeration protection (production's default): an unknown address is answered
    // as a known one.
    #expect(await api.sendPasswordReset(email: "nobody@example.com") == .passwordResetSent)
    let anon = try session(await api.signUpAnonymously())
    let linked = try session(
      await api.signUpWithPassword(
        email: "bea@example.com", password: "secret-2", linkTo: anon.idToken))
    #expect(linked.uid == anon.uid && !linked.anonymous)
  }

  @Test("Google: link an anonymous user, then the conflict comes back as an updated credential")
  func idpLinkAndConflict() async throws {
    let google = IdPCredential.google(
      idToken: fakeGoogleToken(sub: "g-1", email: "mike@example.com"))
    let first = try session(await api.signUpAnonymously())
    let linked = try session(await api.signInWithIdp(credential: google, linkTo: first.idToken))
    #expect(linked.uid == first.uid && !linked.anonymous && linked.providers == ["google.com"])
    let second = try session(await api.signUpAnonymously())
    guard
      case .credentialAlreadyInUse(let updated, let email) = await api.signInWithIdp(
        credential:
          google, linkTo: second.idToken)
    else {
      Issue.record("expected the link conflict")
      return
    }
    #expect(email == "mike@example.com")
    #expect(updated.idToken == google.idToken)
    // The updated credential signs in to the account that owns it (the migration's sign-in).
    #expect(try session(await api.signInWithIdp(credential: updated, linkTo: nil)).uid == first.uid)
  }

  @Test("error messages: CODE, CODE : detail, and emulator hints")
  func parsing() {
    #expect(FirebaseError.parse("EMAIL_EXISTS") == AuthError(code: "EMAIL_EXISTS"))
    #expect(
      FirebaseError.parse("WEAK_PASSWORD : Password should be at least 6 characters")
        == AuthError(code: "WEAK_PASSWORD", message: "Password should be at least 6 characters"))
    #expect(
      FirebaseError.parse("INVALID_IDP_RESPONSE ((Missing sub))").code == "INVALID_IDP_RESPONSE")
    #expect(
      FirebaseError.parse("API key not valid. Please pass a valid API key.").code
        == "UNEXPECTED_RESPONSE")
  }

  @Test(
    "a first factor's challenge is read defensively: only TOTP and phone factors, never a session",
    arguments: [
      ("no mfaInfo", #"{"localId":"u","mfaPendingCredential":"p"}"#, nil),
      (
        "a number for the credential", #"{"localId":"u","mfaPendingCredential":42,"mfaInfo":[]}"#,
        nil
      ),
      (
        "only an email factor",
        #"{"localId":"u","mfaPendingCredential":"p","mfaInfo":[{"mfaEnrollmentId":"e","emailInfo":{}}]}"#,
        nil
      ),
      (
        "tokens beside the credential",
        #"{"localId":"u","idToken":"x","refreshToken":"r","expiresIn":"3600","mfaPendingCredential":"p","mfaInfo":[{"mfaEnrollmentId":"t","totpInfo":{}}]}"#,
        1
      ),
      (
        "TOTP, phone, an unknown kind and junk",
        #"{"localId":"u","email":"a@example.com","mfaPendingCredential":"p","mfaInfo":[{"mfaEnrollmentId":"t","totpInfo":{}},{"mfaEnrollmentId":"f","phoneInfo":"+*******1234"},{"mfaEnrollmentId":"x","emailInfo":{}},7,{"totpInfo":{}}]}"#,
        2
      ),
    ] as [(String, String, Int?)])
  func challenges(name: String, body: String, factors: Int?) async throws {
    try await standIn.fault(
      "signInWithPassword", ["status": 200, "body": body, "contentType": "application/json"])
    let answer = await api.signInWithPassword(email: "a@example.com", password: "pw")
    switch (answer, factors) {
    case (.secondFactorRequired(let c), let n?):
      #expect(c.factors.count == n, "\(name)")
      #expect(c.pendingCredential == "p")
    case (.requestFailed(let e), nil):
      #expect(e.code == "UNEXPECTED_RESPONSE", "\(name): \(e)")
    default:
      Issue.record("\(name): \(answer)")
    }
  }

  @Test(
    "a finalize answer without tokens, or with an ID token that has no exp, is UNEXPECTED_RESPONSE")
  func brokenFinalize() async throws {
    for body in [#"{}"#, #"{"idToken":"not-a-jwt","refreshToken":"r"}"#] {
      try await standIn.fault(
        "mfaSignIn:finalize", ["status": 200, "body": body, "contentType": "application/json"])
      let answer = await api.finalizeSecondFactorSignIn(
        pendingCredential: "p", factor: "t", sessionInfo: nil, verificationCode: "123456")
      guard case .requestFailed(let e) = answer else {
        Issue.record("\(body): \(answer)")
        continue
      }
      #expect(e.code == "UNEXPECTED_RESPONSE", "\(body): \(e)")
    }
  }

  @Test(
    "an enrolment's start and finalize answers are read defensively (TOTP and phone)",
    arguments: [
      ("no totpSessionInfo", #"{}"#, false),
      ("no key", #"{"totpSessionInfo":{"sessionInfo":"s"}}"#, false),
      (
        "a key that is not base32",
        #"{"totpSessionInfo":{"sharedSecretKey":"ab&c=1","sessionInfo":"s"}}"#, false
      ),
      ("no sessionInfo", #"{"totpSessionInfo":{"sharedSecretKey":"JBSWY3DP"}}"#, false),
      (
        "a code length of 0",
        #"{"totpSessionInfo":{"sharedSecretKey":"JBSWY3DP","sessionInfo":"s","verificationCodeLength":0}}"#,
        false
      ),
      (
        "a period of 1e300",
        #"{"totpSessionInfo":{"sharedSecretKey":"JBSWY3DP","sessionInfo":"s","periodSec":1e300}}"#,
        false
      ),
      (
        "the minimum", #"{"totpSessionInfo":{"sharedSecretKey":"JBSWY3DP","sessionInfo":"s"}}"#,
        true
      ),
    ] as [(String, String, Bool)])
  func totpEnrollmentAnswers(name: String, body: String, usable: Bool) async throws {
    try await standIn.fault(
      "mfaEnrollment:start", ["status": 200, "body": body, "contentType": "application/json"])
    switch await api.startTotpEnrollment(idToken: "t") {
    case .totpSecretIssued(let secret):
      #expect(usable, "\(name)")
      #expect(secret.codeLength == 6 && secret.periodSeconds == 30, "\(name): the defaults")
    case .requestFailed(let e):
      #expect(!usable, "\(name): \(e)")
      #expect(e.code == "UNEXPECTED_RESPONSE", "\(name): \(e)")
    }
    for finalize in [#"{}"#, #"{"idToken":"not-a-jwt","refreshToken":"r"}"#] {
      try await standIn.fault(
        "mfaEnrollment:finalize",
        ["status": 200, "body": finalize, "contentType": "application/json"])
      let answer = await api.finalizeTotpEnrollment(
        idToken: "t", sessionInfo: "s", verificationCode: "123456", displayName: "A")
      guard case .requestFailed(let e) = answer, e.code == "UNEXPECTED_RESPONSE" else {
        Issue.record("\(finalize): \(answer)")
        continue
      }
    }
    // A phone enrolment's start needs its `phoneSessionInfo.sessionInfo`; its finish, tokens.
    for start in [#"{}"#, #"{"phoneSessionInfo":{}}"#, #"{"phoneSessionInfo":{"sessionInfo":""}}"#]
    {
      try await standIn.fault(
        "mfaEnrollment:start", ["status": 200, "body": start, "contentType": "application/json"])
      let answer = await api.startPhoneEnrollment(
        idToken: "t", phoneNumber: "+15555550100", appVerification: "p")
      guard case .requestFailed(let e) = answer, e.code == "UNEXPECTED_RESPONSE" else {
        Issue.record("\(start): \(answer)")
        continue
      }
    }
    try await standIn.fault(
      "mfaEnrollment:finalize", ["status": 200, "body": "{}", "contentType": "application/json"])
    guard
      case .requestFailed(let noTokens) = await api.finalizePhoneEnrollment(
        idToken: "t", sessionInfo: "s", verificationCode: "123456", displayName: "Phone"),
      noTokens.code == "UNEXPECTED_RESPONSE"
    else {
      Issue.record("a phone enrolment answered without tokens must be refused")
      return
    }
    // A phone number's text needs its `sessionInfo`.
    try await standIn.fault(
      "sendVerificationCode", ["status": 200, "body": "{}", "contentType": "application/json"])
    guard
      case .requestFailed(let noSession) = await api.sendVerificationCode(
        phoneNumber: "+15555550100", appVerification: "p"),
      noSession.code == "UNEXPECTED_RESPONSE"
    else {
      Issue.record("a text answered without sessionInfo must be refused")
      return
    }
    // A withdrawal may answer with no tokens (the session's stay), never with half a pair.
    try await standIn.fault(
      "mfaEnrollment:withdraw", ["status": 200, "body": "{}", "contentType": "application/json"])
    #expect(
      await api.withdrawSecondFactor(idToken: "t", factor: "f") == .secondFactorWithdrawn(nil))
    try await standIn.fault(
      "mfaEnrollment:withdraw",
      ["status": 200, "body": #"{"idToken":"x"}"#, "contentType": "application/json"])
    guard case .requestFailed(let e) = await api.withdrawSecondFactor(idToken: "t", factor: "f"),
      e.code == "UNEXPECTED_RESPONSE"
    else {
      Issue.record("half a pair of tokens must be refused")
      return
    }
  }

  @Test(
    "hostile and broken responses become typed errors",
    arguments: [
      ("503 HTML page", 503, "<html><body>Service Unavailable</body></html>", "HTTP_503"),
      ("200 HTML page", 200, "<html>captive portal</html>", "UNEXPECTED_RESPONSE"),
      ("truncated JSON", 200, #"{"localId":"abc","idToken":"x","refre"#, "UNEXPECTED_RESPONSE"),
      (
        "wrong JSON types", 200,
        #"{"localId":42,"idToken":["x"],"refreshToken":{},"expiresIn":true}"#,
        "UNEXPECTED_RESPONSE"
      ),
      ("a JSON array", 200, "[1,2,3]", "UNEXPECTED_RESPONSE"),
      ("500 without a body", 500, "", "HTTP_500"),
      (
        "403 front-end sentence", 403,
        #"{"error":{"code":403,"message":"API key not valid. Please pass a valid API key.","errors":[{"reason":"keyInvalid"}]}}"#,
        "INVALID_API_KEY"
      ),
      (
        "throttled", 400,
        #"{"error":{"code":400,"message":"TOO_MANY_ATTEMPTS_TRY_LATER : Try again later."}}"#,
        "TOO_MANY_ATTEMPTS_TRY_LATER"
      ),
    ])
  func faults(name: String, status: Int, body: String, code: String) async throws {
    let type = body.hasPrefix("<") ? "text/html" : "application/json"
    try await standIn.fault("signUp", ["status": status, "body": body, "contentType": type])
    guard case .requestFailed(let error) = await api.signUpAnonymously() else {
      Issue.record("\(name): expected a failure")
      return
    }
    #expect(error.code == code, "\(name): \(error)")
  }

  @Test("a response slower than the timeout is TIMEOUT; a closed port is NETWORK")
  func slowAndRefused() async throws {
    try await standIn.fault("signUp", ["delay": 2.5])
    let impatient = standIn.api(timeout: 1)
    guard case .requestFailed(let e) = await impatient.signUpAnonymously() else {
      Issue.record("expected a timeout")
      return
    }
    #expect(e.code == "TIMEOUT")
    let nowhere = FirebaseAPI(apiKey: "k", endpoints: .emulator("127.0.0.1:1"), timeout: 2)
    guard case .requestFailed(let refused) = await nowhere.signUpAnonymously() else {
      Issue.record("expected a connection failure")
      return
    }
    #expect(refused.code == "NETWORK")
  }

  @Test("a refresh that hits a 503 keeps the user signed in; a disabled user is signed out")
  func runtimeOnFaults() async throws {
    let interpreter = HTTPInterpreter(
      firebase: api, consent: AppSuppliedConsent { _, _, _ in .providerCancelled })
    let runtime = AuthRuntime(interpreter: interpreter, store: InMemorySessionStore())
    await runtime.start()
    await runtime.settled()
    await runtime.send(.signInAnonymouslyTapped)
    await runtime.settled()
    let token = try await runtime.idToken()
    #expect(!token.isEmpty)
    try await standIn.fault(
      "token", ["status": 503, "body": "<html>down</html>", "contentType": "text/html"])
    await #expect(throws: TokenUnavailable(error: AuthError(code: "HTTP_503"))) {
      try await runtime.idToken(forceRefresh: true)
    }
    #expect(await runtime.state.name == "anonymous")
    let uid = try #require(await runtime.state.session?.uid)
    try await standIn.admin("disable", ["localId": uid])
    await #expect(throws: TokenUnavailable(error: AuthError(code: "USER_DISABLED"))) {
      try await runtime.idToken(forceRefresh: true)
    }
    #expect(await runtime.state == .signedOut)
  }

  /// A started runtime over the stand-in, signed out, and its notifications from before the
  /// start.
  func startedRuntime() async -> (AuthRuntime, AsyncStream<AuthNotification>) {
    let interpreter = HTTPInterpreter(
      firebase: api, consent: AppSuppliedConsent { _, _, _ in .providerCancelled })
    let runtime = AuthRuntime(interpreter: interpreter, store: InMemorySessionStore())
    let notes = await runtime.notifications()
    await runtime.start()
    await runtime.settled()
    return (runtime, notes)
  }

  /// A runtime over the stand-in with a new email account signed in, and its notifications
  /// from before the start.
  func runtimeWithAccount(_ email: String, password: String) async
    -> (AuthRuntime, AsyncStream<AuthNotification>)
  {
    let (runtime, notes) = await startedRuntime()
    await runtime.send(.createAccount(email: email, password: password))
    await runtime.settled()
    return (runtime, notes)
  }

  /// The unspent code of `requestType` the stand-in mailed to `email`.
  func mailedCode(_ requestType: String, to email: String) async throws -> String {
    let mail = try #require(
      try await standIn.oobCodes().first {
        $0["requestType"] as? String == requestType && $0["email"] as? String == email
      })
    return try #require(mail["oobCode"] as? String)
  }

  @Test(
    "a reload sees what an admin changed; claims come with a forced refresh; revoked sessions sign out at the reload"
  )
  func reloadAndClaims() async throws {
    let (runtime, _) = await runtimeWithAccount("reload@example.com", password: "secret-pw-1")
    let before = try #require(await runtime.state.session)
    #expect(before.providers == ["password"])
    #expect(!before.emailVerified)
    #expect(before.claims?.custom.isEmpty == true)

    try await standIn.admin(
      "admin",
      [
        "localId": before.uid, "emailVerified": true, "displayName": "Re Load",
        "customAttributes": ["role": "editor", "level": 3],
      ])
    await runtime.send(.reloadRequested)
    await runtime.settled()
    let reloaded = try #require(await runtime.state.session)
    #expect(await runtime.state.name == "firebaseAuthenticated")
    #expect(reloaded.emailVerified)
    #expect(reloaded.displayName == "Re Load")
    #expect(reloaded.idToken == before.idToken, "a reload reads; it mints nothing")
    // The admin's claims are in tokens minted after the change only.
    #expect(reloaded.claims?.custom["role"] == nil)
    _ = try await runtime.idToken(forceRefresh: true)
    let refreshed = try #require(await runtime.state.session)
    #expect(refreshed.claims?.custom["role"] == .string("editor"))
    #expect(refreshed.claims?.custom["level"] == .number(3))
    #expect(refreshed.claims?["email_verified"] == .bool(true))

    // Revoked on the server: the next reload signs out, with the reason.
    try await Task.sleep(for: .milliseconds(1100))  // Production's validSince is whole seconds.
    try await standIn.admin("admin", ["localId": before.uid, "revokeSessions": true])
    let notes = await runtime.notifications()
    await runtime.send(.reloadRequested)
    await runtime.settled()
    #expect(await runtime.state == .signedOut)
    var seen: AuthNotification?
    for await note in notes {
      seen = note
      break
    }
    guard case .signedOutAfterError(let error)? = seen else {
      Issue.record("expected signedOutAfterError, got \(String(describing: seen))")
      return
    }
    #expect(error.code == "TOKEN_EXPIRED")
  }

  @Test(
    "email verification: the mail's code verifies the session and the next token; a spent code is refused"
  )
  func emailVerification() async throws {
    let (runtime, notes) = await runtimeWithAccount("verify@example.com", password: "secret-pw-1")
    let before = try #require(await runtime.state.session)
    #expect(!before.emailVerified)
    await runtime.send(.sendEmailVerification)
    await runtime.settled()
    let code = try await mailedCode("VERIFY_EMAIL", to: "verify@example.com")
    await runtime.send(.applyActionCode(code: code))
    await runtime.settled()
    let after = try #require(await runtime.state.session)
    #expect(after.emailVerified)
    #expect(after.idToken != before.idToken, "a fresh ID token follows the verification")
    #expect(after.claims?["email_verified"] == .bool(true))
    // The code is spent: applying it again is refused, and nobody is signed out.
    await runtime.send(.applyActionCode(code: code))
    await runtime.settled()
    #expect(await runtime.state.session?.uid == before.uid)
    var seen: [AuthNotification] = []
    for await note in notes {
      seen.append(note)
      if case .error = note { break }
    }
    #expect(seen.contains(.verificationEmailSent(email: "verify@example.com")))
    #expect(seen.contains(.actionCodeApplied(email: "verify@example.com")))
    guard case .error(let error)? = seen.last else {
      Issue.record("expected the spent code's error, got \(seen)")
      return
    }
    #expect(error.code == "INVALID_OOB_CODE")
  }

  @Test(
    "a password reset finished in the app: the code checked, a weak password refused, the new one set and signed in with"
  )
  func passwordResetCompleted() async throws {
    let (runtime, notes) = await runtimeWithAccount("reset@example.com", password: "old-secret-1")
    await runtime.send(.signOutTapped(discardAnonymousData: false))
    await runtime.settled()
    await runtime.send(.sendPasswordReset(email: "reset@example.com"))
    await runtime.settled()
    let code = try await mailedCode("PASSWORD_RESET", to: "reset@example.com")
    await runtime.send(.checkActionCode(code: code))
    await runtime.settled()
    await runtime.send(.confirmPasswordReset(code: code, newPassword: "pw"))
    await runtime.settled()
    await runtime.send(.confirmPasswordReset(code: code, newPassword: "new-secret-2"))
    await runtime.settled()
    await runtime.send(.signInWithEmail(email: "reset@example.com", password: "old-secret-1"))
    await runtime.settled()
    #expect(await runtime.state == .signedOut, "the old password no longer works")
    await runtime.send(.signInWithEmail(email: "reset@example.com", password: "new-secret-2"))
    await runtime.settled()
    #expect(await runtime.state.session?.email == "reset@example.com")
    var seen: [AuthNotification] = []
    for await note in notes {
      seen.append(note)
      if seen.count == 5 { break }
    }
    #expect(seen.first == .passwordResetSent(email: "reset@example.com"))
    #expect(
      seen.contains(.actionCodeChecked(operation: "PASSWORD_RESET", email: "reset@example.com")))
    #expect(
      seen.contains { if case .error(let e) = $0 { e.code == "WEAK_PASSWORD" } else { false } })
    #expect(seen.contains(.passwordResetConfirmed(email: "reset@example.com")))
  }

  @Test(
    "custom tokens: a sign-in with its claims, the same user again with new claims, another user refused, a guest's own uid kept"
  )
  func customTokenSignIn() async throws {
    let (runtime, notes) = await startedRuntime()

    await runtime.send(
      .signInWithCustomToken(
        token: try await standIn.customToken(uid: "backend-42", claims: ["plan": "pro"])))
    await runtime.settled()
    let first = try #require(await runtime.state.session)
    #expect(await runtime.state.name == "firebaseAuthenticated")
    #expect(first.uid == "backend-42", "the uid comes from the ID token: the answer has no localId")
    #expect(!first.anonymous)
    #expect(first.claims?.custom["plan"] == .string("pro"))

    await runtime.send(
      .signInWithCustomToken(
        token: try await standIn.customToken(uid: "backend-42", claims: ["plan": "team"])))
    await runtime.settled()
    let second = try #require(await runtime.state.session)
    #expect(second.uid == "backend-42")
    #expect(second.idToken != first.idToken)
    #expect(second.claims?.custom["plan"] == .string("team"))
    // Session-scoped claims survive a refresh.
    _ = try await runtime.idToken(forceRefresh: true)
    #expect(await runtime.state.session?.claims?.custom["plan"] == .string("team"))

    await runtime.send(
      .signInWithCustomToken(token: try await standIn.customToken(uid: "backend-other")))
    await runtime.settled()
    #expect(await runtime.state.session?.uid == "backend-42", "another user's token is refused")
    await runtime.send(.signInWithCustomToken(token: "not-a-token"))
    await runtime.settled()
    #expect(await runtime.state.session?.uid == "backend-42", "a refused token signs nobody out")

    // A guest whose backend vouches for the guest's own uid keeps the account.
    await runtime.send(.signOutTapped(discardAnonymousData: false))
    await runtime.send(.signInAnonymouslyTapped)
    await runtime.settled()
    let guest = try #require(await runtime.state.session)
    #expect(guest.anonymous)
    await runtime.send(
      .signInWithCustomToken(token: try await standIn.customToken(uid: guest.uid)))
    await runtime.settled()
    let vouched = try #require(await runtime.state.session)
    #expect(vouched.uid == guest.uid)
    #expect(!vouched.anonymous)

    var seen: [AuthNotification] = []
    for await note in notes {
      seen.append(note)
      if seen.count == 2 { break }
    }
    #expect(seen.first == .userMismatch)
    guard case .error(let error)? = seen.last else {
      Issue.record("expected the refused token's error, got \(seen)")
      return
    }
    #expect(error.code == "INVALID_CUSTOM_TOKEN")
  }

  /// A raw Identity Toolkit call to the stand-in (for the second-factor endpoints, which have no
  /// client yet): the HTTP status and the JSON body.
  func identityToolkit(_ version: String, _ op: String, _ body: [String: Any]) async throws
    -> (Int, [String: Any])
  {
    let sep = version == "v2" && op.hasPrefix("mfa") ? "/" : ":"
    let url = URL(
      string: "http://\(standIn.hostPort)/identitytoolkit.googleapis.com/\(version)/accounts"
        + "\(sep)\(op)?key=test-key")!
    let data = try JSONSerialization.data(withJSONObject: body)
    let response = await URLSessionTransport().send(
      HTTPRequest(
        method: "POST", url: url, headers: ["Content-Type": "application/json"], body: data))
    guard case .success(let r) = response,
      let json = try JSONSerialization.jsonObject(with: r.body) as? [String: Any]
    else { throw AuthError(code: "TEST", message: op) }
    return (r.status, json)
  }

  @Test(
    "TOTP live: the runtime enrols an authenticator app (a wrong code keeps the secret), the test's own RFC 6238 code answers the challenge at a password's sign-in and at an email link's, and a withdrawal removes it"
  )
  func totpLive() async throws {
    let email = "totp@example.com"
    let (runtime, _) = await runtimeWithAccount(email, password: "secret-pw-1")
    let session = try #require(await runtime.state.session)
    // No verified email: Firebase refuses, nothing changes.
    await runtime.send(.enrollTotp)
    await runtime.settled()
    #expect(await runtime.state.kind == .firebaseAuthenticated)
    try await standIn.admin("admin", ["localId": session.uid, "emailVerified": true])
    await runtime.send(.enrollTotp)
    await runtime.settled()
    guard case .enrollingTotp(let enrollment, _) = await runtime.state else {
      Issue.record("expected a secret to enrol, got \(await runtime.state)")
      return
    }
    let secret = enrollment.secret.sharedSecretKey
    #expect(enrollment.secret.hashingAlgorithm == "SHA1" && enrollment.secret.codeLength == 6)
    #expect(
      enrollment.secret.uri(account: email, issuer: "AuthFlow Tests").hasPrefix(
        "otpauth://totp/AuthFlow%20Tests:totp%40example.com?secret=\(secret)&"))
    #expect(!"\(await runtime.state)".contains(secret), "the secret is never printed")
    let code = try #require(TOTP.code(base32Secret: secret, at: Date().timeIntervalSince1970))
    let wrong = String(format: "%06d", (Int(code)! + 500_000) % 1_000_000)
    await runtime.send(.submitTotpEnrollmentCode(verificationCode: wrong, displayName: nil))
    await runtime.settled()
    guard case .enrollingTotp(let kept, _) = await runtime.state else {
      Issue.record("a wrong code must keep the secret, got \(await runtime.state)")
      return
    }
    #expect(kept.secret == enrollment.secret)
    await runtime.send(
      .submitTotpEnrollmentCode(verificationCode: code, displayName: "Authenticator"))
    await runtime.settled()
    let renewed = try #require(await runtime.state.session)
    #expect(await runtime.state.kind == .firebaseAuthenticated)
    #expect(renewed.uid == session.uid && renewed.refreshToken != session.refreshToken)
    #expect(secondFactor(of: renewed) == "totp", "the new token names the enrolled factor")
    #expect(renewed.secondFactors.map(\.kind) == [.totp], "the reload after lists the factor")
    #expect(renewed.secondFactors.first?.displayName == "Authenticator")

    // The password alone now gets a challenge, through the whole runtime: no session until a
    // code; a wrong code keeps the challenge; the next code finishes the sign-in.
    let (device, notes) = await startedRuntime()
    await device.send(.signInWithEmail(email: email, password: "secret-pw-1"))
    await device.settled()
    guard case .secondFactorRequired(let step, nil) = await device.state else {
      Issue.record("expected a second factor, got \(await device.state)")
      return
    }
    let factor = try #require(step.challenge.factors.first)
    #expect(factor.kind == .totp && step.challenge.factors.count == 1)
    let later = try #require(TOTP.code(base32Secret: secret, at: Date().timeIntervalSince1970))
    let bad = String(format: "%06d", (Int(later)! + 500_000) % 1_000_000)
    await device.send(.submitSecondFactorCode(factor: factor.id, verificationCode: bad))
    await device.settled()
    #expect(await device.state.kind == .secondFactorRequired, "a wrong code keeps the challenge")
    await device.send(.submitSecondFactorCode(factor: factor.id, verificationCode: later))
    await device.settled()
    let signedIn = try #require(await device.state.session)
    #expect(await device.state.kind == .firebaseAuthenticated)
    #expect(signedIn.uid == session.uid)
    #expect(signedIn.email == email && signedIn.providers == ["password"])
    // No `expiresIn` in the finalize answer: the ID token's own `exp` is the expiry.
    #expect(signedIn.expiresAt.seconds > Date().timeIntervalSince1970 + 3000)
    #expect(secondFactor(of: signedIn) == "totp")
    #expect(signedIn.secondFactors.map(\.id) == [factor.id], "the sign-in lists the factor")

    // An email link is a first factor too: the link opens the same challenge, the app's code
    // finishes it (the link's answer carries `mfaPendingCredential`, not tokens).
    let (linked, _) = await startedRuntime()
    await linked.send(.sendSignInLink(email: email))
    await linked.settled()
    let link = try await mailedCode("EMAIL_SIGNIN", to: email)
    await linked.send(.signInWithEmailLink(code: link, email: nil))
    await linked.settled()
    guard case .secondFactorRequired(let linkStep, nil) = await linked.state else {
      Issue.record("expected the link to meet the second factor, got \(await linked.state)")
      return
    }
    #expect(linkStep.challenge.factors.map(\.id) == [factor.id])
    let linkCode = try #require(TOTP.code(base32Secret: secret, at: Date().timeIntervalSince1970))
    await linked.send(.submitSecondFactorCode(factor: factor.id, verificationCode: linkCode))
    await linked.settled()
    #expect(await linked.state.kind == .firebaseAuthenticated)
    #expect(await linked.state.session?.uid == session.uid)

    // Withdrawn (the sign-in is recent): the reload after lists none, and the password alone
    // signs in again.
    await device.send(.withdrawSecondFactor(factor: factor.id))
    await device.settled()
    #expect(await device.state.kind == .firebaseAuthenticated)
    #expect(await device.state.session?.secondFactors == [])
    let (third, _) = await startedRuntime()
    await third.send(.signInWithEmail(email: email, password: "secret-pw-1"))
    await third.settled()
    #expect(await third.state.kind == .firebaseAuthenticated, "no second factor any more")
    for await note in notes {
      if case .error(let e) = note {
        #expect(e.code == "INVALID_CODE")
        break
      }
    }
  }

  @Test(
    "phone numbers live: a text needs the app's proof; the code signs in; a guest keeps their account when the number is another's and is upgraded in place with their own"
  )
  func phoneSignInLive() async throws {
    let (device, _) = await startedRuntime()
    let number = "+15555550177"
    await device.send(.sendPhoneCode(phoneNumber: number, appVerification: nil))
    await device.settled()
    #expect(await device.state == .signedOut, "no proof, no text")
    await device.send(.sendPhoneCode(phoneNumber: number, appVerification: "proof"))
    await device.settled()
    guard case .awaitingPhoneCode(let flow, nil) = await device.state, let info = flow.sessionInfo
    else {
      Issue.record("expected a texted code to wait for, got \(await device.state)")
      return
    }
    let code = try await textedCode(info)
    await device.send(.submitPhoneCode(verificationCode: code == "000000" ? "111111" : "000000"))
    await device.settled()
    guard case .awaitingPhoneCode = await device.state else {
      Issue.record("a wrong code ended the wait: \(await device.state)")
      return
    }
    await device.send(.submitPhoneCode(verificationCode: code))
    await device.settled()
    let owner = try #require(await device.state.session)
    #expect(owner.providers.contains("phone") && !owner.anonymous)

    // A guest on another device: the owner's number offers the owner (the guest stays one
    // here); a number of their own upgrades them in place.
    let (guest, guestNotes) = await startedRuntime()
    await guest.send(.signInAnonymouslyTapped)
    await guest.settled()
    let anon = try #require(await guest.state.session)
    func textAndType(_ n: String) async throws {
      await guest.send(.sendPhoneCode(phoneNumber: n, appVerification: "proof"))
      await guest.settled()
      guard case .awaitingPhoneCode(let f, _) = await guest.state, let i = f.sessionInfo else {
        Issue.record("expected a texted code for \(n), got \(await guest.state)")
        return
      }
      await guest.send(.submitPhoneCode(verificationCode: try await textedCode(i)))
      await guest.settled()
    }
    try await textAndType(number)
    // The owner's number: Firebase's temporary proof offers the owner, the guest kept.
    guard case .migrationRequired(.phoneNumber(let proof), _, let kept) = await guest.state else {
      Issue.record("expected the owner offered, got \(await guest.state)")
      return
    }
    #expect(proof.phoneNumber == number && !proof.temporaryProof.isEmpty)
    #expect(kept.session == anon, "the guest is kept as they were")
    await guest.send(.migrationDecided(choice: .stayAnonymous))
    await guest.settled()
    #expect(await guest.state.session == anon, "staying a guest changes nothing")
    _ = guestNotes
    try await textAndType("+15555550188")
    let upgraded = try #require(await guest.state.session)
    #expect(upgraded.uid == anon.uid && !upgraded.anonymous && upgraded.providers == ["phone"])
  }

  @Test(
    "SMS second factor live: a text needs the app's proof; the texted code finishes the sign-in; an ended challenge goes back to signed out"
  )
  func smsSecondFactorLive() async throws {
    let email = "sms-mfa@example.com"
    let (runtime, _) = await runtimeWithAccount(email, password: "secret-pw-1")
    let session = try #require(await runtime.state.session)
    try await standIn.admin("admin", ["localId": session.uid, "emailVerified": true])
    // The enrolment, through the machine: without the app's proof Firebase texts nothing.
    await runtime.send(.enrollPhone(phoneNumber: "+15555550123", appVerification: nil))
    await runtime.settled()
    #expect(await runtime.state.name == "firebaseAuthenticated")
    // iOS's proof (a receipt and its push's secret) goes in `phoneEnrollmentInfo`.
    let (receipt, _) = try await api.verifyIosClient(
      appToken: "fedcba9876543210fedcba9876543210", isSandbox: false
    ).get()
    let proof = try #require(
      AppVerification.iosApp(fromPush: try await iosPush(receipt: receipt), receipt: receipt))
    await runtime.send(.enrollPhone(phoneNumber: "+15555550123", appVerification: proof))
    await runtime.settled()
    guard case .enrollingPhone(let enrolment, _) = await runtime.state else {
      Issue.record("expected a texted code to wait for, got \(await runtime.state)")
      return
    }
    // A wrong code keeps the enrolment; the texted one enrols the number.
    let texted = try await textedCode(enrolment.sessionInfo)
    await runtime.send(
      .submitPhoneEnrollmentCode(
        verificationCode: texted == "000000" ? "111111" : "000000", displayName: nil))
    await runtime.settled()
    guard case .enrollingPhone = await runtime.state else {
      Issue.record("a wrong code ended the enrolment: \(await runtime.state)")
      return
    }
    await runtime.send(.submitPhoneEnrollmentCode(verificationCode: texted, displayName: nil))
    await runtime.settled()
    let enrolledSession = try #require(await runtime.state.session)
    #expect(await runtime.state.name == "firebaseAuthenticated")
    #expect(enrolledSession.idToken != session.idToken, "the enrolment's new tokens are taken")
    #expect(enrolledSession.secondFactors.map(\.kind) == [.phone])
    #expect(enrolledSession.secondFactors.first?.displayName == "Phone")

    let (device, _) = await startedRuntime()
    await device.send(.signInWithEmail(email: email, password: "secret-pw-1"))
    await device.settled()
    guard case .secondFactorRequired(let step, nil) = await device.state else {
      Issue.record("expected a second factor, got \(await device.state)")
      return
    }
    let phone = try #require(step.challenge.factors.first)
    #expect(phone.kind == .phone && phone.phoneHint?.hasSuffix("0123") == true)
    #expect(phone.phoneHint?.contains("555") == false, "the number is hidden")
    // Without the app's proof, Firebase texts nothing; the challenge stays.
    await device.send(.sendSecondFactorCode(factor: phone.id, appVerification: nil))
    await device.settled()
    guard case .secondFactorRequired(let still, nil) = await device.state else {
      Issue.record("expected the challenge to stay, got \(await device.state)")
      return
    }
    #expect(still.codeSent == nil)
    // A reCAPTCHA Enterprise token goes in `phoneSignInInfo` with its client type and version.
    await device.send(
      .sendSecondFactorCode(
        factor: phone.id, appVerification: .recaptchaEnterprise(token: "enterprise-proof")))
    await device.settled()
    guard case .secondFactorRequired(let sent, nil) = await device.state,
      let info = sent.codeSent?.sessionInfo
    else {
      Issue.record("expected a texted code, got \(await device.state)")
      return
    }
    await device.send(
      .submitSecondFactorCode(factor: phone.id, verificationCode: try await textedCode(info)))
    await device.settled()
    #expect(await device.state.session?.uid == session.uid)
    #expect(secondFactor(of: try #require(await device.state.session)) == "phone")

    // The same pending credential cannot finish a second sign-in: the server ends it, and the
    // machine of another device that replays it goes back to signed out.
    let other = AuthRuntime(
      interpreter: HTTPInterpreter(
        firebase: api, consent: AppSuppliedConsent { _, _, _ in .providerCancelled }),
      store: InMemorySessionStore())
    await other.start()
    await other.settled()
    await other.send(.signInWithEmail(email: email, password: "secret-pw-1"))
    await other.settled()
    guard case .secondFactorRequired(let otherStep, nil) = await other.state else {
      Issue.record("expected a second factor, got \(await other.state)")
      return
    }
    let spent = try await identityToolkit(
      "v2", "mfaSignIn:start",
      [
        "mfaPendingCredential": step.challenge.pendingCredential, "mfaEnrollmentId": phone.id,
        "phoneSignInInfo": ["recaptchaToken": "proof"],
      ])
    #expect(spent.0 == 400, "a finished challenge's credential is spent")
    try await standIn.admin("admin", ["localId": session.uid, "disabled": true])
    await other.send(
      .sendSecondFactorCode(factor: otherStep.challenge.factors[0].id, appVerification: "p"))
    await other.settled()
    #expect(await other.state == .signedOut, "a disabled account ends the challenge")
  }

  /// The second factor the session's ID token says was used (`firebase.sign_in_second_factor`).
  func secondFactor(of session: Session) -> String? {
    guard case .object(let firebase)? = session.claims?.all["firebase"],
      case .string(let factor)? = firebase["sign_in_second_factor"]
    else { return nil }
    return factor
  }

  /// The code the stand-in texted for `sessionInfo`.
  func textedCode(_ sessionInfo: String) async throws -> String {
    let codes = try await standIn.list("verificationCodes")
    let text = try #require(codes.first { $0["sessionInfo"] as? String == sessionInfo })
    return try #require(text["code"] as? String)
  }

  /// The silent push the stand-in sent for `receipt` (the push an app would get).
  func iosPush(receipt: String) async throws -> [AnyHashable: Any] {
    let pushes = try await standIn.list("iosPushes")
    let push = try #require(pushes.first { $0["receipt"] as? String == receipt })
    // As APNs delivers it: Firebase's entry among the app's own keys.
    return [
      "aps": ["content-available": 1],
      "com.google.firebase.auth": ["receipt": receipt, "secret": push["secret"] ?? ""],
    ]
  }

  @Test(
    "iOS app verification live: verifyIosClient's receipt and the push's secret text a code and sign in; a secret that is not the push's is refused"
  )
  func iosAppVerificationLive() async throws {
    let (receipt, timeout) = try await standIn.api().verifyIosClient(
      appToken: "0123456789abcdef0123456789abcdef", isSandbox: true
    ).get()
    #expect(timeout > .zero && timeout <= .seconds(60))
    let payload = try await iosPush(receipt: receipt)
    #expect(AppVerification.iosApp(fromPush: payload, receipt: "another receipt") == nil)
    let proof = try #require(AppVerification.iosApp(fromPush: payload, receipt: receipt))

    let (device, notes) = await startedRuntime()
    let number = "+15555550178"
    await device.send(
      .sendPhoneCode(phoneNumber: number, appVerification: .iosApp(receipt: receipt, secret: "x")))
    await device.settled()
    #expect(await device.state == .signedOut, "a secret that is not the push's texts nothing")
    var refused: AuthError?
    for await note in notes {
      if case .error(let e) = note {
        refused = e
        break
      }
    }
    #expect(refused?.code == "INVALID_APP_CREDENTIAL")
    await device.send(.sendPhoneCode(phoneNumber: number, appVerification: proof))
    await device.settled()
    guard case .awaitingPhoneCode(let flow, nil) = await device.state, let info = flow.sessionInfo
    else {
      Issue.record("expected a texted code to wait for, got \(await device.state)")
      return
    }
    await device.send(.submitPhoneCode(verificationCode: try await textedCode(info)))
    await device.settled()
    #expect(await device.state.session?.providers.contains("phone") == true)
  }

  @Test(
    "a password changed on another device ends this device's session in both processes sharing its store"
  )
  func passwordChangedElsewhere() async throws {
    let email = "two-devices@example.com"
    let (otherDevice, _) = await runtimeWithAccount(email, password: "secret-pw-1")
    // This device: an app and its widget, two runtimes on one session file.
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("revoked-\(UUID())")
      .path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    func runtime() -> AuthRuntime {
      AuthRuntime(
        interpreter: HTTPInterpreter(
          firebase: api, consent: AppSuppliedConsent { _, _, _ in .providerCancelled }),
        store: FileSessionStore(path: dir + "/session.json"))
    }
    let app = runtime()
    let appNotes = await app.notifications()
    await app.start()
    await app.send(.signInWithEmail(email: email, password: "secret-pw-1"))
    await app.settled()
    let uid = try #require(await app.state.session?.uid)
    let widget = runtime()
    let widgetNotes = await widget.notifications()
    await widget.start()
    #expect(await widget.state.session?.uid == uid, "the widget reads the app's session")

    // The other device changes the password: Firebase ends every other session of the account.
    try await Task.sleep(for: .milliseconds(1100))  // Production's validSince is whole seconds.
    await otherDevice.send(.changePassword(newPassword: "secret-pw-2"))
    await otherDevice.settled()
    #expect(await otherDevice.state.session?.uid == uid, "the changing device keeps its session")

    // The app's next refresh is refused for good: signed out with the reason, store cleared.
    do {
      _ = try await app.idToken(forceRefresh: true)
      Issue.record("a revoked session handed out a token")
    } catch let e as TokenUnavailable {
      #expect(e.error.code == "TOKEN_EXPIRED")
    }
    await app.settled()  // The waiter is answered before the store is cleared.
    #expect(await app.state == .signedOut)
    #expect(try await FileSessionStore(path: dir + "/session.json").load() == nil)
    // The widget made no request: it follows the cleared store.
    let deadline = Date().addingTimeInterval(5)
    while await widget.state != .signedOut, Date() < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(await widget.state == .signedOut)
    await #expect(throws: TokenUnavailable.self) { try await widget.idToken() }
    /// Whether `wanted` comes within `seconds`.
    func comes(
      _ wanted: AuthNotification, in notes: AsyncStream<AuthNotification>, seconds: Double = 5
    ) async -> Bool {
      await withTaskGroup(of: Bool.self) { group in
        group.addTask {
          for await note in notes where note == wanted { return true }
          return false
        }
        group.addTask {
          try? await Task.sleep(for: .seconds(seconds))
          return false
        }
        let answer = await group.next() ?? false
        group.cancelAll()
        return answer
      }
    }
    #expect(await comes(.sessionExpired, in: appNotes))
    #expect(await comes(.signedOutElsewhere, in: widgetNotes))
    #expect(
      !(await comes(.sessionExpired, in: widgetNotes, seconds: 0.5)), "the widget sent no refresh")
    // The new password signs this device in again.
    await app.send(.signInWithEmail(email: email, password: "secret-pw-2"))
    await app.settled()
    #expect(await app.state.session?.uid == uid)
  }

  @Test(
    "a password change stores the new tokens and ends the old ones; an old login waits for a reauthentication with the password, then the change resumes"
  )
  func passwordChange() async throws {
    let (runtime, notes) = await runtimeWithAccount("change@example.com", password: "secret-pw-1")
    let before = try #require(await runtime.state.session)
    await runtime.send(.changePassword(newPassword: "secret-pw-2"))
    await runtime.settled()
    let after = try #require(await runtime.state.session)
    #expect(await runtime.state.name == "firebaseAuthenticated")
    #expect(after.uid == before.uid)
    #expect(after.refreshToken != before.refreshToken, "Firebase answers with new tokens")
    // The old session is over on the server: its refresh token is refused for good.
    guard case .requestFailed(let old) = await api.refreshToken(before.refreshToken) else {
      Issue.record("the old refresh token still works")
      return
    }
    #expect(old.kind == .sessionDead)

    // Ten minutes later the login is too old for a change: prove it with the password.
    try await standIn.admin("clock", ["advance": 600])
    await runtime.send(.changePassword(newPassword: "secret-pw-3"))
    await runtime.settled()
    #expect(await runtime.state.name == "reauthenticationRequired")
    await runtime.send(.reauthenticateWithPassword(password: "wrong-password"))
    await runtime.settled()
    #expect(await runtime.state.name == "reauthenticationRequired", "a wrong password keeps it")
    await runtime.send(.reauthenticateWithPassword(password: "secret-pw-2"))
    await runtime.settled()
    #expect(await runtime.state.name == "firebaseAuthenticated")
    await runtime.send(.signOutTapped(discardAnonymousData: false))
    await runtime.send(.signInWithEmail(email: "change@example.com", password: "secret-pw-3"))
    await runtime.settled()
    #expect(await runtime.state.session?.uid == before.uid, "the resumed change took effect")

    var seen: [AuthNotification] = []
    for await note in notes {
      seen.append(note)
      if seen.count == 3 { break }
    }
    #expect(seen.first == .passwordChanged)
    #expect(
      seen.contains {
        if case .error(let e) = $0 { e.code == "INVALID_LOGIN_CREDENTIALS" } else { false }
      })
    #expect(seen.last == .passwordChanged)
  }

  @Test(
    "email-link sign-in: the link's address is kept and used, a spent link is refused, a guest is upgraded in place, another account's address is refused and the guest stays; no continue URL, or one outside the allow-list, sends nothing"
  )
  func emailLinkSignIn() async throws {
    var bare = standIn.api()
    guard case .requestFailed(let missing) = await bare.sendSignInLink(email: "a@example.com")
    else {
      Issue.record("a link with no continue URL was sent")
      return
    }
    #expect(missing.code == "MISSING_CONTINUE_URI")
    bare.emailLinkContinueURL = URL(string: "https://elsewhere.invalid/finish")
    guard case .requestFailed(let foreign) = await bare.sendSignInLink(email: "a@example.com")
    else {
      Issue.record("a continue URL outside the allow-list was accepted")
      return
    }
    #expect(foreign.code == "UNAUTHORIZED_DOMAIN")

    let (runtime, notes) = await startedRuntime()
    await runtime.send(.sendSignInLink(email: "link@example.com"))
    await runtime.settled()
    let code = try await mailedCode("EMAIL_SIGNIN", to: "link@example.com")
    await runtime.send(.signInWithEmailLink(code: code, email: nil))
    await runtime.settled()
    let linked = try #require(await runtime.state.session)
    #expect(await runtime.state.name == "firebaseAuthenticated")
    #expect(linked.email == "link@example.com")
    #expect(linked.emailVerified, "opening the link proves the address")
    #expect(linked.providers == ["password"])

    // The address went with the link; the spent code is refused when the address is given.
    await runtime.send(.signOutTapped(discardAnonymousData: false))
    await runtime.send(.signInWithEmailLink(code: code, email: nil))
    await runtime.send(.signInWithEmailLink(code: code, email: "link@example.com"))
    await runtime.settled()
    #expect(await runtime.state.name == "signedOut")

    // A guest: another account's address is refused and the guest stays; a free one upgrades.
    await runtime.send(.signInAnonymouslyTapped)
    await runtime.settled()
    let guest = try #require(await runtime.state.session)
    await runtime.send(.sendSignInLink(email: "link@example.com"))
    await runtime.settled()
    let taken = try await mailedCode("EMAIL_SIGNIN", to: "link@example.com")
    await runtime.send(.signInWithEmailLink(code: taken, email: nil))
    await runtime.settled()
    #expect(await runtime.state.session == guest, "the guest and the session stay")
    await runtime.send(.sendSignInLink(email: "guest@example.com"))
    await runtime.settled()
    let free = try await mailedCode("EMAIL_SIGNIN", to: "guest@example.com")
    await runtime.send(.signInWithEmailLink(code: free, email: nil))
    await runtime.settled()
    let upgraded = try #require(await runtime.state.session)
    #expect(upgraded.uid == guest.uid, "upgraded in place")
    #expect(!upgraded.anonymous)
    #expect(upgraded.email == "guest@example.com")

    var seen: [AuthNotification] = []
    for await note in notes {
      seen.append(note)
      if seen.count == 6 { break }
    }
    #expect(seen[0] == .signInLinkSent(email: "link@example.com"))
    #expect(seen[1] == .emailNeededForLink)
    guard case .error(let spent) = seen[2], case .error(let exists) = seen[4] else {
      Issue.record("expected the spent link's and the taken address's errors, got \(seen)")
      return
    }
    #expect(spent.code == "INVALID_OOB_CODE")
    #expect(seen[3] == .signInLinkSent(email: "link@example.com"))
    #expect(exists.code == "EMAIL_EXISTS")
    #expect(seen[5] == .signInLinkSent(email: "guest@example.com"))
  }

  @Test(
    "an email change is verified first: another account's address is refused, the new address gets the link, the session keeps the old email until the link is applied, which ends the account's sessions; an old login waits for a reauthentication"
  )
  func emailChange() async throws {
    _ = await runtimeWithAccount("taken@example.com", password: "secret-pw-1")
    let (runtime, notes) = await runtimeWithAccount("before@example.com", password: "secret-pw-1")
    let before = try #require(await runtime.state.session)
    await runtime.send(.changeEmail(newEmail: "taken@example.com"))
    await runtime.settled()
    #expect(await runtime.state.session == before, "a refused change changes nothing")

    await runtime.send(.changeEmail(newEmail: "after@example.com"))
    await runtime.settled()
    #expect(await runtime.state.session?.email == "before@example.com", "verified first")
    let mail = try #require(
      try await standIn.oobCodes().first {
        $0["requestType"] as? String == "VERIFY_AND_CHANGE_EMAIL"
          && $0["newEmail"] as? String == "after@example.com"
      })
    let code = try #require(mail["oobCode"] as? String)
    await runtime.send(.applyActionCode(code: code))
    await runtime.settled()
    #expect(await runtime.state.session?.email == "before@example.com", "not this session's yet")
    // The stand-in ends the account's sessions when the change is applied, as production may:
    // the reload finds out and signs out; the new address signs in, verified.
    await runtime.send(.reloadRequested)
    await runtime.settled()
    #expect(await runtime.state.name == "signedOut")
    await runtime.send(.signInWithEmail(email: "after@example.com", password: "secret-pw-1"))
    await runtime.settled()
    let changed = try #require(await runtime.state.session)
    #expect(changed.uid == before.uid)
    #expect(changed.email == "after@example.com")
    #expect(changed.emailVerified)

    // Ten minutes later the login is too old: the change waits, then resumes.
    try await standIn.admin("clock", ["advance": 600])
    await runtime.send(.changeEmail(newEmail: "later@example.com"))
    await runtime.settled()
    #expect(await runtime.state.name == "reauthenticationRequired")
    await runtime.send(.reauthenticateWithPassword(password: "secret-pw-1"))
    await runtime.settled()
    #expect(await runtime.state.name == "firebaseAuthenticated")
    #expect(
      try await standIn.oobCodes().contains {
        $0["requestType"] as? String == "VERIFY_AND_CHANGE_EMAIL"
          && $0["newEmail"] as? String == "later@example.com"
      }, "the resumed change mailed the new address")

    var seen: [AuthNotification] = []
    for await note in notes {
      seen.append(note)
      if seen.count == 5 { break }
    }
    guard case .error(let error)? = seen.first else {
      Issue.record("expected EMAIL_EXISTS first, got \(seen)")
      return
    }
    #expect(error.code == "EMAIL_EXISTS")
    #expect(seen[1] == .verificationEmailSent(email: "after@example.com"))
    #expect(seen[2] == .actionCodeApplied(email: "after@example.com"))
    guard case .signedOutAfterError(let dead) = seen[3] else {
      Issue.record("expected the reload to sign out, got \(seen)")
      return
    }
    #expect(dead.code == "TOKEN_EXPIRED")
    #expect(seen[4] == .verificationEmailSent(email: "later@example.com"))
  }

  @Test(
    "a profile update needs no recent login: the session and the account get the name and photo, a removal removes, a reload agrees"
  )
  func profileUpdate() async throws {
    let (runtime, _) = await runtimeWithAccount("profile@example.com", password: "secret-pw-1")
    // Long after the sign-in: a profile update is not a sensitive change.
    try await standIn.admin("clock", ["advance": 600])
    await runtime.send(
      .updateProfile(
        change: ProfileChange(displayName: "Pat Example", photoURL: "https://example.com/pat.png")))
    await runtime.settled()
    let set = try #require(await runtime.state.session)
    #expect(await runtime.state.name == "firebaseAuthenticated")
    #expect(set.displayName == "Pat Example")
    #expect(set.photoURL == "https://example.com/pat.png")
    func account() async throws -> [String: Any] {
      try #require(
        try await standIn.users().first { $0["email"] as? String == "profile@example.com" })
    }
    #expect(try await account()["displayName"] as? String == "Pat Example")
    #expect(try await account()["photoUrl"] as? String == "https://example.com/pat.png")
    // No new tokens were asked for: the ID token's claims follow at its next refresh.
    #expect(set.claims?["picture"] == nil)
    _ = try await runtime.idToken(forceRefresh: true)
    let refreshed = try #require(await runtime.state.session)
    #expect(refreshed.claims?["name"] == .string("Pat Example"))
    #expect(refreshed.claims?["picture"] == .string("https://example.com/pat.png"))

    await runtime.send(.updateProfile(change: ProfileChange(photoURL: "")))
    await runtime.settled()
    let removed = try #require(await runtime.state.session)
    #expect(removed.displayName == "Pat Example")
    #expect(removed.photoURL == nil)
    let photo = try await account()["photoUrl"]
    #expect(photo == nil || photo is NSNull, "the account has no photo")

    await runtime.send(.reloadRequested)
    await runtime.settled()
    #expect(await runtime.state.session == removed, "the server agrees: nothing to take")
  }
}
