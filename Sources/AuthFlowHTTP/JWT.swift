import Foundation

/// The claims of a JWT, decoded without verifying its signature: for reading what a server
/// already decided (uid, providers), never for deciding anything.
public struct JWTClaims: @unchecked Sendable {
  /// The payload as JSON.
  public let payload: [String: Any]

  /// Decodes the middle segment of `token`; `nil` when it is not a JWT.
  public init?(_ token: String) {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let bytes = Base64URL.decode(String(parts[1])),
      let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    else { return nil }
    payload = object
  }

  public subscript(key: String) -> Any? { payload[key] }
  public func string(_ key: String) -> String? { payload[key] as? String }
  public func number(_ key: String) -> Double? {
    (payload[key] as? NSNumber)?.doubleValue ?? (payload[key] as? String).flatMap(Double.init)
  }

  /// `aud` as a list (it may be a string or an array).
  public var audiences: [String] {
    if let s = payload["aud"] as? String { return [s] }
    return payload["aud"] as? [String] ?? []
  }

  /// Firebase: `firebase.sign_in_provider`.
  public var signInProvider: String? {
    (payload["firebase"] as? [String: Any])?["sign_in_provider"] as? String
  }

  /// Firebase: the providers `firebase.identities` names. Every account with an email has an
  /// `email` identity, so it stands for the password only when the password was the way in
  /// (`sign_in_provider`); `accounts:lookup` is what says for sure.
  public var identityProviders: [String] {
    let identities = (payload["firebase"] as? [String: Any])?["identities"] as? [String: Any] ?? [:]
    let password = signInProvider == "password"
    return identities.keys.compactMap { $0 == "email" ? (password ? "password" : nil) : $0 }
      .sorted()
  }
}
