import AuthFlowCore
import AuthFlowRuntime
import Foundation
import Testing

@testable import AuthFlowHTTP

/// An unsigned Apple-style ID token whose `nonce` claim is the SHA-256 hex of `rawNonce`.
func fakeAppleToken(sub: String, rawNonce: String, email: String = "x7@privaterelay.appleid.com")
  -> String
{
  let hashed = SHA256.hash(Array(rawNonce.utf8)).map { String(format: "%02x", $0) }.joined()
  return unsignedJWT(
    payload:
      #"{"iss":"https://appleid.apple.com","sub":"\#(sub)","email":"\#(email)","nonce":"\#(hashed)"}"#
  )
}

@Suite("Apple, generic providers, revocation and unlink against the stand-in", .serialized)
struct AppleTests {
  let standIn: StandIn
  let api: FirebaseAPI

  init() throws {
    standIn = try StandIn()
    api = standIn.api()
  }

  func session(_ r: some SignsIn) throws -> Session {
    guard let s = r.session else { throw AuthError(code: "NOT_SIGNED_IN", message: "\(r)") }
    return s
  }

  func apple(_ sub: String, nonce: String) -> IdPCredential {
    IdPCredential(
      provider: .apple, idToken: fakeAppleToken(sub: sub, rawNonce: nonce), rawNonce: nonce,
      authorizationCode: "code-" + nonce, givenName: "Ana", familyName: "Lima")
  }

  @Test(
    "sign in with Apple: the raw nonce is checked against the token, a pair is used once, the name is kept"
  )
  func nonceRules() async throws {
    let credential = apple("apple-1", nonce: "raw-1")
    let s = try session(await api.signInWithIdp(credential: credential, linkTo: nil))
    #expect(s.providers == ["apple.com"] && s.displayName == "Ana Lima")
    guard
      case .requestFailed(let duplicate) = await api.signInWithIdp(
        credential: credential, linkTo: nil)
    else {
      Issue.record("a repeated (id_token, nonce) pair was accepted")
      return
    }
    #expect(duplicate.code == "MISSING_OR_INVALID_NONCE")
    #expect(duplicate.message?.contains("Duplicate credential") == true)
    var wrong = apple("apple-1", nonce: "raw-2")
    wrong.rawNonce = "not-the-one"
    guard
      case .requestFailed(let mismatch) = await api.signInWithIdp(credential: wrong, linkTo: nil)
    else {
      Issue.record("a nonce that does not match was accepted")
      return
    }
    #expect(mismatch.code == "MISSING_OR_INVALID_NONCE")
  }

