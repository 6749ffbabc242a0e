import AuthFlowCore
import Foundation

/// How a user's consent at a provider is obtained; the answer is a result for the `authorize`
/// request (`providerSucceeded`, `providerCancelled` or `providerFailed`).
public protocol ProviderConsent: Sendable {
  func authorize(provider: ProviderID, intent: AuthorizationIntent, loginHint: String?) async
    -> AuthorizeAnswer
}

/// A random URL-safe token (state, nonce).
func randomToken() -> String {
  var g = SystemRandomNumberGenerator()
  return Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &g) })
}

/// For desktop apps and command-line tools: the authorization code flow with PKCE, the
/// redirect received on a loopback port. `openBrowser` shows the URL to the user (opens the
/// system browser, prints it, or, in tests, follows it with an HTTP client).
public struct LoopbackConsent: ProviderConsent {
  public var client: OIDCClient
  /// Seconds to wait for the user.
  public var timeout: Double
  /// Extra authorization parameters (e.g. `prompt=select_account`).
  public var extraParameters: [(String, String)]
  let openBrowser: @Sendable (URL) async -> Void

  public init(
    client: OIDCClient, timeout: Double = 300, extraParameters: [(String, String)] = [],
    openBrowser: @escaping @Sendable (URL) async -> Void
  ) {
    self.client = client
    self.timeout = timeout
    self.extraParameters = extraParameters
    self.openBrowser = openBrowser
  }

  public func authorize(provider: ProviderID, intent: AuthorizationIntent, loginHint: String?)
    async -> AuthorizeAnswer
  {
    let receiver: LoopbackReceiver
    do {
      receiver = try LoopbackReceiver()
    } catch {
      return .providerFailed(error: error as? AuthError ?? AuthError(code: "LOOPBACK_UNAVAILABLE"))
    }
    let pkce = PKCE()
    let state = randomToken()
    // Fresh for every attempt (a nonce is never reused); none for a provider without one.
    let rawNonce: String? = client.nonce == .none ? nil : randomToken()
    let url = client.authorizationURL(
      redirectURI: receiver.redirectURI, pkce: pkce, state: state,
      nonce: rawNonce.flatMap { client.nonce.parameter(for: $0) }, loginHint: loginHint,
      extra: extraParameters)
    async let redirect = receiver.waitForRedirect(timeout: timeout)
    await openBrowser(url)
    let params: [String: String]
    switch await redirect {
    case .failure(let e): return .providerFailed(error: e)
    case .success(let p): params = p
    }
    guard params["state"] == state else {
      // Not our request (a forged or replayed redirect): never exchange its code.
      return .providerFailed(
        error: AuthError(code: "STATE_MISMATCH", message: "the redirect's state is not ours"))
    }
    if let error = params["error"] {
      return error == "access_denied"
        ? .providerCancelled
        : .providerFailed(error: AuthError(code: error, message: params["error_description"]))
    }
    guard let code = params["code"] else {
      return .providerFailed(
        error: AuthError(code: "UNEXPECTED_RESPONSE", message: "the redirect has no code"))
    }
    switch await client.exchange(
      code: code, redirectURI: receiver.redirectURI, pkce: pkce, rawNonce: rawNonce)
    {
    case .success(let credential): return .providerSucceeded(credential: credential)
    case .failure(let e): return .providerFailed(error: e)
    }
  }
}

/// For machines without a browser (RFC 8628): show a code and a URL, poll until the user approves.
public struct DeviceConsent: ProviderConsent {
  public var client: OIDCClient
  /// Tells the user where to go and what to type.
  let present: @Sendable (_ userCode: String, _ verificationURL: String) async -> Void
  let sleep: @Sendable (Double) async -> Void

  public init(
    client: OIDCClient,
    present: @escaping @Sendable (String, String) async -> Void,
    sleep: @escaping @Sendable (Double) async -> Void = { seconds in
      try? await Task.sleep(nanoseconds: Instant(0).nanoseconds(until: Instant(seconds)))
    }
  ) {
    self.client = client
    self.present = present
    self.sleep = sleep
  }

  public func authorize(provider: ProviderID, intent: AuthorizationIntent, loginHint: String?)
    async -> AuthorizeAnswer
  {
    guard let endpoint = client.provider.deviceAuthorizationEndpoint else {
      return .providerFailed(error: AuthError(code: "DEVICE_FLOW_UNSUPPORTED"))
    }
    let body = FormEncoding.encode([
      ("client_id", client.clientID), ("scope", client.scopes.joined(separator: " ")),
    ])
    let request = HTTPRequest(
      method: "POST", url: endpoint, headers: ["Content-Type": "application/x-www-form-urlencoded"],
      body: Data(body.utf8), timeout: client.timeout)
    guard case .success(let r) = await client.transport.send(request),
      let json = try? JSONSerialization.jsonObject(with: r.body) as? [String: Any],
      let deviceCode = json["device_code"] as? String, let userCode = json["user_code"] as? String,
      let verification = json["verification_url"] as? String ?? json["verification_uri"] as? String
    else {
      return .providerFailed(
        error: AuthError(code: "UNEXPECTED_RESPONSE", message: "device authorization failed"))
    }
    // The server's numbers are input: a poll every 1 to 60 s, for at most 30 minutes.
    var interval = min(max(FirebaseAPI.seconds(json["interval"]) ?? 5, 1), 60)
    let expires = min(max(FirebaseAPI.seconds(json["expires_in"]) ?? 1800, 1), 1800)
    await present(userCode, verification)
    var waited = 0.0
    while waited < expires {
      await sleep(interval)
      waited += interval
      let result = await client.token([
        ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode),
      ])
      switch result {
      case .success(let json):
        switch client.credential(from: json, rawNonce: nil) {
        case .success(let c): return .providerSucceeded(credential: c)
        case .failure(let e): return .providerFailed(error: e)
        }
      case .failure(let e) where e.code == "authorization_pending": continue
      case .failure(let e) where e.code == "slow_down": interval = min(interval + 5, 60)
      case .failure(let e) where e.code == "access_denied": return .providerCancelled
      case .failure(let e): return .providerFailed(error: e)
      }
    }
    return .providerFailed(error: AuthError(code: "expired_token"))
  }
}

/// For apps with their own Google step: an iOS app hands over what the GoogleSignIn SDK
/// returned (its `idToken` and `accessToken`), or says the user cancelled.
public struct AppSuppliedConsent: ProviderConsent {
  let handler: @Sendable (ProviderID, AuthorizationIntent, String?) async -> AuthorizeAnswer

  public init(
    _ handler:
      @escaping @Sendable (ProviderID, AuthorizationIntent, String?) async -> AuthorizeAnswer
  ) {
    self.handler = handler
  }

  public func authorize(provider: ProviderID, intent: AuthorizationIntent, loginHint: String?)
    async -> AuthorizeAnswer
  {
    await handler(provider, intent, loginHint)
  }
}
