import Testing

@testable import AuthFlowVerification

/// A thread's interner cache finds strings by their bytes first; whatever it finds must be the
/// shared interner's number for that text, or two equal states get different keys (explored
/// twice) or two different ones the same key (merged).
@Suite("The encoder's interner cache")
struct InternerCacheTests {
  @Test("each string gets the shared interner's number, whatever its bytes and however often")
  func cacheAgreesWithInterner() {
    let interner = Interner()
    var cache = InternerCache(interner)
    var strings: [String] = []
    for i in 0..<600 {
      strings.append("u\(i)")  // short: the characters are the bytes
      // Long, and built twice: the same text in two storages, whose bytes differ.
      strings.append(String(repeating: "token-", count: 3) + "\(i)")
      strings.append(["token-token-token-", "\(i)"].joined())
    }
    // The same text in two forms that compare equal (precomposed and decomposed).
    strings += ["caf\u{E9}", "cafe\u{301}", "", "\u{1}new0", "\u{1}new1"]
    var rng = Xoshiro256(seed: 20_261_207)
    for round in 0..<4 {
      // More strings than the table has slots, in a new order each round.
      for s in round == 0 ? strings : strings.shuffled(using: &rng) {
        let expected = interner.id(s)
        #expect(cache.id(s) == expected, "\(s.debugDescription)")
      }
    }
    #expect(cache.id("caf\u{E9}") == cache.id("cafe\u{301}"))
    #expect(cache.id("u1") != cache.id("u10"))
    #expect(interner.id("token-token-token-7") == cache.id("token-token-token-7"))
  }
}
