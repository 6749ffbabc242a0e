import AuthFlowScenarios
import AuthFlowVerification
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A seeded fuzzer: case `i` of a run draws everything from `Xoshiro256(seed: seed ⊕ i)`, so a
/// seed and a case number are enough to replay one input. A crash (a trap, a bad access) prints
/// the replay command before the process dies; a hang (one case over 20 s) does the same; any
/// other failure is recorded with the seed, the case and the input written to a file.
///
/// Budgets: `AUTHFLOW_FUZZ_CASES=n` runs n cases of every fuzzer (the default is a small budget
/// for `swift test`); `AUTHFLOW_FUZZ_SEED=s` changes the master seed; with
/// `AUTHFLOW_FUZZ_CASE=i` only case i runs, and its input is written to a file first.
struct Fuzzer {
  let name: String
  let filter: String
  let cases: Int
  let seed: UInt64
  let only: Int?

  /// A fuzzer with `defaultCases` cases unless the environment says otherwise.
  init(_ name: String, filter: String, defaultCases: Int) {
    let env = ProcessInfo.processInfo.environment
    self.name = name
    self.filter = filter
    cases = env["AUTHFLOW_FUZZ_CASES"].flatMap(Int.init).map { max(1, $0) } ?? defaultCases
    seed = env["AUTHFLOW_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0xF022_5EED_A17F_1000
    only = env["AUTHFLOW_FUZZ_CASE"].flatMap(Int.init)
  }

  /// The generator of case `i`.
  func rng(_ i: Int) -> Xoshiro256 { Xoshiro256(seed: seed ^ (UInt64(i) &* 0x9E37_79B9_7F4A_7C15)) }

  func replay(_ i: Int) -> String {
    "AUTHFLOW_FUZZ_SEED=\(seed) AUTHFLOW_FUZZ_CASE=\(i) swift test --filter \(filter)"
  }

  /// Runs the cases. `input` makes case i's input (bytes, text); `check` runs it and returns a
  /// problem, or nil when all is well. Returns how many cases ran.
  @discardableResult
  func run<Input>(
    input: (inout Xoshiro256, Int) -> Input, describe: (Input) -> [UInt8],
    check: (Input) async throws -> String?
  ) async -> Int {
    CrashReport.install()
    let range = only.map { $0...$0 } ?? 0...(cases - 1)
    var ran = 0
    for i in range {
      var g = rng(i)
      let value = input(&g, i)
      if only != nil {
        let file = write(describe(value), case: i)
        print("fuzz \(name): case \(i) input written to \(file)")
      }
      CrashReport.arm(
        "\nfuzz \(name): case \(i) of seed \(seed) crashed or hung; replay: \(replay(i))\n")
      let problem: String?
      do {
        problem = try await check(value)
      } catch {
        problem = "threw \(error)"
      }
      CrashReport.disarm()
      ran += 1
      if let problem {
        let file = write(describe(value), case: i)
        Issue.record(
          "fuzz \(name): case \(i) of seed \(seed): \(problem)\n  input: \(file)\n  replay: \(replay(i))"
        )
        return ran
      }
    }
    return ran
  }

  /// Writes an input to a file in the temporary directory and returns its path.
  func write(_ bytes: [UInt8], case i: Int) -> String {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("authflow-fuzz-\(UUID())")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let path = folder.appendingPathComponent("\(name)-\(seed)-\(i).bin").path
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    return path
  }
}

/// What is printed if the process dies during a case: armed before the case, cleared after.
/// The fuzz suites run one at a time (`.serialized`), so one message is enough.
enum CrashReport {
  nonisolated(unsafe) static var buffer = UnsafeMutablePointer<CChar>.allocate(capacity: 4096)
  nonisolated(unsafe) static var length = 0
  nonisolated(unsafe) static var armedAt = 0.0
  nonisolated(unsafe) static var installed = false
  static let lock = NSLock()

  static func arm(_ message: String) {
    let bytes = Array(message.utf8.prefix(4095))
    bytes.withUnsafeBufferPointer { p in
      p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
        buffer.update(from: $0, count: bytes.count)
      }
    }
    length = bytes.count
    armedAt = Date().timeIntervalSince1970
  }

  static func disarm() {
    length = 0
    armedAt = 0
  }

  static func install() {
    lock.withLock {
      guard !installed else { return }
      installed = true
      for sig in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT] {
        signal(sig) { sig in
          if CrashReport.length > 0 { _ = write(2, CrashReport.buffer, CrashReport.length) }
          signal(sig, SIG_DFL)
          raise(sig)
        }
      }
      // A watchdog for hangs: a case that runs longer than 20 s is reported and ends the run.
      Thread.detachNewThread {
        while true {
          sleep(1)
          let at = CrashReport.armedAt
          if at > 0, Date().timeIntervalSince1970 - at > 20, CrashReport.length > 0 {
            _ = write(2, CrashReport.buffer, CrashReport.length)
            let note = "fuzz: that case has run for more than 20 s (a hang)\n"
            _ = note.withCString { write(2, $0, strlen($0)) }
            abort()
          }
        }
      }
    }
  }
}

