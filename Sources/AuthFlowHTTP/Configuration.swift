import AuthFlowCore
import Foundation

/// What the HTTP interpreter needs to know about the app: Firebase's Web API key and project,
/// and the Google OAuth client.
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

  public init(
    apiKey: String, projectID: String? = nil, clientID: String, reversedClientID: String? = nil,
    clientSecret: String? = nil, issuer: String = "https://accounts.google.com"
  ) {
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
    for (key, value) in values.sorted(by: { $0.key < $1.key })
    where value.count > 4096 || value.contains(where: { $0.isNewline || $0 == "\0" }) {
      throw AuthError(
        code: "INVALID_CONFIGURATION",
        message: "\(key) is not a one-line value of at most 4096 characters")
    }
    if let issuer = values["ISSUER"] {
      guard let url = URL(string: issuer), url.scheme == "https" || url.scheme == "http",
        url.host != nil
      else {
        throw AuthError(
          code: "INVALID_CONFIGURATION", message: "ISSUER is not an http(s) URL: \(issuer)")
      }
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
      issuer: values["ISSUER"] ?? "https://accounts.google.com")
  }
}
