/// SHA-256 (FIPS 180-4), small and dependency-free, for PKCE's S256 challenge.
public struct SHA256: Sendable {
  private var h: [UInt32] = [
    0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab,
    0x5be0_cd19,
  ]
  private var buffer: [UInt8] = []
  private var length: UInt64 = 0

  private static let k: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4,
    0xab1c_5ed5, 0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe,
    0x9bdc_06a7, 0xc19b_f174, 0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f,
    0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da, 0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7,
    0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967, 0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc,
    0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85, 0xa2bf_e8a1, 0xa81a_664b,
    0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070, 0x19a4_c116,
    0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7,
    0xc671_78f2,
  ]

  /// An empty hash.
  public init() {}

  /// The digest of `bytes`.
  public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
    var s = SHA256()
    s.update(bytes)
    return s.finalize()
  }

  /// Adds bytes.
  public mutating func update(_ bytes: some Sequence<UInt8>) {
    for b in bytes {
      buffer.append(b)
      length &+= 1
      if buffer.count == 64 {
        compress(buffer)
        buffer.removeAll(keepingCapacity: true)
      }
    }
  }

  /// The 32-byte digest.
  public mutating func finalize() -> [UInt8] {
    let bits = length &* 8
    var tail = buffer + [0x80]
    while tail.count % 64 != 56 { tail.append(0) }
    for i in (0..<8).reversed() { tail.append(UInt8(truncatingIfNeeded: bits >> (UInt64(i) * 8))) }
    for start in stride(from: 0, to: tail.count, by: 64) {
      compress(Array(tail[start..<start + 64]))
    }
    var out: [UInt8] = []
    for word in h {
      for i in (0..<4).reversed() { out.append(UInt8(truncatingIfNeeded: word >> (i * 8))) }
    }
    return out
  }

  private mutating func compress(_ block: [UInt8]) {
    var w = [UInt32](repeating: 0, count: 64)
    for i in 0..<16 {
      w[i] =
        UInt32(block[i * 4]) << 24 | UInt32(block[i * 4 + 1]) << 16 | UInt32(block[i * 4 + 2]) << 8
        | UInt32(block[i * 4 + 3])
    }
    for i in 16..<64 {
      let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
      let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
      w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
    }
    var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
    for i in 0..<64 {
      let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
      let ch = (e & f) ^ (~e & g)
      let t1 = hh &+ s1 &+ ch &+ Self.k[i] &+ w[i]
      let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
      let maj = (a & b) ^ (a & c) ^ (b & c)
      let t2 = s0 &+ maj
      (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
    }
    h[0] &+= a
    h[1] &+= b
    h[2] &+= c
    h[3] &+= d
    h[4] &+= e
    h[5] &+= f
    h[6] &+= g
    h[7] &+= hh
  }

  private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
}

/// Base64url without padding (RFC 4648 §5), as PKCE and JWTs use it.
public enum Base64URL {
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// Encodes bytes.
  public static func encode(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    var i = 0
    while i + 2 < bytes.count {
      let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
      out += [
        alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)],
        alphabet[Int(n & 63)],
      ]
      i += 3
    }
    if bytes.count - i == 1 {
      let n = UInt32(bytes[i]) << 16
      out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)]]
    } else if bytes.count - i == 2 {
      let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
      out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Decodes base64url (or standard base64), with or without padding; `nil` when malformed.
  public static func decode(_ text: String) -> [UInt8]? {
    var values: [UInt8] = []
    for c in text.utf8 {
      switch c {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): values.append(c - 65)
      case UInt8(ascii: "a")...UInt8(ascii: "z"): values.append(c - 71)
      case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(c + 4)
      case UInt8(ascii: "-"), UInt8(ascii: "+"): values.append(62)
      case UInt8(ascii: "_"), UInt8(ascii: "/"): values.append(63)
      case UInt8(ascii: "="): continue
      default: return nil
      }
    }
    if values.count % 4 == 1 { return nil }
    var out: [UInt8] = []
    var i = 0
    while i < values.count {
      let chunk = values[i..<min(i + 4, values.count)]
      var n: UInt32 = 0
      for (j, v) in chunk.enumerated() { n |= UInt32(v) << (18 - 6 * UInt32(j)) }
      out.append(UInt8(n >> 16 & 255))
      if chunk.count > 2 { out.append(UInt8(n >> 8 & 255)) }
      if chunk.count > 3 { out.append(UInt8(n & 255)) }
      i += 4
    }
    return out
  }
}

/// PKCE (RFC 7636) with the S256 method.
public struct PKCE: Sendable, Equatable {
  /// The secret the token request proves possession of: 43 characters of base64url.
  public let verifier: String
  /// BASE64URL(SHA256(verifier)).
  public var challenge: String { Self.challenge(for: verifier) }
  /// Always S256.
  public let method = "S256"

  /// A verifier from 32 random octets.
  public init<G: RandomNumberGenerator>(using generator: inout G) {
    verifier = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
  }

  /// A verifier from 32 bytes from the system's secure generator.
  public init() {
    var g = SystemRandomNumberGenerator()
    self.init(using: &g)
  }

  /// A given verifier (tests).
  public init(verifier: String) { self.verifier = verifier }

  /// The S256 challenge of a verifier.
  public static func challenge(for verifier: String) -> String {
    Base64URL.encode(SHA256.hash(Array(verifier.utf8)))
  }
}