  @Test(
    "an Apple sign-in that meets a second factor: the name Apple gave goes with the code that finishes it, onto the account"
  )
  func nameAcrossSecondFactor() async throws {
    // An Apple account without a name, with an authenticator app enrolled.
    var first = apple("apple-mfa", nonce: "raw-m1")
    (first.givenName, first.familyName) = (nil, nil)
    let account = try session(await api.signInWithIdp(credential: first, linkTo: nil))
    #expect(account.displayName == nil)
    try await standIn.admin("admin", ["localId": account.uid, "emailVerified": true])
    guard
      case .totpSecretIssued(let secret) = await api.startTotpEnrollment(idToken: account.idToken)
    else {
      Issue.record("expected a TOTP secret")
      return
    }
    let code = try #require(
      TOTP.code(base32Secret: secret.sharedSecretKey, at: Date().timeIntervalSince1970))
    guard
      case .totpEnrolled = await api.finalizeTotpEnrollment(
        idToken: account.idToken, sessionInfo: secret.sessionInfo, verificationCode: code,
        displayName: "App")
    else {
      Issue.record("expected the enrolment")
      return
    }
    // Apple again, now with the name (as after the user stopped using Apple with the app).
    guard
      case .secondFactorRequired(let challenge) = await api.signInWithIdp(
        credential:
          apple("apple-mfa", nonce: "raw-m2"), linkTo: nil)
    else {
      Issue.record("expected the second factor")
      return
    }
    let later = try #require(
      TOTP.code(base32Secret: secret.sharedSecretKey, at: Date().timeIntervalSince1970))
    guard
      case .signedIn(let signedIn) = await api.finalizeSecondFactorSignIn(
        pendingCredential: challenge.pendingCredential, factor: challenge.factors[0].id,
        sessionInfo: nil, verificationCode: later, displayName: "Ana Lima")
    else {
      Issue.record("expected the finalize to sign in")
      return
    }
    #expect(signedIn.uid == account.uid && signedIn.displayName == "Ana Lima")
    guard case .accountReloaded(let profile) = await api.lookupAccount(idToken: signedIn.idToken)
    else {
      Issue.record("expected the account")
      return
    }
    #expect(profile.displayName == "Ana Lima", "the account has the name, not only the session")
  }

  @Test(
    "an Apple link conflict answers a pendingToken; the retry without the nonce signs in to the owner"
  )
  func conflictPendingToken() async throws {
    let owner = try session(
      await api.signInWithIdp(credential: apple("apple-2", nonce: "raw-3"), linkTo: nil))
    let anonymous = try session(await api.signUpAnonymously())
    guard
      case .credentialAlreadyInUse(let updated, _) = await api.signInWithIdp(
        credential:
          apple("apple-2", nonce: "raw-4"), linkTo: anonymous.idToken)
    else {
      Issue.record("expected the conflict")
      return
    }
    #expect(updated.pendingToken != nil && updated.rawNonce == nil)
    let signedIn = try session(await api.signInWithIdp(credential: updated, linkTo: nil))
    #expect(signedIn.uid == owner.uid)
    // A pending token is single-use: the same retry again is refused, so the machine asks Apple.
    guard case .requestFailed(let again) = await api.signInWithIdp(credential: updated, linkTo: nil)
    else {
      Issue.record("a spent pendingToken was accepted")
      return
    }
    #expect(MachineRetry.refusals.contains(again.code))
  }

  @Test("revokeToken revokes a code once; unlink removes a provider and says what is left")
  func revokeAndUnlink() async throws {
    let s = try session(
      await api.signInWithIdp(credential: apple("apple-3", nonce: "raw-5"), linkTo: nil))
    #expect(
      await api.revokeToken(provider: .apple, authorizationCode: "code-x", idToken: s.idToken)
        == .tokenRevoked)
    guard
      case .requestFailed(let spent) = await api.revokeToken(
        provider: .apple, authorizationCode: "code-x", idToken: s.idToken)
    else {
      Issue.record("a code was revoked twice")
      return
    }
    #expect(spent.code == "INVALID_CREDENTIAL")
    let google = IdPCredential.google(
      idToken: fakeGoogleToken(sub: "g-9", email: "x7@privaterelay.appleid.com"))
    let both = try session(await api.signInWithIdp(credential: google, linkTo: s.idToken))
    #expect(Set(both.providers) == ["apple.com", "google.com"])
    #expect(
      await api.unlinkProvider(provider: .google, idToken: both.idToken)
        == .providerUnlinked(providers: ["apple.com"]))
  }

  @Test("an oidc.* ID token and a github.com access token go through signInWithIdp")
  func genericProviders() async throws {
    let oidc = IdPCredential(
      provider: "oidc.acme", idToken: fakeGoogleToken(sub: "acme-1", email: "ana@acme.example"))
    let a = try session(await api.signInWithIdp(credential: oidc, linkTo: nil))
    #expect(a.providers == ["oidc.acme"])
    let github = IdPCredential(provider: "github.com", accessToken: #"{"sub":"gh-1"}"#)
    let b = try session(await api.signInWithIdp(credential: github, linkTo: a.idToken))
    #expect(Set(b.providers) == ["oidc.acme", "github.com"] && b.uid == a.uid)
    // An OAuth 1 credential (twitter.com) goes with its secret; without it Firebase refuses.
    let twitter = IdPCredential(
      provider: "twitter.com", accessToken: #"{"sub":"tw-1"}"#, tokenSecret: "tw-secret")
    let t = try session(await api.signInWithIdp(credential: twitter, linkTo: b.idToken))
    #expect(t.providers.contains("twitter.com"))
    var bare = twitter
    bare.tokenSecret = nil
    guard case .requestFailed(let e) = await api.signInWithIdp(credential: bare, linkTo: nil) else {
      Issue.record("an OAuth 1 token without its secret was accepted")
      return
    }
    #expect(e.code == "INVALID_IDP_RESPONSE")
    // Firebase's own code flow (microsoft.com): the redirect and the session id, no postBody.
    let handler = "https://authflow.example/__/auth/handler"
    let (_, sessionId) = try await api.startHostedSignIn(
      provider: "microsoft.com", continueUri: handler
    ).get()
    let code = #"{"sub":"ms-1","email":"ana@contoso.example","email_verified":true}"#
      .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    let microsoft = IdPCredential(
      provider: "microsoft.com", requestUri: handler + "?code=" + code, sessionId: sessionId)
    let m = try session(await api.signInWithIdp(credential: microsoft, linkTo: nil))
    #expect(m.providers == ["microsoft.com"] && m.email == "ana@contoso.example")
  }

  /// A password account (`secret-pw-1`) with `email`, and a started runtime whose Apple consent
  /// gives a credential for the same address (Apple user `sub`, a fresh nonce each time).
  /// Apple does not vouch for the address (no `email_verified`): Firebase will not attach it.
  private func passwordAccountBesideApple(
    email: String, sub: String
  ) async throws -> (owner: Session, runtime: AuthRuntime, nonces: NonceSequence) {
    guard
      case .signedIn(let owner) = await api.signUpWithPassword(
        email: email, password: "secret-pw-1", linkTo: nil)
    else { throw AuthError(code: "SETUP_FAILED", message: "could not create the password account") }
    let nonces = NonceSequence()
    let consent = AppSuppliedConsent { _, _, _ in
      let n = await nonces.next()
      return .providerSucceeded(
        credential: IdPCredential(
          provider: .apple, idToken: fakeAppleToken(sub: sub, rawNonce: n, email: email),
          rawNonce: n, authorizationCode: "code-" + n))
    }
    let runtime = AuthRuntime(
      interpreter: HTTPInterpreter(firebase: api, consents: [.apple: consent]),
      store: InMemorySessionStore())
    await runtime.start()
    return (owner, runtime, nonces)
  }

  @Test(
    "an Apple sign-in whose email has a password account waits (needConfirmation); the password signs in and Apple is linked, asked again for a fresh nonce"
  )
  func accountExistsLive() async throws {
    let email = "needs-confirmation@example.com"
    let (_, runtime, nonces) = try await passwordAccountBesideApple(email: email, sub: "apple-nc")
    await runtime.send(.signInWithProviderTapped(provider: .apple))
    await runtime.settled()
    guard case .accountExistsWithDifferentCredential(let link, _) = await runtime.state else {
      Issue.record("expected the wait, got \(await runtime.state)")
      return
    }
    #expect(link.email == email && link.providers == ["password"])
    await runtime.send(.signInWithEmail(email: email, password: "wrong-password"))
    await runtime.settled()
    #expect(await runtime.state.kind == .accountExistsWithDifferentCredential)
    await runtime.send(.signInWithEmail(email: email, password: "secret-pw-1"))
    await runtime.settled()
    let session = try #require(await runtime.state.session)
    #expect(await runtime.state.kind == .firebaseAuthenticated)
    #expect(Set(session.providers) == ["password", "apple.com"], "\(session.providers)")
    #expect(await nonces.next() == "nonce-seq-3", "Apple was asked twice: sign-in, then link")
  }

  @Test(
    "a guest whose Apple email is a password account's waits as a guest; the password signs in to the account, which gets the guest's data and Apple, and the guest's account goes after migrationFinished"
  )
  func guestAccountExistsLive() async throws {
    let email = "guest-meets-account@example.com"
    let (owner, runtime, _) = try await passwordAccountBesideApple(email: email, sub: "apple-gm")
    await runtime.send(.signInAnonymouslyTapped)
    await runtime.settled()
    let guest = try #require(await runtime.state.session)
    #expect(guest.anonymous)
    await runtime.send(.signInWithProviderTapped(provider: .apple))
    await runtime.settled()
    guard case .accountExistsWithDifferentCredential(let link, let user) = await runtime.state
    else {
      Issue.record("expected the guest's wait, got \(await runtime.state)")
      return
    }
    #expect(link.guest == guest.uid && user?.session.uid == guest.uid, "the guest is kept")
    #expect(link.email == email)
    await runtime.send(.signInWithEmail(email: email, password: "wrong-password"))
    await runtime.settled()
    #expect(await runtime.state.kind == .accountExistsWithDifferentCredential)
    #expect(await runtime.state.session?.uid == guest.uid)
    await runtime.send(.signInWithEmail(email: email, password: "secret-pw-1"))
    await runtime.settled()
    let session = try #require(await runtime.state.session)
    #expect(await runtime.state.kind == .firebaseAuthenticated)
    #expect(session.uid == owner.uid && session.pendingCleanup?.uid == guest.uid)
    #expect(Set(session.providers) == ["password", "apple.com"], "\(session.providers)")
    #expect(try await standIn.users().count == 2, "the guest's account waits for its data")
    await runtime.send(.migrationFinished)
    await runtime.settled()
    #expect(await runtime.state.session?.pendingCleanup == nil)
    let users = try await standIn.users()
    #expect(users.count == 1, "only the account is left: \(users)")
  }

  @Test("deleting an Apple account through the runtime revokes with a fresh code, then deletes")
  func deletionSaga() async throws {
    let nonces = NonceSequence()
    let consent = AppSuppliedConsent { provider, _, _ in
      let n = await nonces.next()
      return .providerSucceeded(credential: apple("apple-9", nonce: n))
    }
    let interpreter = HTTPInterpreter(firebase: api, consents: [.apple: consent])
    let runtime = AuthRuntime(interpreter: interpreter, store: InMemorySessionStore())
    await runtime.start()
    await runtime.send(.signInWithProviderTapped(provider: .apple))
    await runtime.settled()
    #expect(await runtime.state.name == "firebaseAuthenticated")
    await runtime.send(.deleteAccountTapped)
    await runtime.settled()
    #expect(await runtime.state == .signedOut)
    let users = try await standIn.users()
    #expect(users.isEmpty, "the Apple account is gone from the server: \(users)")
    #expect(try await standIn.revoked().count == 1)
  }
}

/// Fresh nonces for a consent step that is asked more than once.
actor NonceSequence {
  private var n = 0
  func next() -> String {
    n += 1
    return "nonce-seq-\(n)"
  }
}

/// The codes with which a retry of a conflict's answer is refused (as the machine knows them).
enum MachineRetry {
  static let refusals: Set<String> = [
    "MISSING_OR_INVALID_NONCE", "INVALID_IDP_RESPONSE", "INVALID_PENDING_TOKEN",
  ]
}
