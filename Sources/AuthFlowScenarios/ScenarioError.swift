import AuthFlowCore
import Foundation

/// Why a scenario file could not be used, with where and what to do.
public struct ScenarioError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What kind of problem it is; decides `flowrun`'s exit code.
  public enum Kind: Equatable, Sendable {
    /// The file does not exist or cannot be read (exit 66).
    case unreadable
    /// The text is not JSON (exit 65), at 1-based line and column.
    case syntax(line: Int, column: Int)
    /// The JSON does not fit the format (exit 65), at a JSON path.
    case invalid(path: String)
  }

  /// The file's path as given.
  public var file: String
  /// The kind and location.
  public var kind: Kind
  /// What is wrong and how to fix it.
  public var message: String

  /// Creates an error.
  public init(file: String, kind: Kind, message: String) {
    self.file = file
    self.kind = kind
    self.message = message
  }

  public var description: String {
    switch kind {
    case .unreadable: "\(file): \(message)"
    case .syntax(let line, let column): "\(file):\(line):\(column): \(message)"
    case .invalid(let path): "\(file): \(path.isEmpty ? "(top level)" : path): \(message)"
    }
  }
}

/// Suggests the nearest known name for a misspelt one.
public enum Suggest {
  /// `did you mean "x"?` when a close name exists, else a list of the valid names.
  static func hint(for word: String, among names: [String]) -> String {
    let meant = meanings(of: word, among: names)
    if !meant.isEmpty {
      return "did you mean " + meant.map { "\"\($0)\"" }.joined(separator: " or ") + "?"
    }
    if let best = nearest(word, among: names) { return "did you mean \"\(best)\"?" }
    return "expected one of: " + names.map { "\"\($0)\"" }.joined(separator: ", ")
  }

  /// Words people use for a name that is spelt otherwise (`signedIn`, `loggedOut`), and names
  /// that contain the word whole (`authenticated` → the three `…Authenticated` states).
  static func meanings(of word: String, among names: [String]) -> [String] {
    let synonyms: [String: [String]] = [
      "signedin": ["firebaseAuthenticated", "anonymous"],
      "loggedin": ["firebaseAuthenticated", "anonymous"],
      "authenticated": ["firebaseAuthenticated"],
      "permanent": ["firebaseAuthenticated"],
      "loggedout": ["signedOut"], "signedoff": ["signedOut"],
      "anonymoususer": ["anonymous"], "signedinanonymously": ["anonymous"],
    ]
    let lower = word.lowercased()
    if let list = synonyms[lower] {
      let known = list.filter(names.contains)
      if !known.isEmpty { return known }
    }
    guard lower.count >= 5 else { return [] }
    let containing = names.filter { $0.lowercased().contains(lower) && $0.lowercased() != lower }
    return containing.count <= 3 ? containing : []
  }

  /// The closest name within a distance that still looks like a typo. A word that is close to
  /// the start of a name counts too (`signInWithGogle` → `signInWithGoogleTapped`).
  public static func nearest(_ word: String, among names: [String]) -> String? {
    let lower = word.lowercased()
    var best: (name: String, score: Int)? = nil
    for name in names {
      let candidate = name.lowercased()
      var score = distance(lower, candidate)
      for k in max(1, lower.count - 1)...(lower.count + 2) where k < candidate.count {
        score = min(score, distance(lower, String(candidate.prefix(k))) + 1)
      }
      if score < (best?.score ?? Int.max) { best = (name, score) }
    }
    guard let best, best.score <= max(2, min(word.count, best.name.count) * 2 / 5) else {
      return nil
    }
    return best.name
  }

  /// Levenshtein distance.
  static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
      }
      swap(&previous, &current)
    }
    return previous[b.count]
  }
}

/// ISO 8601 times as scenario files write them, in UTC; pure arithmetic (no formatter objects,
/// which cost more to create than a whole scenario step).
enum ISOTime {
  /// Parses `2026-01-01T09:00:00Z`, with optional fractional seconds and a `±HH:MM` offset.
  static func parse(_ text: String) -> Instant? {
    let c = Array(text.utf8)
    func digits(_ at: Int, _ n: Int) -> Int? {
      guard at + n <= c.count else { return nil }
      var v = 0
      for i in at..<(at + n) {
        guard c[i] >= 48, c[i] <= 57 else { return nil }
        v = v * 10 + Int(c[i] - 48)
      }
      return v
    }
    guard c.count >= 20, c[4] == UInt8(ascii: "-"), c[7] == UInt8(ascii: "-"),
      c[10] == UInt8(ascii: "T") || c[10] == UInt8(ascii: "t"), c[13] == UInt8(ascii: ":"),
      c[16] == UInt8(ascii: ":"), let year = digits(0, 4), let month = digits(5, 2),
      let day = digits(8, 2), let hour = digits(11, 2), let minute = digits(14, 2),
      let second = digits(17, 2), (1...12).contains(month), (1...31).contains(day), hour < 24,
      minute < 60, second < 61
    else { return nil }
    var i = 19
    var fraction = 0.0
    if c[i] == UInt8(ascii: ".") {
      i += 1
      var scale = 0.1
      let start = i
      while i < c.count, c[i] >= 48, c[i] <= 57 {
        fraction += Double(c[i] - 48) * scale
        scale /= 10
        i += 1
      }
      if i == start { return nil }
    }
    var offset = 0
    guard i < c.count else { return nil }
    switch c[i] {
    case UInt8(ascii: "Z"), UInt8(ascii: "z"):
      i += 1
    case UInt8(ascii: "+"), UInt8(ascii: "-"):
      guard let h = digits(i + 1, 2), i + 3 < c.count, c[i + 3] == UInt8(ascii: ":"),
        let m = digits(i + 4, 2)
      else { return nil }
      offset = (h * 3600 + m * 60) * (c[i] == UInt8(ascii: "-") ? -1 : 1)
      i += 6
    default:
      return nil
    }
    guard i == c.count else { return nil }
    // 30 February and 31 April are not dates: a file that says so is wrong, not "2 March".
    let days = daysFromCivil(year, month, day)
    guard civilFromDays(days) == (year, month, day) else { return nil }
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
    return Instant(Double(seconds) + fraction)
  }

  /// Formats an instant as `2026-01-01T09:00:00Z` (with milliseconds when not whole).
  static func format(_ instant: Instant) -> String {
    // Total: anything outside the years 1 to 9999 (or not a number) is shown as its seconds.
    guard instant.seconds.isFinite, abs(instant.seconds) <= Instant.latest.seconds else {
      return "\(instant.seconds) s since 1970"
    }
    let total = instant.seconds.rounded(.down)
    var millis = Int(((instant.seconds - total) * 1000).rounded())
    var whole = Int(total)
    if millis == 1000 {
      whole += 1
      millis = 0
    }
    let days = Int((Double(whole) / 86_400).rounded(.down))
    let rest = whole - days * 86_400
    let (y, m, d) = civilFromDays(days)
    func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
    var out =
      "\(y)-\(two(m))-\(two(d))T\(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60))"
    if millis != 0 {
      let ms = String(millis)
      out += "." + String(repeating: "0", count: 3 - ms.count) + ms
    }
    return out + "Z"
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
  static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// The date of a day count since 1970-01-01.
  static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
  }
}
