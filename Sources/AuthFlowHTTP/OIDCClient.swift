import AuthFlowCore
import Foundation

/// An OpenID provider's endpoints (Google's by default, or any from discovery).
public struct OIDCProvider: Sendable, Equatable {
  public var issuer: String
  public var authorizationEndpoint: URL
  public var tokenEndpoint: URL
  public var deviceAuthorizationEndpoint: URL?

  public init(
    issuer: String, authorizationEndpoint: URL, tokenEndpoint: URL,
    deviceAuthorizationEndpoint: URL? = nil
  ) {
    self.issuer = issuer
    self.authorizationEndpoint = authorizationEndpoint
    self.tokenEndpoint = tokenEndpoint
    self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
  }

  /// Google's endpoints.
  public static let google = OIDCProvider(
    issuer: "https://accounts.google.com",
    authorizationEndpoint: URL(string: "https://accounts.google.com/o/oauth2/v2/auth")!,
    tokenEndpoint: URL(string: "https://oauth2.googleapis.com/token")!,
    deviceAuthorizationEndpoint: URL(string: "https://oauth2.googleapis.com/device/code")!)

  /// Reads `<issuer>/.well-known/openid-configuration`.
  public static func discover(issuer: String, transport: any HTTPTransport = URLSessionTransport())
    async -> Result<OIDCProvider, AuthError>
  {
    let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
    guard let url = URL(string: base + "/.well-known/openid-configuration") else {
      return .failure(AuthError(code: "INVALID_CONFIGURATION", message: "bad issuer \(issuer)"))
    }
    switch await transport.send(HTTPRequest(url: url, timeout: 10)) {
    case .failure(let e): return .failure(e)
    case .success(let r):
      guard r.status == 200,
        let json = try? JSONSerialization.jsonObject(with: r.body) as? [String: Any],
        let iss = json["issuer"] as? String,
        let auth = (json["authorization_endpoint"] as? String).flatMap(URL.init(string:)),
        let token = (json["token_endpoint"] as? String).flatMap(URL.init(string:))
      else {
        return .failure(
          AuthError(
            code: "UNEXPECTED_RESPONSE",
            message: "discovery at \(url) is not an OpenID configuration"))
      }
      let device = (json["device_authorization_endpoint"] as? String).flatMap(URL.init(string:))
      return .success(
        OIDCProvider(
          issuer: iss, authorizationEndpoint: auth, tokenEndpoint: token,
          deviceAuthorizationEndpoint: device))
    }
  }
}

extension ProviderTraits.NonceRule {
  /// What goes in the authorization request for the raw nonce `raw`: its SHA-256 in lowercase
  /// hex (`hashed`), or nothing (`none`).
  public func parameter(for raw: String) -> String? {
    switch self {
    case .none: nil
    case .hashed: SHA256.hash(Array(raw.utf8)).map { String(format: "%02x", $0) }.joined()
    }
  }
}

/// Google's client: the same OpenID client with Google's defaults.
public typealias GoogleClient = OIDCClient

/// A native app's OpenID Connect client for one provider (public: no secret is confidential in
/// an app, RFC 8252 §8.5): Google by default, or Apple, or any `oidc.<name>` issuer.
public struct OIDCClient: Sendable {
  /// The Firebase provider id its credentials are for (`google.com`, `apple.com`, `oidc.acme`).
  public var providerID: ProviderID
  /// The provider's nonce rule (its traits' `nonce`): none (Google), or hashed to the provider
  /// and raw to Firebase (Apple, and every other OpenID provider by default).
  public var nonce: ProviderTraits.NonceRule
  public var clientID: String
  /// Desktop clients get a non-confidential secret that Google expects at the token endpoint.
  public var clientSecret: String?
  public var scopes: [String]
  public var provider: OIDCProvider
  public var timeout: Double
  let transport: any HTTPTransport
  let clock: @Sendable () -> Instant

  public init(
    clientID: String, clientSecret: String? = nil,
    scopes: [String] = ["openid", "email", "profile"],
    provider: OIDCProvider = .google, providerID: ProviderID = .google,
    traits: ProviderTraits? = nil, timeout: Double = 15,
    transport: any HTTPTransport = URLSessionTransport(),
    clock: @escaping @Sendable () -> Instant = { Instant(Date().timeIntervalSince1970) }
  ) {
    self.providerID = providerID
    self.nonce = (traits ?? ProviderCatalog.builtIn[providerID]).nonce
    self.clientID = clientID
    self.clientSecret = clientSecret
    self.scopes = scopes
    self.provider = provider
    self.timeout = timeout
    self.transport = transport
    self.clock = clock
  }

  /// The authorization URL for a code flow with PKCE S256, `state` and (when there is one)
  /// `nonce`, the value as it goes to the provider.
  public func authorizationURL(
    redirectURI: String, pkce: PKCE, state: String, nonce: String?, loginHint: String?,
    extra: [(String, String)] = []
  ) -> URL {
    var items = [
      ("client_id", clientID), ("redirect_uri", redirectURI), ("response_type", "code"),
      ("scope", scopes.joined(separator: " ")), ("code_challenge", pkce.challenge),
      ("code_challenge_method", pkce.method), ("state", state),
    ]
    if let nonce { items.append(("nonce", nonce)) }
    // A hint the app gave (say, a test persona) wins over the account's email.
    if let loginHint, !extra.contains(where: { $0.0 == "login_hint" }) {
      items.append(("login_hint", loginHint))
    }
    items += extra
    // The endpoint came from configuration or discovery: a URL that will not take a query is
    // left as it is, and the provider then refuses the request with its own error.
    guard var c = URLComponents(url: provider.authorizationEndpoint, resolvingAgainstBaseURL: false)
    else { return provider.authorizationEndpoint }
    let existing = c.percentEncodedQuery.map { $0 + "&" } ?? ""
    c.percentEncodedQuery = existing + FormEncoding.encode(items)
    return c.url ?? provider.authorizationEndpoint
  }

