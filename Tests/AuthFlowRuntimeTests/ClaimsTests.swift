import AuthFlowCore
import AuthFlowRuntime
import Foundation
import Testing

@Suite("ID token claims, decoded and never verified")
struct ClaimsTests {
  static func token(_ payload: String) -> String {
    let b64 = Data(payload.utf8).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
    return "eyJhbGciOiJSUzI1NiJ9." + b64 + ".c2ln"
  }

  @Test("custom claims are the ones JWT and Firebase do not define, of every JSON type")
  func custom() throws {
    let idToken = Self.token(
      #"{"iss":"https://securetoken.google.com/p","aud":"p","sub":"u1","user_id":"u1","iat":1,"exp":2,"auth_time":1,"email":"m@example.com","email_verified":true,"firebase":{"sign_in_provider":"password"},"role":"editor","level":3,"beta":false,"teams":["a","b"],"quota":{"daily":10},"gone":null}"#
    )
    let claims = try #require(IDTokenClaims(idToken: idToken))
    #expect(
      claims.custom == [
        "role": .string("editor"), "level": .number(3), "beta": .bool(false),
        "teams": .array([.string("a"), .string("b")]), "quota": .object(["daily": .number(10)]),
        "gone": .null,
      ])
    #expect(claims["email_verified"] == .bool(true))
    #expect(claims["sub"] == .string("u1"))
    let session = Session(
      uid: "u1", anonymous: false, idToken: idToken, refreshToken: "r", expiresAt: Instant(2))
    #expect(session.claims?.custom["role"] == .string("editor"))
  }

  @Test("what is not a JWT with a JSON object inside has no claims, and does not trap")
  func notAToken() {
    for junk in [
      "", "id-u1", "a.b", "a.b.c.d", "x." + "%%%" + ".y", Self.token("[1,2]"), Self.token("nope"),
      "x." + String(repeating: "A", count: 70_000) + ".y",
    ] {
      #expect(IDTokenClaims(idToken: junk) == nil, "\(junk.prefix(20))")
    }
  }
}
