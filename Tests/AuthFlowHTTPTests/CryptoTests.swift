import AuthFlowHTTP
import Foundation
import Testing

@Suite("SHA-256, base64url and PKCE")
struct CryptoTests {
  func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

  @Test(
    "NIST test vectors",
    arguments: [
      ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
      ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
      (
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
      ),
      (
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
      ),
    ])
  func nist(message: String, digest: String) {
    #expect(hex(SHA256.hash(Array(message.utf8))) == digest)
  }

  @Test("a million 'a's, fed in uneven pieces")
  func million() {
    var h = SHA256()
    var left = 1_000_000
    var piece = 1
    while left > 0 {
      let n = min(piece, left)
      h.update([UInt8](repeating: UInt8(ascii: "a"), count: n))
      left -= n
      piece = piece * 3 % 997 + 1
    }
    #expect(hex(h.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  @Test("RFC 7636 appendix B: verifier to S256 challenge")
  func rfc7636() {
    let octets: [UInt8] = [
      116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77,
      105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
    ]
    let verifier = Base64URL.encode(octets)
    #expect(verifier == "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
    #expect(PKCE(verifier: verifier).challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
  }

  @Test("a fresh verifier is 43 base64url characters; base64url round-trips")
  func verifier() {
    let v = PKCE().verifier
    #expect(v.count == 43)
    #expect(v.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
    for n in 0..<40 {
      let bytes = (0..<n).map { UInt8(($0 * 37 + n) % 256) }
      #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
    }
    #expect(Base64URL.decode("a") == nil)
    #expect(Base64URL.decode("ab$c") == nil)
  }
}
