// The built-in catalog: the providers AuthFlow knows without being told, as data. Every other
// provider is declared the same way, by its traits alone (`Policy.providers.set(_:_:)` in Swift,
// `config.providers` in a scenario file, `PROVIDERS` in the configuration), with no edit here.

extension ProviderID {
  /// Google (GoogleSignIn on iOS, the OpenID code flow elsewhere).
  public static let google: ProviderID = "google.com"
  /// Sign in with Apple.
  public static let apple: ProviderID = "apple.com"
  /// GitHub (an access token, from the app's own consent step).
  public static let github: ProviderID = "github.com"
  /// Firebase's phone-number provider: not a provider with a consent step (a texted code signs
  /// in), named where a phone number's account is meant.
  public static let phone: ProviderID = "phone"

  /// Whether this provider keeps its own names in scenario files and states
  /// (`signInWithGoogleTapped`, `linkGoogleTapped`, `authorizeWithGoogle`,
  /// `googleAuthenticated`): Google, the first provider AuthFlow had. Every other provider uses
  /// the generic names.
  public var hasGoogleSpellings: Bool { self == .google }
}

extension ProviderTraits {
  /// Google: ID token (+ access token), no nonce (the code flow is protected by PKCE and
  /// `state`), the GoogleSignIn session signed out and disconnected on deletion.
  public static let google = ProviderTraits(
    credential: .idToken, nonce: .none, afterLinkConflict: .signInWithUpdatedCredential,
    revocation: .disconnectOnSignOut, sdkSignOut: true)
  /// Apple: ID token with a single-use nonce; a conflict retries with the pending token, then
  /// asks Apple again; deletion revokes with a fresh authorization code.
  public static let apple = ProviderTraits(
    credential: .idToken, nonce: .hashed, afterLinkConflict: .retryThenReauthorize,
    revocation: .authorizationCodeBeforeDeletion, sdkSignOut: false, givesNameOnce: true)
  /// A generic OpenID Connect provider (`oidc.<name>`): an ID token with a hashed nonce.
  public static let openIDConnect = ProviderTraits()
  /// An OAuth provider that hands over an access token only (github.com).
  public static let accessTokenOnly = ProviderTraits(
    credential: .accessToken, nonce: .none, afterLinkConflict: .signInWithUpdatedCredential)
}

extension ProviderCatalog {
  /// Google first, then Apple and GitHub; an id that is not listed gets the generic OpenID
  /// traits (`ProviderTraits.openIDConnect`).
  public static let builtIn = ProviderCatalog([
    Entry(id: .google, traits: .google), Entry(id: .apple, traits: .apple),
    Entry(id: .github, traits: .accessTokenOnly),
  ])
}
