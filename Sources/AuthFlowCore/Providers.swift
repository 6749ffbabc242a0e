// Providers are data, not code paths: an id plus traits. The built-in ids and their traits are
// in Catalog.swift, the one place in the core that spells a provider id; transitions read
// traits only.

/// A sign-in provider's Firebase id: `google.com`, `apple.com`, `github.com`, `oidc.<name>`.
public struct ProviderID: Hashable, Comparable, Codable, Sendable, ExpressibleByStringLiteral,
  CustomStringConvertible
{
  /// The id as Firebase spells it.
  public var rawValue: String

  /// A provider id.
  public init(_ rawValue: String) { self.rawValue = rawValue }
  public init(stringLiteral value: String) { rawValue = value }

  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(String.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(rawValue)
  }

  public static func < (a: ProviderID, b: ProviderID) -> Bool { a.rawValue < b.rawValue }
  public var description: String { rawValue }

  /// Whether this is an identity provider's id (`google.com`, `oidc.acme`), not one of
  /// Firebase's own ways in (`password`, `phone`, `anonymous`, `custom`), which have no dot.
  public var isIdentityProvider: Bool { rawValue.contains(".") }
}

/// What a provider's consent step hands over and how Firebase must be sent it.
public struct ProviderTraits: Hashable, Sendable {
  /// What the consent step hands over and `signInWithIdp` sends.
  public enum CredentialKind: String, Hashable, Codable, Sendable, CaseIterable {
    /// An OpenID ID token (plus an access token when there is one): Google, Apple, `oidc.*`.
    case idToken
    /// An OAuth access token only: github.com.
    case accessToken
    /// An OAuth 1 token and its secret (`access_token` + `oauth_token_secret`): twitter.com.
    case oauth1
    /// An authorization code that Firebase exchanges itself, with the client secret kept in
    /// the console: the provider's redirect URL (`requestUri`) and the flow's `sessionId`
    /// (microsoft.com, whose tokens Firebase cannot verify).
    case authorizationCode
  }

  /// How the provider's consent step uses a nonce, and so what Firebase is sent.
  public enum NonceRule: String, Hashable, Sendable, CaseIterable {
    /// No nonce at all: none in the authorization request, so the ID token has no `nonce`
    /// claim and Firebase is sent none (Google's code flow, protected by PKCE and `state`;
    /// access-token providers).
    case none
    /// A fresh raw nonce for every attempt: its SHA-256 in lowercase hex to the provider (the ID
    /// token's `nonce` claim), the raw value to Firebase with the ID token. Firebase checks the
    /// hash and refuses an (ID token, nonce) pair it has seen, so a credential with a nonce is
    /// sent once (Apple, and every other OpenID provider by default).
    case hashed

    /// Reads a rule, taking the spellings files used before the rule had two values:
    /// `optional` (a nonce Firebase was not sent) is `none`, `requiredSingleUse` is `hashed`.
    public init?(spelling: String) {
      switch spelling {
      case "none", "optional": self = .none
      case "hashed", "requiredSingleUse": self = .hashed
      default: return nil
      }
    }

    /// Every spelling a file may use, the current ones first.
    public static let spellings = ["none", "hashed", "optional", "requiredSingleUse"]
  }

  /// What to do when a link finds the account owned by another user.
  public enum ConflictRule: String, Hashable, Codable, Sendable, CaseIterable {
    /// Sign in to the owner with the updated credential the conflict response echoes.
    case signInWithUpdatedCredential
    /// Retry with the conflict response's `pendingToken` / `oauthIdToken` and no nonce; if that
    /// is refused (or there is nothing to retry with), ask the provider for a fresh authorization.
    case retryThenReauthorize
  }

  /// How the provider's grant is revoked when the account is deleted.
  public enum RevocationRule: String, Hashable, Codable, Sendable, CaseIterable {
    /// Nothing to revoke.
    case none
    /// The provider SDK disconnects (revokes its own grant) when it is signed out after deletion.
    case disconnectOnSignOut
    /// Before deletion, with a fresh authorization code (Firebase `accounts:revokeToken`).
    case authorizationCodeBeforeDeletion
  }

  /// Which token goes to Firebase.
  public var credential: CredentialKind
  /// The nonce rule.
  public var nonce: NonceRule
  /// What follows a link conflict.
  public var afterLinkConflict: ConflictRule
  /// What deleting the account revokes.
  public var revocation: RevocationRule
  /// Whether an SDK session (GoogleSignIn) must be signed out of when the user signs out.
  public var sdkSignOut: Bool
  /// Whether the provider gives the user's name only on the first authorization (Apple): the
  /// name is sent with that sign-in and kept in the session from then on, across
  /// reauthentication, relinking and other processes' writes.
  public var givesNameOnce: Bool