/// Mutations: byte-level (for parsers of text) and JSON-aware (for inputs that must mostly
/// parse to reach the code behind the parser).
enum Mutate {
  /// Values that break naive code: huge, negative, non-finite-looking, overflowing, empty.
  static let numbers: [Double] = [
    0, -1, 1, 99_999_999_999, 1e300, -1e300, 1e-300, 9.223_372_036_854_776e18, 4_294_967_296,
    253_402_300_800, 3_155_760_001, 0.5, -0.0,
  ]
  static let strings: [String] = [
    "", " ", "NaN", "Infinity", "-1", "1e999", "99999999999", "\u{0}", "\u{FFFD}", "é",
    String(repeating: "a", count: 5000), "$x", "$$x", "2026-02-30T09:00:00Z", "null", "{}",
    "google.com", "apple.com", "oidc.", "\"", "\\",
  ]
  static let tokens: [String] = [
    "1e300", "-1", "99999999999", "NaN", "null", "true", "\"", "{", "}", "[", "]", ",", ":",
    "\\u0000", "\\ud800", "9223372036854775808", "1e-400", "-0", "\u{FF}", "\"expiresIn\"",
    "\"$schema\"",
  ]

  /// Up to four byte edits.
  static func bytes(_ input: [UInt8], _ g: inout Xoshiro256) -> [UInt8] {
    var b = input
    for _ in 0..<(1 + g.below(4)) {
      switch g.below(7) {
      case 0 where !b.isEmpty:
        let i = g.below(b.count)
        b[i] ^= UInt8(1 << g.below(8))
      case 1 where !b.isEmpty:
        b[g.below(b.count)] = UInt8(truncatingIfNeeded: g.next())
      case 2:
        let junk = (0..<(1 + g.below(16))).map { _ in UInt8(truncatingIfNeeded: g.next()) }
        b.insert(contentsOf: junk, at: g.below(b.count + 1))
      case 3 where !b.isEmpty:
        let i = g.below(b.count)
        b.removeSubrange(i..<min(b.count, i + 1 + g.below(32)))
      case 4 where !b.isEmpty:
        let i = g.below(b.count)
        let chunk = b[i..<min(b.count, i + 1 + g.below(64))]
        b.insert(contentsOf: chunk, at: g.below(b.count + 1))
      case 5:
        b.insert(contentsOf: Array(g.pick(tokens).utf8), at: g.below(b.count + 1))
      default:
        b.insert(contentsOf: [0xC3, 0x28, 0xFF, 0xFE], at: g.below(b.count + 1))
      }
    }
    return b
  }

  /// Up to three edits of a JSON tree: a number or string replaced by a hostile one, a key
  /// dropped or added, a value given another type, an array item dropped or duplicated.
  static func json(_ value: JSONValue, _ g: inout Xoshiro256) -> JSONValue {
    var v = value
    for _ in 0..<(1 + g.below(3)) { v = edit(v, &g, depth: 0) }
    return v
  }

  private static func edit(_ value: JSONValue, _ g: inout Xoshiro256, depth: Int) -> JSONValue {
    // Descend most of the time, so deep fields are reached.
    switch value {
    case .object(var members) where !members.isEmpty && (depth < 12 && g.chance(0.8)):
      let i = g.below(members.count)
      switch g.below(10) {
      case 0: members.remove(at: i)
      case 1: members.append((g.pick(members).key + (g.chance(0.5) ? "" : "x"), leaf(&g)))
      default: members[i].value = edit(members[i].value, &g, depth: depth + 1)
      }
      return .object(members)
    case .array(var items) where !items.isEmpty && (depth < 12 && g.chance(0.8)):
      let i = g.below(items.count)
      switch g.below(10) {
      case 0: items.remove(at: i)
      case 1: items.insert(items[i], at: i)
      default: items[i] = edit(items[i], &g, depth: depth + 1)
      }
      return .array(items)
    default:
      return leaf(&g)
    }
  }

  static func leaf(_ g: inout Xoshiro256) -> JSONValue {
    switch g.below(8) {
    case 0, 1, 2: return .number(g.pick(numbers))
    case 3, 4: return .string(g.pick(strings))
    case 5: return .null
    case 6: return .bool(g.chance(0.5))
    default: return g.chance(0.5) ? .object([]) : .array([])
    }
  }
}

/// Where the repository is, from this file.
enum FuzzPaths {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let scenarios = root.appendingPathComponent("Scenarios").path
  static let broken = root.appendingPathComponent("Tests/AuthFlowScenariosTests/Broken").path
}
