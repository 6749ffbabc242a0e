import AuthFlowCore
import Foundation

/// A provider besides Google that the app offers (`PROVIDERS` in the configuration): its
/// traits, and, for one that signs in with an OpenID ID token, the client and issuer its
/// consent step uses.
public struct ProviderSettings: Sendable, Equatable {
  /// Its Firebase provider id: `apple.com`, `oidc.<name>`, `microsoft.com`, any id.
  public var id: ProviderID
  /// The app's client id at that provider (`<P>_CLIENT_ID`; empty when it has none).
  public var clientID: String
  /// The OpenID issuer its endpoints are discovered from (`<P>_ISSUER`; empty for a provider
  /// without one, whose consent step the app supplies).
  public var issuer: String
  /// A desktop client's non-confidential secret, if the provider wants one (`<P>_CLIENT_SECRET`).
  public var clientSecret: String?
  /// Its traits: the built-in ones (or the generic OpenID ones), with what `<P>_CREDENTIAL`,
  /// `<P>_NONCE`, `<P>_AFTER_LINK_CONFLICT`, `<P>_REVOCATION`, `<P>_SDK_SIGN_OUT` and
  /// `<P>_GIVES_NAME_ONCE` say.
  public var traits: ProviderTraits

  public init(
    id: ProviderID, clientID: String, issuer: String, clientSecret: String? = nil,
    traits: ProviderTraits? = nil
  ) {
    self.id = id
    self.clientID = clientID
    self.issuer = issuer
    self.clientSecret = clientSecret
    self.traits = traits ?? ProviderCatalog.builtIn[id]
  }

  /// Whether its consent step is the OpenID code flow against `issuer` (an ID-token provider
  /// with an issuer), which `LoopbackConsent` and `flowrun --live` can run.
  public var usesOpenIDConsent: Bool { traits.credential == .idToken && !issuer.isEmpty }

  /// The trait settings, by key suffix.
  static let traitKeys = [
    "_CREDENTIAL", "_NONCE", "_AFTER_LINK_CONFLICT", "_REVOCATION", "_SDK_SIGN_OUT",
    "_GIVES_NAME_ONCE",
  ]

  /// The key prefix of a provider's settings: `apple.com` → `APPLE_COM`, `oidc.acme` →
  /// `OIDC_ACME`.
  public static func keyPrefix(_ id: ProviderID) -> String {
    String(id.rawValue.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
  }
}

/// What the HTTP interpreter needs to know about the app: Firebase's Web API key and project,
/// the Google OAuth client, and any other OpenID providers it offers.
public struct AuthConfiguration: Sendable, Equatable {
  /// Firebase Web API key (`API_KEY`).
  public var apiKey: String
  /// Firebase project id (`PROJECT_ID`).
  public var projectID: String?
  /// Google OAuth client id (`CLIENT_ID`).
  public var clientID: String
  /// Its reversed form, the iOS redirect scheme (`REVERSED_CLIENT_ID`).
  public var reversedClientID: String?
  /// Desktop clients' non-confidential secret, if any.
  public var clientSecret: String?
  /// The OpenID issuer to discover endpoints from (default Google's).
  public var issuer: String
  /// Other OpenID providers (Apple, `oidc.<name>`), from `PROVIDERS`.
  public var providers: [ProviderSettings]

  public init(
    apiKey: String, projectID: String? = nil, clientID: String, reversedClientID: String? = nil,
    clientSecret: String? = nil, issuer: String = "https://accounts.google.com",
    providers: [ProviderSettings] = []
  ) {
    self.providers = providers
    self.apiKey = apiKey
    self.projectID = projectID
    self.clientID = clientID
    self.reversedClientID = reversedClientID
    self.clientSecret = clientSecret
    self.issuer = issuer
  }

  /// The environment variables that override a file's values.
  public static let environmentKeys = [
    "AUTHFLOW_API_KEY": "API_KEY", "AUTHFLOW_PROJECT_ID": "PROJECT_ID",
    "AUTHFLOW_CLIENT_ID": "CLIENT_ID", "AUTHFLOW_CLIENT_SECRET": "CLIENT_SECRET",
    "AUTHFLOW_OIDC_ISSUER": "ISSUER",
  ]

