// Providers are data, not code paths: an id plus traits. This file is the one place in the core
// that spells a provider id; transitions read traits only.

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

  /// Google (GoogleSignIn on iOS, the OpenID code flow elsewhere).
  public static let google: ProviderID = "google.com"
  /// Sign in with Apple.
  public static let apple: ProviderID = "apple.com"

  /// Whether this is an identity provider's id (`google.com`, `oidc.acme`), not one of
  /// Firebase's own ways in (`password`, `phone`, `anonymous`, `custom`), which have no dot.
  public var isIdentityProvider: Bool { rawValue.contains(".") }
}

/// What a provider's consent step hands over and how Firebase must be sent it.
public struct ProviderTraits: Hashable, Sendable {
  /// Which token `signInWithIdp` sends.
  public enum CredentialKind: String, Hashable, Codable, Sendable, CaseIterable {
    /// An OpenID ID token (plus an access token when there is one).
    case idToken
    /// An OAuth access token only (github.com).
    case accessToken
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

  /// Traits; the defaults fit a generic OpenID Connect provider (`oidc.<name>`): an ID token
  /// with a hashed, single-use nonce, and after a link conflict a retry with Firebase's pending
  /// token, then a fresh authorization (the echoed ID token carries the spent nonce's claim).
  public init(
    credential: CredentialKind = .idToken, nonce: NonceRule = .hashed,
    afterLinkConflict: ConflictRule = .retryThenReauthorize,
    revocation: RevocationRule = .none, sdkSignOut: Bool = false
  ) {
    self.credential = credential
    self.nonce = nonce
    self.afterLinkConflict = afterLinkConflict
    self.revocation = revocation
    self.sdkSignOut = sdkSignOut
  }

  /// Google: ID token (+ access token), no nonce (the code flow is protected by PKCE and
  /// `state`), the GoogleSignIn session signed out and disconnected on deletion.
  public static let google = ProviderTraits(
    credential: .idToken, nonce: .none, afterLinkConflict: .signInWithUpdatedCredential,
    revocation: .disconnectOnSignOut, sdkSignOut: true)
  /// Apple: ID token with a single-use nonce; a conflict retries with the pending token, then
  /// asks Apple again; deletion revokes with a fresh authorization code.
  public static let apple = ProviderTraits(
    credential: .idToken, nonce: .hashed, afterLinkConflict: .retryThenReauthorize,
    revocation: .authorizationCodeBeforeDeletion, sdkSignOut: false)
  /// A generic OpenID Connect provider (`oidc.<name>`): an ID token with a hashed nonce.
  public static let openIDConnect = ProviderTraits()
  /// An OAuth provider that hands over an access token only (github.com).
  public static let accessTokenOnly = ProviderTraits(
    credential: .accessToken, nonce: .none, afterLinkConflict: .signInWithUpdatedCredential)
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

  /// Google first, then Apple.
  public static let builtIn = ProviderCatalog([
    Entry(id: .google, traits: .google), Entry(id: .apple, traits: .apple),
  ])

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
    let own = session.providers.map { ProviderID($0) }.filter { $0.isIdentityProvider }
    return own.first { contains($0) } ?? own.first ?? entries.first?.id
  }

  /// The listed providers of `session` whose SDK session must be signed out of.
  public func sdkProviders(of session: Session) -> [ProviderID] {
    var out: [ProviderID] = []
    for p in session.providers {
      let id = ProviderID(p)
      if contains(id), self[id].sdkSignOut { out.append(id) }
    }
    return out
  }
}

/// What a provider's consent step returned: the tokens `signInWithIdp` sends.
///
/// A value with copy-on-write storage, so the phases that carry one stay small.
public struct IdPCredential: Hashable, Codable, Sendable {
  private final class Storage: Hashable, Codable, @unchecked Sendable {
    // Only mutated while uniquely referenced (see `storageForWriting`), so sharing is safe.
    @exclusivity(unchecked) var provider: ProviderID
    @exclusivity(unchecked) var idToken: String?
    @exclusivity(unchecked) var accessToken: String?
    @exclusivity(unchecked) var rawNonce: String?
    @exclusivity(unchecked) var pendingToken: String?
    @exclusivity(unchecked) var authorizationCode: String?
    @exclusivity(unchecked) var email: String?
    @exclusivity(unchecked) var givenName: String?
    @exclusivity(unchecked) var familyName: String?