  /// POSTs a form to the token endpoint; OAuth errors come back as `AuthError(code: error)`.
  func token(_ fields: [(String, String)]) async -> Result<[String: Any], AuthError> {
    var fields = fields + [("client_id", clientID)]
    if let clientSecret { fields.append(("client_secret", clientSecret)) }
    let request = HTTPRequest(
      method: "POST", url: provider.tokenEndpoint,
      headers: ["Content-Type": "application/x-www-form-urlencoded; charset=UTF-8"],
      body: Data(FormEncoding.encode(fields).utf8), timeout: timeout)
    switch await transport.send(request) {
    case .failure(let e): return .failure(e)
    case .success(let r):
      let json = try? JSONSerialization.jsonObject(with: r.body) as? [String: Any]
      if (200..<300).contains(r.status), let json { return .success(json) }
      if let code = json?["error"] as? String {
        return .failure(AuthError(code: code, message: json?["error_description"] as? String))
      }
      return .failure(
        AuthError(
          code: r.status >= 500 ? "HTTP_\(r.status)" : "UNEXPECTED_RESPONSE",
          message: "token endpoint answered HTTP \(r.status)"))
    }
  }

  /// Exchanges an authorization code (with the PKCE verifier) for a checked credential.
  /// `rawNonce` is the nonce the authorization request was made with, before hashing.
  public func exchange(code: String, redirectURI: String, pkce: PKCE, rawNonce: String?) async
    -> Result<IdPCredential, AuthError>
  {
    let result = await token([
      ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
      ("code_verifier", pkce.verifier),
    ])
    return result.flatMap { credential(from: $0, rawNonce: rawNonce) }
  }

  /// The earlier spelling: for a provider whose nonce travels as it is, the nonce sent is the
  /// raw nonce.
  @available(*, deprecated, renamed: "exchange(code:redirectURI:pkce:rawNonce:)")
  public func exchange(code: String, redirectURI: String, pkce: PKCE, nonce: String?) async
    -> Result<IdPCredential, AuthError>
  {
    await exchange(code: code, redirectURI: redirectURI, pkce: pkce, rawNonce: nonce)
  }

  /// A credential from a token response, after checking the ID token's claims. A provider that
  /// hashes its nonce gets the raw nonce in the credential, for Firebase to check against the
  /// token's claim.
  ///
  /// The authorization code was spent on this exchange, so the credential carries none: a
  /// provider that revokes with a fresh code (Apple) cannot revoke after a loopback consent,
  /// and a deletion reports `REVOCATION_FAILED` and deletes anyway (Docs/Providers.md).
  func credential(from json: [String: Any], rawNonce: String?) -> Result<IdPCredential, AuthError> {
    guard let idToken = json["id_token"] as? String else {
      return .failure(
        AuthError(code: "UNEXPECTED_RESPONSE", message: "no id_token (is 'openid' in the scopes?)"))
    }
    switch checkIDToken(idToken, nonce: rawNonce.flatMap { nonce.parameter(for: $0) }) {
    case .failure(let e): return .failure(e)
    case .success(let claims):
      return .success(
        IdPCredential(
          provider: providerID, idToken: idToken, accessToken: json["access_token"] as? String,
          rawNonce: nonce == .hashed ? rawNonce : nil, email: claims.string("email")))
    }
  }

  /// The client-side checks of an ID token received from the token endpoint (wire reference
  /// §6.7): issuer, audience or authorized party, expiry, issue time within ±600 s, nonce.
  public func checkIDToken(_ token: String, nonce: String?) -> Result<JWTClaims, AuthError> {
    func bad(_ why: String) -> Result<JWTClaims, AuthError> {
      .failure(AuthError(code: "INVALID_ID_TOKEN_CLAIMS", message: why))
    }
    guard let claims = JWTClaims(token) else { return bad("the ID token is not a JWT") }
    var issuers = [provider.issuer]
    if provider.issuer == "https://accounts.google.com" { issuers.append("accounts.google.com") }
    guard let iss = claims.string("iss"), issuers.contains(iss) else {
      return bad("issuer \(claims.string("iss") ?? "missing") is not \(provider.issuer)")
    }
    guard claims.audiences.contains(clientID) || claims.string("azp") == clientID else {
      return bad("audience \(claims.audiences) does not include this client")
    }
    let now = clock().seconds
    guard let exp = claims.number("exp"), exp > now else { return bad("the ID token has expired") }
    guard let iat = claims.number("iat"), abs(iat - now) <= 600 else {
      return bad("the ID token's issue time is more than 600 s from now")
    }
    if let nonce, claims.string("nonce") != nonce { return bad("the nonce does not match") }
    return .success(claims)
  }
}
