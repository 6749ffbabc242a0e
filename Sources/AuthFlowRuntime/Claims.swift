import AuthFlowCore
import Foundation

/// A claim's value, as the token's JSON has it.
public enum ClaimValue: Hashable, Sendable {
  case string(String)
  case number(Double)
  case bool(Bool)
  case array([ClaimValue])
  case object([String: ClaimValue])
  case null

  init(_ json: Any) {
    switch json {
    case let s as String: self = .string(s)
    case let n as NSNumber:
      // JSONSerialization reads `true` as an NSNumber of Objective-C type `c`.
      self = String(cString: n.objCType) == "c" ? .bool(n.boolValue) : .number(n.doubleValue)
    case let a as [Any]: self = .array(a.map(ClaimValue.init))
    case let o as [String: Any]: self = .object(o.mapValues(ClaimValue.init))
    default: self = .null
    }
  }
}

/// The claims of a Firebase ID token, decoded on the device and **never verified** here: they
/// say what the server put in the token, for showing and for choosing a screen, never for
/// granting anything (the backend verifies the token itself). Custom claims set by an admin
/// appear only in tokens minted after the change: refresh with `forceRefresh: true` to see them.
public struct IDTokenClaims: Hashable, Sendable {
  /// Every claim of the token's payload.
  public let all: [String: ClaimValue]

  /// The names JWT and Firebase themselves put in an ID token; everything else is custom.
  public static let standardNames: Set<String> = [
    "iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf",
    "auth_time", "firebase", "at_hash", "c_hash", "user_id", "email", "email_verified",
    "phone_number", "name", "picture", "provider_id",
  ]

  /// Decodes the payload of `idToken`; `nil` when it is not a JWT with a JSON object inside.
  /// Nothing is logged, and the token itself is not kept.
  public init?(idToken: String) {
    let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[1].count <= 65_536 else { return nil }
    var b64 = parts[1].replacingOccurrences(of: "-", with: "+")
      .replacingOccurrences(of: "_", with: "/")
    while b64.count % 4 != 0 { b64 += "=" }
    guard let data = Data(base64Encoded: b64),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { return nil }
    all = object.mapValues(ClaimValue.init)
  }

  /// The custom claims: an admin's (`customAttributes`) and a custom token's.
  public var custom: [String: ClaimValue] {
    all.filter { !Self.standardNames.contains($0.key) }
  }

  /// One claim.
  public subscript(name: String) -> ClaimValue? { all[name] }
}

extension Session {
  /// The claims of the current ID token (decoded, not verified: see `IDTokenClaims`).
  public var claims: IDTokenClaims? { IDTokenClaims(idToken: idToken) }
}