    init(
      provider: ProviderID, idToken: String?, accessToken: String?, rawNonce: String?,
      pendingToken: String?, authorizationCode: String?, email: String?, givenName: String?,
      familyName: String?
    ) {
      self.provider = provider
      self.idToken = idToken
      self.accessToken = accessToken
      self.rawNonce = rawNonce
      self.pendingToken = pendingToken
      self.authorizationCode = authorizationCode
      self.email = email
      self.givenName = givenName
      self.familyName = familyName
    }

    func copy() -> Storage {
      Storage(
        provider: provider, idToken: idToken, accessToken: accessToken, rawNonce: rawNonce,
        pendingToken: pendingToken, authorizationCode: authorizationCode, email: email,
        givenName: givenName, familyName: familyName)
    }

    static func == (a: Storage, b: Storage) -> Bool {
      a === b
        || (a.provider == b.provider && a.idToken == b.idToken && a.accessToken == b.accessToken
          && a.rawNonce == b.rawNonce && a.pendingToken == b.pendingToken
          && a.authorizationCode == b.authorizationCode && a.email == b.email
          && a.givenName == b.givenName && a.familyName == b.familyName)
    }

    func hash(into h: inout Hasher) {
      h.combine(provider)
      h.combine(idToken)
      h.combine(accessToken)
      h.combine(rawNonce)
      h.combine(pendingToken)
      h.combine(authorizationCode)
      h.combine(email)
      h.combine(givenName)
      h.combine(familyName)
    }
  }

  private var storage: Storage

  private var storageForWriting: Storage {
    mutating get {
      if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
      return storage
    }
  }

  /// Creates a credential.
  public init(
    provider: ProviderID, idToken: String? = nil, accessToken: String? = nil,
    rawNonce: String? = nil, pendingToken: String? = nil, authorizationCode: String? = nil,
    email: String? = nil, givenName: String? = nil, familyName: String? = nil
  ) {
    storage = Storage(
      provider: provider, idToken: idToken, accessToken: accessToken, rawNonce: rawNonce,
      pendingToken: pendingToken, authorizationCode: authorizationCode, email: email,
      givenName: givenName, familyName: familyName)
  }

  /// Which provider issued it.
  public var provider: ProviderID {
    get { storage.provider }
    set { storageForWriting.provider = newValue }
  }
  /// The provider's ID token (required for Google, Apple and `oidc.*`).
  public var idToken: String? {
    get { storage.idToken }
    set { storageForWriting.idToken = newValue }
  }
  /// The provider's access token (all github.com sends).
  public var accessToken: String? {
    get { storage.accessToken }
    set { storageForWriting.accessToken = newValue }
  }
  /// The raw nonce the ID token was made with (its SHA-256 went to the provider).
  public var rawNonce: String? {
    get { storage.rawNonce }
    set { storageForWriting.rawNonce = newValue }
  }
  /// Firebase's `pendingToken` from a link conflict, to retry with.
  public var pendingToken: String? {
    get { storage.pendingToken }
    set { storageForWriting.pendingToken = newValue }
  }
  /// Apple's single-use authorization code (for revocation).
  public var authorizationCode: String? {
    get { storage.authorizationCode }
    set { storageForWriting.authorizationCode = newValue }
  }
  /// The account's email, when known.
  public var email: String? {
    get { storage.email }
    set { storageForWriting.email = newValue }
  }
  /// The user's given name, which Apple gives only on the first authorization.
  public var givenName: String? {
    get { storage.givenName }
    set { storageForWriting.givenName = newValue }
  }
  /// The user's family name, likewise.
  public var familyName: String? {
    get { storage.familyName }
    set { storageForWriting.familyName = newValue }
  }
  /// The name to keep: given and family name joined, or `nil` when the provider gave none.
  public var fullName: String? {
    let parts = [givenName, familyName].compactMap { $0 }.filter { !$0.isEmpty }
    return parts.isEmpty ? nil : parts.joined(separator: " ")
  }
  /// Whether there is anything to send Firebase: an ID token, an access token or a pending
  /// token (a conflict answer may carry none of them).
  public var hasToken: Bool { idToken != nil || accessToken != nil || pendingToken != nil }

  public static func == (a: IdPCredential, b: IdPCredential) -> Bool { a.storage == b.storage }
  public func hash(into hasher: inout Hasher) { storage.hash(into: &hasher) }

  public init(from decoder: any Decoder) throws { storage = try Storage(from: decoder) }
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

extension ProviderTraits: Codable {}
