import AuthFlowCore

/// xoshiro256** (Blackman and Vigna), seeded through SplitMix64: the same seed gives the same
/// numbers on every platform and toolchain, unlike the standard library's generators.
public struct Xoshiro256: RandomNumberGenerator, Sendable {
  private var s: (UInt64, UInt64, UInt64, UInt64)

  /// A generator whose whole sequence is fixed by `seed`.
  public init(seed: UInt64) {
    var x = seed
    func splitMix() -> UInt64 {
      x &+= 0x9E37_79B9_7F4A_7C15
      var z = x
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    s = (splitMix(), splitMix(), splitMix(), splitMix())
  }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    let result = rotl(s.1 &* 5, 7) &* 9
    let t = s.1 << 17
    s.2 ^= s.0
    s.3 ^= s.1
    s.1 ^= s.2
    s.0 ^= s.3
    s.2 ^= t
    s.3 = rotl(s.3, 45)
    return result
  }

  private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

  /// A number in `0..<n` (n > 0), without modulo bias (Lemire's method).
  public mutating func below(_ n: Int) -> Int {
    precondition(n > 0)
    let bound = UInt64(n)
    var m = next().multipliedFullWidth(by: bound)
    if m.low < bound {
      let threshold = (0 &- bound) % bound
      while m.low < threshold { m = next().multipliedFullWidth(by: bound) }
    }
    return Int(m.high)
  }

  /// True with probability `p`.
  public mutating func chance(_ p: Double) -> Bool {
    Double(next() >> 11) * 0x1.0p-53 < p
  }

  /// One element of a non-empty array.
  public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