  /// Reads `GoogleService-Info.plist` (or a JSON file with the same keys), then applies the
  /// `AUTHFLOW_*` environment overrides. An error names the file and every missing key.
  public static func load(
    path: String?, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(AuthError) -> AuthConfiguration {
    var values: [String: String] = [:]
    if let path {
      let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
      guard size <= 1 << 20 else {
        throw AuthError(
          code: "INVALID_CONFIGURATION",
          message: "\(path): \(size) bytes is too large for a configuration")
      }
      guard let data = FileManager.default.contents(atPath: path) else {
        throw AuthError(code: "INVALID_CONFIGURATION", message: "\(path): no such file")
      }
      let object: Any?
      if path.hasSuffix(".json") {
        object = try? JSONSerialization.jsonObject(with: data)
      } else {
        object = try? PropertyListSerialization.propertyList(from: data, format: nil)
      }
      guard let dict = object as? [String: Any] else {
        throw AuthError(
          code: "INVALID_CONFIGURATION",
          message: "\(path): not a property list or JSON object of strings")
      }
      for (k, v) in dict { if let s = v as? String { values[k] = s } }
    }
    for (variable, key) in environmentKeys.sorted(by: { $0.key < $1.key }) {
      if let v = environment[variable], !v.isEmpty { values[key] = v }
    }
    // AUTHFLOW_PROVIDERS and every AUTHFLOW_<P>_* setting of a provider.
    for (variable, v) in environment.sorted(by: { $0.key < $1.key })
    where variable.hasPrefix("AUTHFLOW_") && !v.isEmpty && environmentKeys[variable] == nil
      && (variable == "AUTHFLOW_PROVIDERS" || variable.hasSuffix("_CLIENT_ID")
        || variable.hasSuffix("_ISSUER") || variable.hasSuffix("_CLIENT_SECRET")
        || ProviderSettings.traitKeys.contains(where: variable.hasSuffix))
    {
      values[String(variable.dropFirst("AUTHFLOW_".count))] = v
    }
    for (key, value) in values.sorted(by: { $0.key < $1.key })
    where value.count > 4096 || value.contains(where: { $0.isNewline || $0 == "\0" }) {
      throw AuthError(
        code: "INVALID_CONFIGURATION",
        message: "\(key) is not a one-line value of at most 4096 characters")
    }
    func checkIssuer(_ key: String) throws(AuthError) {
      guard let issuer = values[key] else { return }
      guard let url = URL(string: issuer), url.scheme == "https" || url.scheme == "http",
        url.host != nil
      else {
        throw AuthError(
          code: "INVALID_CONFIGURATION", message: "\(key) is not an http(s) URL: \(issuer)")
      }
    }
    try checkIssuer("ISSUER")
    var providers: [ProviderSettings] = []
    let listed = (values["PROVIDERS"] ?? "").split(separator: ",").map {
      $0.trimmingCharacters(in: .whitespaces)
    }.filter { !$0.isEmpty }
    for name in listed {
      let id = ProviderID(name)
      guard name.contains("."), !name.contains(where: { $0.isWhitespace }) else {
        throw AuthError(
          code: "INVALID_CONFIGURATION",
          message: "PROVIDERS lists \(name): a provider id is Firebase's, with a dot "
            + "(apple.com, oidc.acme, microsoft.com)")
      }
      let prefix = ProviderSettings.keyPrefix(id)
      let traits = try Self.traits(of: id, prefix: prefix, values)
      // A provider that signs in with an OpenID ID token gets its consent step from its
      // issuer; any other (an access token, OAuth 1, Firebase's own code flow) from the app.
      let required =
        traits.credential == .idToken ? ["\(prefix)_CLIENT_ID", "\(prefix)_ISSUER"] : []
      let missing = required.filter { (values[$0] ?? "").isEmpty }
      guard missing.isEmpty else {
        throw AuthError(
          code: "INVALID_CONFIGURATION",
          message: "PROVIDERS lists \(name) but \(missing.joined(separator: " and ")) "
            + (missing.count == 1 ? "is" : "are") + " not set (in the file, or as AUTHFLOW_"
            + missing.joined(separator: " / AUTHFLOW_") + "); a provider without an OpenID "
            + "issuer sets \(prefix)_CREDENTIAL (accessToken, oauth1, authorizationCode) and "
            + "gets its consent step from the app")
      }
      if values["\(prefix)_ISSUER"] != nil { try checkIssuer("\(prefix)_ISSUER") }
      providers.append(
        ProviderSettings(
          id: id, clientID: values["\(prefix)_CLIENT_ID"] ?? "",
          issuer: values["\(prefix)_ISSUER"] ?? "",
          clientSecret: values["\(prefix)_CLIENT_SECRET"], traits: traits))
    }
    let missing = ["API_KEY", "CLIENT_ID"].filter { (values[$0] ?? "").isEmpty }
    guard missing.isEmpty else {
      let from = path.map { "\($0) and the environment" } ?? "the environment (no file given)"
      throw AuthError(
        code: "INVALID_CONFIGURATION",
        message: "\(from) lack \(missing.joined(separator: " and ")); set them in the file or as "
          + missing.map { key in "AUTHFLOW_" + (key == "API_KEY" ? "API_KEY" : "CLIENT_ID") }
          .joined(separator: " / "))
    }
    return AuthConfiguration(
      apiKey: values["API_KEY"] ?? "", projectID: values["PROJECT_ID"],
      clientID: values["CLIENT_ID"] ?? "",
      reversedClientID: values["REVERSED_CLIENT_ID"], clientSecret: values["CLIENT_SECRET"],
      issuer: values["ISSUER"] ?? "https://accounts.google.com", providers: providers)
  }

  /// A listed provider's traits: the built-in ones (or the generic OpenID ones), with each
  /// `<P>_<TRAIT>` setting applied; a value that is not one of the trait's is an error naming it.
  static func traits(of id: ProviderID, prefix: String, _ values: [String: String])
    throws(AuthError) -> ProviderTraits
  {
    var t = ProviderCatalog.builtIn[id]
    func read<E: RawRepresentable & CaseIterable>(_ suffix: String, _: E.Type) throws(AuthError)
      -> E? where E.RawValue == String
    {
      guard let text = values[prefix + suffix] else { return nil }
      guard let e = E(rawValue: text) else {
        throw AuthError(
          code: "INVALID_CONFIGURATION",
          message: "\(prefix + suffix) is \(text); one of "
            + E.allCases.map(\.rawValue).joined(separator: ", "))
      }
      return e
    }
    func flag(_ suffix: String) throws(AuthError) -> Bool? {
      guard let text = values[prefix + suffix] else { return nil }
      guard text == "true" || text == "false" else {
        throw AuthError(
          code: "INVALID_CONFIGURATION", message: "\(prefix + suffix) is \(text); true or false")
      }
      return text == "true"
    }
    if let v = try read("_CREDENTIAL", ProviderTraits.CredentialKind.self) { t.credential = v }
    if let text = values[prefix + "_NONCE"] {
      guard let v = ProviderTraits.NonceRule(spelling: text) else {
        throw AuthError(
          code: "INVALID_CONFIGURATION", message: "\(prefix)_NONCE is \(text); none or hashed")
      }
      t.nonce = v
    }
    if let v = try read("_AFTER_LINK_CONFLICT", ProviderTraits.ConflictRule.self) {
      t.afterLinkConflict = v
    }
    if let v = try read("_REVOCATION", ProviderTraits.RevocationRule.self) { t.revocation = v }
    if let v = try flag("_SDK_SIGN_OUT") { t.sdkSignOut = v }
    if let v = try flag("_GIVES_NAME_ONCE") { t.givesNameOnce = v }
    return t
  }
}
