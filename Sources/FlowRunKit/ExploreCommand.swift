import AuthFlowCore
import AuthFlowScenarios
import AuthFlowVerification
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension FlowRun {
  static let exploreHelp = """
    OVERVIEW: Run random event sequences on concrete time and check the invariants.

    The property-testing search: sequences of up to --length events (intents, answers of every
    kind, time steps, stray timers, relaunches, sometimes losing the last write), mostly what a
    user would do next so long flows are reached, each under a drawn policy (every migration
    policy; half the sequences also draw the margin, backoff and throttled delays). Times are
    concrete, so it checks what the exhaustive `check` cannot see: when timers are set, how
    long retries wait, tokens handed out near expiry, long sequences. A failing sequence is
    shrunk to a short one, printed, and written as a scenario file.

    USAGE: flowrun explore [--sequences <n>] [--length <n>] [--seed <n>] [--replay <seed>] \
    [--counterexamples <dir>] [--format <format>]

    OPTIONS:
      --sequences <n>         How many sequences (default: 10000).
      --length <n>            The longest sequence, in events (default: 60).
      --seed <n>              The master seed (default: a fresh one each run, printed).
      --replay <seed>         Run only the sequence with this seed (as a failure prints it).
      --counterexamples <dir> Where a failure is written as a scenario file (default: a new
                              folder in the system's temporary directory, named in the output).
      --format <format>       text or json (default: text).
      -h, --help              Show help information.

    Exit 0 when every invariant held, 1 when one broke.

    EXAMPLES:
      flowrun explore
      flowrun explore --sequences 100000 --seed 42
      flowrun explore --replay 1234567890

    """

  static func explore(_ a: Arguments) throws -> CommandOutput {
    let format = try textOrJSON(a)
    var config = PropertyTester.Config()
    if let n = a.options["--sequences"] { config.sequences = try positiveInt(n, "--sequences") }
    if let n = a.options["--length"] { config.maxLength = try positiveInt(n, "--length") }
    var g = SystemRandomNumberGenerator()
    config.seed = try a.options["--seed"].map { try seedValue($0, "--seed") } ?? g.next()
    config.only = try a.options["--replay"].map { try seedValue($0, "--replay") }
    let interactive = isatty(2) == 1 && format == "text"
    if interactive {
      FileHandle.standardError.write(
        Data("  exploring \(config.only == nil ? config.sequences : 1) sequences…".utf8))
    }
    let (summary, seconds) = timed(clearingProgress: interactive) { PropertyTester(config).run() }

    var written: String?
    if let f = summary.failure {
      written = try writeCounterexample(
        name: "explore-\(f.seed)", foundBy: "flowrun explore (sequence seed \(f.seed))",
        violations: f.violations, events: f.events, policy: f.policy,
        in: try counterexampleDirectory(a.options["--counterexamples"]))
    }
    let code = summary.failure == nil ? 0 : ExitCode.failure
    if format == "json" {
      var members: [(key: String, value: JSONValue)] = [
        ("masterSeed", .string(String(config.seed))),
        ("sequences", .number(Double(summary.sequences))),
        ("events", .number(Double(summary.events))),
        ("statesSeen", .number(Double(summary.statesSeen.count))),
        ("seconds", .number((seconds * 1000).rounded() / 1000)),
        ("passed", .bool(summary.failure == nil)),
      ]
      if let f = summary.failure {
        members += [
          ("seed", .string(String(f.seed))),
          ("violations", .array(f.violations.map { .string($0.description) })),
          ("counterexample", written.map(JSONValue.string) ?? .null),
        ]
      }
      return CommandOutput(code: code, stdout: JSONValue.object(members).prettyText + "\n")
    }
    var out =
      "Ran \(summary.sequences) sequences (\(summary.events) events) from master seed "
      + "\(config.seed) in \(String(format: "%.2f", seconds)) s; "
      + "\(summary.statesSeen.count) of \(StateName.allCases.count) states seen.\n"
    guard let f = summary.failure else {
      return CommandOutput(code: 0, stdout: out + "Invariants: all held on every step.\n")
    }
    out += "✘ " + f.violations.map(\.description).joined(separator: "\n✘ ") + "\n"
    out += "  sequence seed \(f.seed), \(f.originalLength) moves, shrunk to \(f.events.count)"
    out += " events (migration policy \(f.policy.migration.rawValue)):\n"
    for e in f.events { out += "    " + describe(e) + "\n" }
    out += "  written to \(written ?? "?"); replay with: flowrun \(written ?? "")\n"
    out += "  or: flowrun explore --replay \(f.seed)\n"
    return CommandOutput(code: code, stdout: out)
  }

  static func seedValue(_ text: String, _ option: String) throws -> UInt64 {
    guard let n = UInt64(text) else {
      throw UsageError(message: "\(option) takes a whole number from 0 to 2^64−1, not '\(text)'")
    }
    return n
  }

  /// The folder counterexamples go to: the one given, or a new one in the system's temporary
  /// directory (never the working directory, which may be a checkout).
  static func counterexampleDirectory(_ given: String?) throws -> String {
    if let given {
      try FileManager.default.createDirectory(atPath: given, withIntermediateDirectories: true)
      return given
    }
    return try CounterexampleWriter.newFolder()
  }
}
