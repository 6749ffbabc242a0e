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
enum Suggest {
  /// `did you mean "x"?` when a close name exists, else a list of the valid names.
  static func hint(for word: String, among names: [String]) -> String {
    if let best = nearest(word, among: names) { return "did you mean \"\(best)\"?" }
    return "expected one of: " + names.map { "\"\($0)\"" }.joined(separator: ", ")
  }

  /// The closest name within a distance that still looks like a typo. A word that is close to
  /// the start of a name counts too (`signInWithGogle` → `signInWithGoogleTapped`).
  static func nearest(_ word: String, among names: [String]) -> String? {
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

/// ISO 8601 times as scenario files write them.
enum ISOTime {
  /// Parses `2026-01-01T09:00:00Z` (fractional seconds and offsets allowed).
  static func parse(_ text: String) -> Instant? {
    let plain = ISO8601DateFormatter()
    if let d = plain.date(from: text) { return Instant(d.timeIntervalSince1970) }
    let fractional = ISO8601DateFormatter()
    fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let d = fractional.date(from: text) { return Instant(d.timeIntervalSince1970) }
    return nil
  }

  /// Formats an instant as `2026-01-01T09:00:00Z` (with milliseconds when not whole).
  static func format(_ instant: Instant) -> String {
    let f = ISO8601DateFormatter()
    if instant.seconds != instant.seconds.rounded() {
      f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    }
    return f.string(from: Date(timeIntervalSince1970: instant.seconds))
  }
}