  /// Traits; the defaults fit a generic OpenID Connect provider (`oidc.<name>`): an ID token
  /// with a hashed, single-use nonce, and after a link conflict a retry with Firebase's pending
  /// token, then a fresh authorization (the echoed ID token carries the spent nonce's claim).
  public init(
    credential: CredentialKind = .idToken, nonce: NonceRule = .hashed,
    afterLinkConflict: ConflictRule = .retryThenReauthorize,
    revocation: RevocationRule = .none, sdkSignOut: Bool = false, givesNameOnce: Bool = false
  ) {
    self.credential = credential
    self.nonce = nonce
    self.afterLinkConflict = afterLinkConflict
    self.revocation = revocation
    self.sdkSignOut = sdkSignOut
    self.givesNameOnce = givesNameOnce
  }

}

/// The providers a machine knows. Google and Apple are built in; an app adds or replaces
/// entries. An id that is not listed gets the generic OpenID traits.
public struct ProviderCatalog: Hashable, Codable, Sendable {
  /// The entries, in the app's order of preference (the first is the default provider).
  public private(set) var entries: [Entry]

  /// One provider and its traits.
  public struct Entry: Hashable, Codable, Sendable {
    public var id: ProviderID
    public var traits: ProviderTraits

    public init(id: ProviderID, traits: ProviderTraits) {
      self.id = id
      self.traits = traits
    }
  }

  /// A catalog with these entries.
  public init(_ entries: [Entry]) { self.entries = entries }

  /// The traits of `id` (the generic OpenID traits when it is not listed).
  public subscript(id: ProviderID) -> ProviderTraits {
    for e in entries where e.id == id { return e.traits }
    return .openIDConnect
  }

  /// Whether `id` is listed.
  public func contains(_ id: ProviderID) -> Bool { entries.contains { $0.id == id } }

  /// Adds `id`, or replaces its traits.
  public mutating func set(_ id: ProviderID, _ traits: ProviderTraits) {
    if let i = entries.firstIndex(where: { $0.id == id }) {
      entries[i].traits = traits
    } else {
      entries.append(Entry(id: id, traits: traits))
    }
  }

  /// The provider that proves who the user of `session` is: the account's own sign-in
  /// provider (the first of its identity providers, listed here or not: an unlisted one has
  /// the generic traits), else the first listed provider.
  public func reauthenticationProvider(for session: Session) -> ProviderID? {
    let own = session.providers.filter { $0.isIdentityProvider }
    return own.first { contains($0) } ?? own.first ?? entries.first?.id
  }

  /// The listed providers of `session` whose SDK session must be signed out of.
  public func sdkProviders(of session: Session) -> [ProviderID] {
    var out: [ProviderID] = []
    for p in session.providers {
      let id = p
      if contains(id), self[id].sdkSignOut { out.append(id) }
    }
    return out
  }
}

/// What a provider's consent step returned: the tokens `signInWithIdp` sends, in the shape the
/// provider's traits say (`ProviderTraits.credential`).
///
/// A value with copy-on-write storage, so the phases that carry one stay small.
public struct IdPCredential: Hashable, Codable, Sendable {
  @usableFromInline struct Fields: Hashable, Codable, Sendable {
    @usableFromInline var provider: ProviderID
    @usableFromInline var idToken: String?
    @usableFromInline var accessToken: String?
    @usableFromInline var tokenSecret: String?
    @usableFromInline var rawNonce: String?
    @usableFromInline var pendingToken: String?
    @usableFromInline var authorizationCode: String?
    @usableFromInline var requestUri: String?
    @usableFromInline var sessionId: String?
    @usableFromInline var email: String?
    @usableFromInline var givenName: String?
    @usableFromInline var familyName: String?
  }

  @usableFromInline var storage: CopyOnWrite<Fields>

  /// Creates a credential.
  public init(
    provider: ProviderID, idToken: String? = nil, accessToken: String? = nil,
    tokenSecret: String? = nil, rawNonce: String? = nil, pendingToken: String? = nil,
    authorizationCode: String? = nil, requestUri: String? = nil, sessionId: String? = nil,
    email: String? = nil, givenName: String? = nil, familyName: String? = nil
  ) {
    storage = CopyOnWrite(
      Fields(
        provider: provider, idToken: idToken, accessToken: accessToken, tokenSecret: tokenSecret,
        rawNonce: rawNonce, pendingToken: pendingToken, authorizationCode: authorizationCode,
        requestUri: requestUri, sessionId: sessionId, email: email, givenName: givenName,
        familyName: familyName))
  }

