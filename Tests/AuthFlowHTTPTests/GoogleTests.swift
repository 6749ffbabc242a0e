import AuthFlowCore
import AuthFlowHTTP
import AuthFlowRuntime
import FlowRunKit
import Foundation
import Testing

/// A signed-looking JWT with the given claims (the signature is not checked client-side: the
/// token came straight from the token endpoint over the connection, as AppAuth also assumes).
func jwt(_ claims: [String: Any]) -> String {
  let header = Base64URL.encode(Array(#"{"alg":"RS256","typ":"JWT"}"#.utf8))
  let body = try! JSONSerialization.data(withJSONObject: claims)
  return header + "." + Base64URL.encode(Array(body)) + ".c2ln"
}

@Suite("Google ID token checks")
struct IDTokenTests {
  let now = 1_767_258_000.0
  var client: GoogleClient {
    GoogleClient(clientID: "app.apps.googleusercontent.com", clock: { Instant(1_767_258_000) })
  }
  var good: [String: Any] {
    [
      "iss": "https://accounts.google.com", "aud": "app.apps.googleusercontent.com", "sub": "1",
      "exp": now + 3600, "iat": now - 5, "nonce": "n-1", "email": "a@example.com",
    ]
  }

  func check(_ changes: [String: Any], nonce: String? = "n-1") -> String? {
    var claims = good
    for (k, v) in changes { claims[k] = v }
    if case .failure(let e) = client.checkIDToken(jwt(claims), nonce: nonce) { return e.message }
    return nil
  }

  @Test("a good token passes; both of Google's issuer spellings are accepted")
  func good_() {
    #expect(check([:]) == nil)
    #expect(check(["iss": "accounts.google.com"]) == nil)
    #expect(check(["aud": "other", "azp": "app.apps.googleusercontent.com"]) == nil)
  }

  @Test("wrong issuer, audience, nonce, expiry or issue time is refused")
  func bad() {
    #expect(check(["iss": "https://evil.example.com"])?.contains("issuer") == true)
    #expect(check(["aud": "someone-else.apps.googleusercontent.com"])?.contains("audience") == true)
    #expect(check(["nonce": "replayed"])?.contains("nonce") == true)
    #expect(check(["exp": now - 1])?.contains("expired") == true)
    #expect(check(["iat": now + 3600])?.contains("issue time") == true)
    #expect(client.checkIDToken("not-a-jwt", nonce: nil).isFailure)
  }
}

extension Result {
  var isFailure: Bool { if case .failure = self { true } else { false } }
}

@Suite("Google OAuth against nanoidp", .enabled(if: Live.oidcEnabled, Live.skipReason), .serialized)
struct GoogleOAuthTests {
  @Test("discovery reads the provider's endpoints")
  func discovery() async throws {
    let issuer = try Live.requireIssuer()
    let provider = try await OIDCProvider.discover(issuer: issuer).get()
    #expect(provider.issuer == issuer)
    #expect(provider.tokenEndpoint.absoluteString.hasPrefix(issuer))
    #expect(provider.deviceAuthorizationEndpoint != nil)
  }

  @Test("loopback consent: PKCE S256, state and nonce, a checked credential")
  func loopback() async throws {
    let client = try await nanoidpClient(issuer: try Live.requireIssuer())
    let consent = LoopbackConsent(client: client, timeout: 20, openBrowser: personaBrowser("alice"))
    guard
      case .providerSucceeded(let credential) = await consent.authorize(
        provider: .google, intent: .signIn, loginHint: nil)
    else {
      Issue.record("consent did not succeed")
      return
    }
    #expect(credential.email == "alice@example.com")
    let claims = try #require(JWTClaims(credential.idToken ?? ""))
    #expect(claims.string("sub") == "alice")
    #expect(credential.accessToken != nil)
  }

  @Test("an oidc.* consent hashes a fresh nonce; Firebase gets the raw one and refuses without it")
  func oidcNonce() async throws {
    let issuer = try Live.requireIssuer()
    let endpoints = try await OIDCProvider.discover(issuer: issuer).get()
    let client = OIDCClient(clientID: Live.clientID, provider: endpoints, providerID: "oidc.nano")
    #expect(client.nonce == .hashed, "an unlisted oidc.* provider has the generic traits")
    let consent = LoopbackConsent(client: client, timeout: 20, openBrowser: personaBrowser("bob"))
    guard
      case .providerSucceeded(let credential) = await consent.authorize(
        provider: "oidc.nano", intent: .signIn, loginHint: nil)
    else {
      Issue.record("consent did not succeed")
      return
    }
    let raw = try #require(credential.rawNonce, "the credential carries the raw nonce")
    let claim = try #require(JWTClaims(credential.idToken ?? "")?.string("nonce"))
    #expect(ProviderTraits.NonceRule.hashed.parameter(for: raw) == claim)
    let standIn = try StandIn()
    let api = standIn.api()
    var stripped = credential
    stripped.rawNonce = nil
    guard
      case .requestFailed(let refused) = await api.signInWithIdp(credential: stripped, linkTo: nil)
    else {
      Issue.record("an ID token with a nonce claim was accepted without its raw nonce")
      return
    }
    #expect(refused.code == "MISSING_OR_INVALID_NONCE")
    guard case .signedIn(let session) = await api.signInWithIdp(credential: credential, linkTo: nil)
    else {
      Issue.record("the credential with its raw nonce was refused")
      return
    }
    #expect(session.providers == ["oidc.nano"])
  }

  @Test("a redirect with another state is refused before any code is exchanged")
  func wrongState() async throws {
    let client = try await nanoidpClient(issuer: try Live.requireIssuer())
    let consent = LoopbackConsent(
      client: client, timeout: 20,
      openBrowser: personaBrowser("alice") { location in
        location.replacingOccurrences(of: "state=", with: "state=forged")
      })
    #expect(
      await consent.authorize(provider: .google, intent: .signIn, loginHint: nil)
        == .providerFailed(
          error: AuthError(code: "STATE_MISMATCH", message: "the redirect's state is not ours")))
  }

  @Test("the provider enforces PKCE: a wrong verifier gets invalid_grant")
  func pkceEnforced() async throws {
    let client = try await nanoidpClient(issuer: try Live.requireIssuer())
    let receiver = try LoopbackReceiver()
    let pkce = PKCE()
    let url = client.authorizationURL(
      redirectURI: receiver.redirectURI, pkce: pkce, state: "s", nonce: "n", loginHint: nil)
    async let redirect = receiver.waitForRedirect(timeout: 20)
    await personaBrowser("alice")(url)
    let code = try #require(try await redirect.get()["code"])
    let result = await client.exchange(
      code: code, redirectURI: receiver.redirectURI, pkce: PKCE(), rawNonce: "n")
    guard case .failure(let e) = result else {
      Issue.record("a wrong verifier was accepted")
      return
    }
    #expect(e.code == "invalid_grant")
  }

  @Test("no redirect in time is TIMEOUT")
  func timeout() async throws {
    let client = try await nanoidpClient(issuer: try Live.requireIssuer())
    let consent = LoopbackConsent(client: client, timeout: 1, openBrowser: { _ in })
    guard
      case .providerFailed(let e) = await consent.authorize(
        provider: .google, intent: .signIn, loginHint: nil)
    else {
      Issue.record("expected a failure")
      return
    }
    #expect(e.code == "TIMEOUT")
  }
}

/// Counts requests on their way to the real transport.
final class CountingTransport: HTTPTransport, @unchecked Sendable {
  let inner = URLSessionTransport()
  private let lock = NSLock()
  private var count = 0
  var requests: Int { lock.withLock { count } }

  func send(_ request: HTTPRequest) async -> Result<HTTPResponse, AuthError> {
    lock.withLock { count += 1 }
    return await inner.send(request)
  }
}

@Suite(
  "End to end: nanoidp + the Firebase stand-in", .enabled(if: Live.oidcEnabled, Live.skipReason),
  .serialized)
struct EndToEndTests {
  func runtime(
    _ standIn: StandIn, user: String, transport: any HTTPTransport = URLSessionTransport()
  )
    async throws -> AuthRuntime
  {
    let client = try await nanoidpClient(issuer: try Live.requireIssuer())
    let consent = LoopbackConsent(client: client, timeout: 20, openBrowser: personaBrowser(user))
    let firebase = FirebaseAPI(
      apiKey: "test-key", endpoints: standIn.endpoints, transport: transport)
    let runtime = AuthRuntime(
      interpreter: HTTPInterpreter(firebase: firebase, consent: consent),
      store: InMemorySessionStore())
    await runtime.start()
    await runtime.settled()
    return runtime
  }

  @Test("anonymous upgrade, refresh and sign-out, live")
  func anonymousUpgrade() async throws {
    let standIn = try StandIn()
    let counting = CountingTransport()
    let clock = ContinuousClock()
    let start = clock.now
    let auth = try await runtime(standIn, user: "alice", transport: counting)
    await auth.send(.signInAnonymouslyTapped)
    await auth.settled()
    let anonymous = try #require(await auth.state.session)
    #expect(anonymous.anonymous)
    await auth.send(.signInWithGoogleTapped)
    await auth.settled()
    let upgraded = try #require(await auth.state.session)
    #expect(await auth.state.name == "firebaseAuthenticated")
    #expect(upgraded.uid == anonymous.uid && !upgraded.anonymous)
    #expect(upgraded.providers == ["google.com"])
    print("live anonymous upgrade: \(counting.requests) Firebase requests in \(clock.now - start)")
    let fresh = try await auth.idToken(forceRefresh: true)
    #expect(JWTClaims(fresh)?.string("user_id") == upgraded.uid)
    #expect(await auth.state.session?.refreshToken != upgraded.refreshToken)
    await auth.send(.signOutTapped(discardAnonymousData: false))
    await auth.settled()
    #expect(await auth.state == .signedOut)
  }

  @Test("migration live: a second device's anonymous user merges into the owner's account")
  func migration() async throws {
    let standIn = try StandIn()
    let first = try await runtime(standIn, user: "bob")
    await first.send(.signInAnonymouslyTapped)
    await first.settled()
    await first.send(.signInWithGoogleTapped)
    await first.settled()
    let owner = try #require(await first.state.session)
    let second = try await runtime(standIn, user: "bob")
    await second.send(.signInAnonymouslyTapped)
    await second.settled()
    let anonymous = try #require(await second.state.session)
    await second.send(.signInWithGoogleTapped)
    await second.settled()
    // A wait below would never end if the conflict did not come: stop here instead.
    try #require(await second.state.name == "migrationRequired")
    var notes = await second.notifications().makeAsyncIterator()
    await second.send(.migrationDecided(choice: .merge))
    await second.settled()
    #expect(await second.state.session?.uid == owner.uid)
    #expect(await notes.next() == .migrationReady(from: anonymous.uid, to: owner.uid))
    await second.send(.migrationFinished)
    await second.settled()
    #expect(await second.state.session?.pendingCleanup == nil)
    // The anonymous account is gone from the server; the owner's is not.
    let users = try await standInUsers(standIn)
    #expect(users.contains(owner.uid) && !users.contains(anonymous.uid))
  }

  func standInUsers(_ standIn: StandIn) async throws -> [String] {
    try await standIn.users().compactMap { $0["localId"] as? String }
  }
}

@Suite("flowrun --live and record", .enabled(if: Live.oidcEnabled, Live.skipReason), .serialized)
struct LiveCommandTests {
  static let scenarios = Live.scenarios

  func environment(_ standIn: StandIn) throws -> [String: String] {
    [
      "FIREBASE_AUTH_EMULATOR_HOST": standIn.hostPort,
      "AUTHFLOW_OIDC_ISSUER": try Live.requireIssuer(),
      "AUTHFLOW_API_KEY": "test-key", "AUTHFLOW_CLIENT_ID": Live.clientID,
    ]
  }

  @Test("the anonymous-upgrade, migration and reload scenarios pass live")
  func live() async throws {
    let standIn = try StandIn()
    let env = try environment(standIn)
    let cfg = try Live.configFile()
    defer { try? FileManager.default.removeItem(atPath: cfg) }
    for (file, user) in [
      ("anonymous-upgrade.json", "alice"), ("migration-returning-user.json", "bob"),
      ("reload-anonymous.json", "alice"),
    ] {
      let out = await FlowRun.execute(
        [
          "--live", "--config", cfg, "--browser", "follow", "--login-hint",
          "persona-auto-login:\(user)", Self.scenarios + "/" + file,
        ], environment: env)
      #expect(out.code == 0, "\(file): \(out.stdout)\(out.stderr)")
      #expect(out.stderr.contains("requests live"))
    }
  }

  @Test("Apple and an oidc.* provider, configured by PROVIDERS, pass their scenarios live")
  func providersLive() async throws {
    let standIn = try StandIn()
    let issuer = try Live.requireIssuer()
    var env = try environment(standIn)
    env["AUTHFLOW_PROVIDERS"] = "apple.com, oidc.nano"
    for prefix in ["APPLE_COM", "OIDC_NANO"] {
      env["AUTHFLOW_\(prefix)_CLIENT_ID"] = Live.clientID
      env["AUTHFLOW_\(prefix)_ISSUER"] = issuer
    }
    let cfg = try Live.configFile()
    defer { try? FileManager.default.removeItem(atPath: cfg) }
    let out = await FlowRun.execute(
      [
        "--live", "--config", cfg, "--browser", "follow", "--login-hint",
        "persona-auto-login:alice", Self.scenarios + "/apple-live-upgrade-and-delete.json",
        Self.scenarios + "/oidc-live-sign-in.json",
      ], environment: env)
    #expect(out.code == 0, "\(out.stdout)\(out.stderr)")
    #expect(out.stderr.contains("apple-live-upgrade-and-delete: 7 requests live"), "\(out.stderr)")
    // The stand-in checked Apple's nonce: SHA-256 of the raw nonce Firebase got is the claim.
    let users = try await standIn.users()
    #expect(users.count == 1, "the guest linked to Apple was deleted; the oidc user stays")
    env["AUTHFLOW_OIDC_NANO_ISSUER"] = nil
    let missing = await FlowRun.execute(
      ["--live", "--config", cfg, Self.scenarios + "/oidc-live-sign-in.json"], environment: env)
    #expect(missing.code == 65)
    #expect(missing.stderr.contains("OIDC_NANO_ISSUER"), "\(missing.stderr)")
  }

  @Test("record writes the answers as placeholders; the recording replays offline, byte-identical")
  func record() async throws {
    let standIn = try StandIn()
    let target = FileManager.default.temporaryDirectory.appendingPathComponent("rec-\(UUID()).json")
      .path
    let cfg = try Live.configFile()
    defer {
      try? FileManager.default.removeItem(atPath: target)
      try? FileManager.default.removeItem(atPath: cfg)
    }
    let out = await FlowRun.execute(
      [
        "record", "--config", cfg, "--browser", "follow", "--login-hint",
        "persona-auto-login:alice", "--out", target,
        Self.scenarios + "/migration-returning-user.json",
      ], environment: try environment(standIn))
    #expect(out.code == 0, "\(out.stdout)\(out.stderr)")
    let text = try String(contentsOfFile: target, encoding: .utf8)
    #expect(text.contains("\"tok-1\"") && text.contains("\"uid-1\""))
    #expect(!text.contains("eyJ"), "no real token may be left in a recording")
    let a = FlowRun.main(["--trace", target])
    let b = FlowRun.main(["--trace", target])
    #expect(a.code == 0, "\(a.stdout)")
    #expect(a.stdout == b.stdout)
  }

  @Test("a missing key in the configuration is named; a missing --config is bad usage")
  func configErrors() async throws {
    let cfg = try Live.configFile()
    defer { try? FileManager.default.removeItem(atPath: cfg) }
    let out = await FlowRun.execute(
      ["--live", "--config", cfg, Self.scenarios + "/anonymous-upgrade.json"],
      environment: [:])
    #expect(out.code == 65)
    #expect(out.stderr.contains("CLIENT_ID"))
    let usage = await FlowRun.execute(
      ["--live", Self.scenarios + "/anonymous-upgrade.json"], environment: [:])
    #expect(usage.code == 64)
  }
}
