import Foundation
import Testing

@Suite("TOTP for the live tests: SHA-1, HMAC, base32 and RFC 6238's vectors")
struct TOTPTests {
  func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

  @Test("SHA-1 (FIPS 180-4 examples)")
  func sha1() {
    #expect(hex(SHA1.hash([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    #expect(hex(SHA1.hash(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
    #expect(
      hex(SHA1.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
        == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    #expect(
      hex(SHA1.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
        == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
  }

  @Test("HMAC-SHA1 (RFC 2202 cases 1, 2 and 6)")
  func hmac() {
    #expect(
      hex(
        TOTP.hmac(
          key: [UInt8](repeating: 0x0B, count: 20), message: Array("Hi There".utf8),
          algorithm: .sha1))
        == "b617318655057264e28bc0b6fb378c8ef146be00")
    #expect(
      hex(
        TOTP.hmac(
          key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8),
          algorithm: .sha1)) == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
    #expect(
      hex(
        TOTP.hmac(
          key: [UInt8](repeating: 0xAA, count: 80),
          message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
          algorithm: .sha1)) == "aa4ae5e15272d00e95705637ce8a3b55ed402112")
  }

  @Test("base32 (RFC 4648 section 10); what is not base32 is nil")
  func base32() {
    let vectors = [
      ("", ""), ("MY======", "f"), ("MZXQ====", "fo"), ("MZXW6===", "foo"), ("MZXW6YQ=", "foob"),
      ("MZXW6YTB", "fooba"), ("MZXW6YTBOI======", "foobar"), ("mzxw6ytboi", "foobar"),
    ]
    for (text, plain) in vectors { #expect(Base32.decode(text) == Array(plain.utf8), "\(text)") }
    #expect(Base32.decode("MZXW6YTB1") == nil, "1 is not in the alphabet")
    #expect(Base32.decode("MZ!") == nil)
  }

  @Test("RFC 6238 appendix B: every SHA-1 and SHA-256 vector, eight digits")
  func rfc6238() {
    let sha1Key = Array("12345678901234567890".utf8)
    let sha256Key = Array("12345678901234567890123456789012".utf8)
    let vectors: [(Double, String, String)] = [
      (59, "94287082", "46119246"),
      (1_111_111_109, "07081804", "68084774"),
      (1_111_111_111, "14050471", "67062674"),
      (1_234_567_890, "89005924", "91819424"),
      (2_000_000_000, "69279037", "90698825"),
      (20_000_000_000, "65353130", "77737706"),
    ]
    for (time, sha1, sha256) in vectors {
      #expect(TOTP.code(secret: sha1Key, at: time, digits: 8) == sha1, "SHA-1 at \(time)")
      #expect(
        TOTP.code(secret: sha256Key, at: time, digits: 8, algorithm: .sha256) == sha256,
        "SHA-256 at \(time)")
    }
  }

  @Test("a base32 secret gives the six digits the stand-in accepts")
  func base32Secret() throws {
    // The RFC's SHA-1 key in base32, as Firebase hands out a sharedSecretKey.
    let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    #expect(TOTP.code(base32Secret: secret, at: 59, digits: 8) == "94287082")
    #expect(TOTP.code(base32Secret: secret, at: 59) == "287082")
    #expect(TOTP.code(base32Secret: "not base32!", at: 59) == nil)
    // The stand-in's own TOTP (Python's hmac and base32) agrees at another time and secret.
    let script =
      "import sys; sys.path.insert(0, sys.argv[1]); import firebase_standin as f; "
      + "print(f.totp('JBSWY3DPEHPK3PXP', 1111111111))"
    let support = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Support").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, support]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(out.trimmingCharacters(in: .whitespacesAndNewlines) == "358462")
    #expect(TOTP.code(base32Secret: "JBSWY3DPEHPK3PXP", at: 1_111_111_111) == "358462")
  }
}