  /// Which provider issued it.
  public var provider: ProviderID {
    @inlinable get { storage.value.provider }
    @inlinable _modify { yield &storage.value.provider }
  }
  /// The provider's ID token (credential shape `idToken`: Google, Apple, `oidc.*`).
  public var idToken: String? {
    @inlinable get { storage.value.idToken }
    @inlinable _modify { yield &storage.value.idToken }
  }
  /// The provider's access token (shape `accessToken`, all github.com sends; with `tokenSecret`,
  /// an OAuth 1 token).
  public var accessToken: String? {
    @inlinable get { storage.value.accessToken }
    @inlinable _modify { yield &storage.value.accessToken }
  }
  /// An OAuth 1 token's secret (shape `oauth1`: twitter.com), sent as `oauth_token_secret`.
  public var tokenSecret: String? {
    @inlinable get { storage.value.tokenSecret }
    @inlinable _modify { yield &storage.value.tokenSecret }
  }
  /// The raw nonce the ID token was made with (its SHA-256 went to the provider).
  public var rawNonce: String? {
    @inlinable get { storage.value.rawNonce }
    @inlinable _modify { yield &storage.value.rawNonce }
  }
  /// Firebase's `pendingToken` from a link conflict, to retry with.
  public var pendingToken: String? {
    @inlinable get { storage.value.pendingToken }
    @inlinable _modify { yield &storage.value.pendingToken }
  }
  /// A single-use authorization code: Apple's, for revocation.
  public var authorizationCode: String? {
    @inlinable get { storage.value.authorizationCode }
    @inlinable _modify { yield &storage.value.authorizationCode }
  }
  /// Shape `authorizationCode` (Firebase's hosted code flow, microsoft.com): the URL the
  /// provider redirected to, with its code, which Firebase exchanges (`requestUri`).
  public var requestUri: String? {
    @inlinable get { storage.value.requestUri }
    @inlinable _modify { yield &storage.value.requestUri }
  }
  /// The session id of that flow (`sessionId`), from `accounts:createAuthUri`.
  public var sessionId: String? {
    @inlinable get { storage.value.sessionId }
    @inlinable _modify { yield &storage.value.sessionId }
  }
  /// The account's email, when known.
  public var email: String? {
    @inlinable get { storage.value.email }
    @inlinable _modify { yield &storage.value.email }
  }
  /// The user's given name, which Apple gives only on the first authorization.
  public var givenName: String? {
    @inlinable get { storage.value.givenName }
    @inlinable _modify { yield &storage.value.givenName }
  }
  /// The user's family name, likewise.
  public var familyName: String? {
    @inlinable get { storage.value.familyName }
    @inlinable _modify { yield &storage.value.familyName }
  }
  /// The name to keep: given and family name joined, or `nil` when the provider gave none.
  public var fullName: String? {
    let parts = [givenName, familyName].compactMap { $0 }.filter { !$0.isEmpty }
    return parts.isEmpty ? nil : parts.joined(separator: " ")
  }
  /// Whether there is anything to send Firebase: an ID token, an access token, a pending token
  /// or a redirect to exchange (a conflict answer may carry none of them).
  public var hasToken: Bool {
    idToken != nil || accessToken != nil || pendingToken != nil || requestUri != nil
  }

  public init(from decoder: any Decoder) throws { storage = try CopyOnWrite(from: decoder) }
  public func encode(to encoder: any Encoder) throws { try storage.encode(to: encoder) }

  /// A Google credential, as the GoogleSignIn SDK or the OpenID code flow returns it.
  public static func google(idToken: String, accessToken: String? = nil, email: String? = nil)
    -> IdPCredential
  {
    IdPCredential(provider: .google, idToken: idToken, accessToken: accessToken, email: email)
  }
}

/// Why a provider's consent step is shown.
public enum AuthorizationIntent: String, Hashable, Codable, Sendable, CaseIterable {
  /// Sign in (nobody signed in, or signing in to the owner of a conflicting account).
  case signIn
  /// Link the provider to the current user (anonymous upgrade or permanent link).
  case link
  /// Prove again who the current user is.
  case reauthenticate
}

extension ProviderTraits.NonceRule: Codable {
  public init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    let text = try c.decode(String.self)
    guard let rule = Self(spelling: text) else {
      throw DecodingError.dataCorruptedError(
        in: c, debugDescription: "unknown nonce rule \(text)")
    }
    self = rule
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(rawValue)
  }
}

extension ProviderTraits: Codable {
  private enum CodingKeys: String, CodingKey {
    case credential, nonce, afterLinkConflict, revocation, sdkSignOut, givesNameOnce
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      credential: try c.decode(CredentialKind.self, forKey: .credential),
      nonce: try c.decode(NonceRule.self, forKey: .nonce),
      afterLinkConflict: try c.decode(ConflictRule.self, forKey: .afterLinkConflict),
      revocation: try c.decode(RevocationRule.self, forKey: .revocation),
      sdkSignOut: try c.decode(Bool.self, forKey: .sdkSignOut),
      // Traits written before the name trait existed.
      givesNameOnce: try c.decodeIfPresent(Bool.self, forKey: .givesNameOnce) ?? false)
  }
}
