import AuthFlowHTTP
import Foundation

/// Time-based one-time passwords (RFC 6238) for the live tests: the code an authenticator app
/// shows for a shared secret, computed here so a test can finish a TOTP enrolment or sign-in
/// against the stand-in. Small and dependency-free: SHA-1 (FIPS 180-4), HMAC (RFC 2104) and
/// base32 (RFC 4648), each checked against its standard's test vectors in `TOTPTests`.
enum TOTP {
  enum Algorithm {
    case sha1, sha256

    func hash(_ bytes: [UInt8]) -> [UInt8] {
      switch self {
      case .sha1: SHA1.hash(bytes)
      case .sha256: SHA256.hash(bytes)
      }
    }
  }

  /// The code for `secret` at `time` (seconds since 1970): HOTP (RFC 4226) of the number of
  /// `period`s since the epoch, `digits` long with leading zeros.
  static func code(
    secret: [UInt8], at time: Double, digits: Int = 6, period: Double = 30,
    algorithm: Algorithm = .sha1
  ) -> String {
    let counter = UInt64((time / period).rounded(.down))
    let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * $0)) }
    let mac = hmac(key: secret, message: message, algorithm: algorithm)
    let offset = Int(mac[mac.count - 1] & 0x0F)
    let binary =
      (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16)
      | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
    var modulus: UInt32 = 1
    for _ in 0..<digits { modulus &*= 10 }
    let text = String(binary % modulus)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
  }

  /// The code for a base32 secret (Firebase's `sharedSecretKey`), or nil if it is not base32.
  static func code(base32Secret: String, at time: Double, digits: Int = 6) -> String? {
    Base32.decode(base32Secret).map { code(secret: $0, at: time, digits: digits) }
  }

  /// HMAC (RFC 2104) over a hash with 64-byte blocks.
  static func hmac(key: [UInt8], message: [UInt8], algorithm: Algorithm) -> [UInt8] {
    var k = key.count > 64 ? algorithm.hash(key) : key
    k += [UInt8](repeating: 0, count: 64 - k.count)
    let inner = algorithm.hash(k.map { $0 ^ 0x36 } + message)
    return algorithm.hash(k.map { $0 ^ 0x5C } + inner)
  }
}

/// SHA-1 (FIPS 180-4): only for HMAC-SHA1 in TOTP, as authenticator apps use it.
enum SHA1 {
  static func hash(_ message: [UInt8]) -> [UInt8] {
    var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
    var bytes = message
    let bitLength = UInt64(message.count) &* 8
    bytes.append(0x80)
    while bytes.count % 64 != 56 { bytes.append(0) }
    for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: bitLength >> (56 - 8 * i))) }
    var w = [UInt32](repeating: 0, count: 80)
    for block in stride(from: 0, to: bytes.count, by: 64) {
      for t in 0..<16 {
        let j = block + 4 * t
        w[t] =
          UInt32(bytes[j]) << 24 | UInt32(bytes[j + 1]) << 16 | UInt32(bytes[j + 2]) << 8
          | UInt32(bytes[j + 3])
      }
      for t in 16..<80 { w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1) }
      var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
      for t in 0..<80 {
        let f: UInt32
        let k: UInt32
        switch t {
        case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
        case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
        case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
        default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
        }
        let temp = rotl(a, 5) &+ f &+ e &+ k &+ w[t]
        (e, d, c, b, a) = (d, c, rotl(b, 30), a, temp)
      }
      h[0] &+= a
      h[1] &+= b
      h[2] &+= c
      h[3] &+= d
      h[4] &+= e
    }
    return h.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
  }

  private static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { (x << n) | (x >> (32 - n)) }
}

/// Base32 (RFC 4648, the alphabet A–Z 2–7), as TOTP secrets are written.
enum Base32 {
  /// The bytes of `text` (upper or lower case; padding and spaces ignored), or nil if a
  /// character is not base32 or bits are left over that are not zero padding.
  static func decode(_ text: String) -> [UInt8]? {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    var out: [UInt8] = []
    var buffer: UInt32 = 0
    var bits = 0
    for ch in text.uppercased() where ch != "=" && ch != " " {
      guard let value = alphabet.firstIndex(of: ch) else { return nil }
      buffer = (buffer << 5) | UInt32(value)
      bits += 5
      if bits >= 8 {
        bits -= 8
        out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
        buffer &= (1 << UInt32(bits)) - 1
      }
    }
    return buffer == 0 ? out : nil
  }
}
