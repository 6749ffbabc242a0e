import AuthFlowCore
import AuthFlowScenarios
import Foundation

/// The `flowrun` command: replays, validates and describes scenarios.
public enum FlowRun {
  static let usage = """
    USAGE: flowrun [run] [--trace] [--format <format>] [--filter <substring>] [--quiet] \
    [--show-secrets] <path> ...
           flowrun validate <path> ...
           flowrun schema
           flowrun check [--depth <n>] [--max-states <n>] [--format <format>]
           flowrun graph [--format mermaid|dot]
           flowrun coverage <path> ...
           flowrun --live --config <file> [--browser <mode>] [--login-hint <hint>] <path> ...
           flowrun record --config <file> [--out <file>] <scenario>
    """

  static let help = """
    OVERVIEW: Replay AuthFlow sign-in scenarios against the pure state machine.

    Each scenario file is a story: intents the user sends, answers the scripted interpreter
    gives, and what the machine must do. A replay uses a virtual clock, so the same file gives
    byte-identical output every time.

    \(usage)

    ARGUMENTS:
      <path>                  A scenario file, or a directory searched for *.json files.

    OPTIONS:
      --trace                 Print every transition as `state --event--> state [effects]`.
      --format <format>       text, json or junit (default: text).
      --filter <substring>    Run only scenarios whose name or file path contains it.
      --quiet                 Print only failures and the summary line.
      --show-secrets          Print tokens and passwords instead of fingerprints.
      --live                  Send the intents to Google and Firebase over HTTP (the script is
                              ignored; needs --config; see 'flowrun help record' for the
                              --config, --browser and --login-hint options).
      -h, --help              Show help information.

    SUBCOMMANDS:
      run                     Replay scenarios (the default).
      validate                Parse and check scenario files without running them.
      schema                  Print the JSON Schema of the scenario format.
      check                   Explore every reachable state and check the invariants.
      graph                   Print the state diagram derived from the exploration.
      coverage                Show which reachable transitions the scenarios exercise.
      record                  Run a scenario live and write the answers into its script.

      See 'flowrun help <subcommand>' for detailed help.

    EXIT CODES:
      0 all passed, 1 a scenario failed, 64 bad usage, 65 invalid scenario file,
      66 file not found.

    EXAMPLES:
      flowrun Scenarios/anonymous-upgrade.json
      flowrun --trace --filter migration Scenarios/
      flowrun --format junit Scenarios/ > flowrun.xml

    """

  static let validateHelp = """
    OVERVIEW: Parse and check scenario files without running them.

    USAGE: flowrun validate <path> ...

    ARGUMENTS:
      <path>                  A scenario file, or a directory searched for *.json files.

    OPTIONS:
      -h, --help              Show help information.

    Prints one line per file; exit 0 when all are valid, 65 when one is invalid, 66 when a
    path does not exist.

    """

  static let schemaHelp = """
    OVERVIEW: Print the JSON Schema (draft 2020-12) of the scenario format.

    USAGE: flowrun schema

    OPTIONS:
      -h, --help              Show help information.

    """

  /// Runs `flowrun`, including the live commands that talk to servers (`--live`, `record`).
  public static func execute(
    _ args: [String], environment: [String: String] = ProcessInfo.processInfo.environment
  ) async -> CommandOutput {
    let isRecord = args.first == "record"
    guard isRecord || args.contains("--live") else { return main(args) }
    do {
      let rest = isRecord ? Array(args.dropFirst()) : args.filter { $0 != "run" }
      let a = try Arguments(
        rest,
        flags: ["--live", "--trace", "--show-secrets", "-h", "--help"],
        options: liveOptions.union(isRecord ? ["--out"] : []))
      if a.has("-h") || a.has("--help") {
        return CommandOutput(code: 0, stdout: isRecord ? recordHelp : help)
      }
      guard !a.positional.isEmpty else {
        throw UsageError(message: "give a scenario file")
      }
      return try await live(a, record: isRecord, environment: environment)
    } catch let error as UsageError {
      return CommandOutput(code: ExitCode.usage, stderr: "Error: \(error.message)\n\(usage)\n")
    } catch {
      return CommandOutput(code: ExitCode.failure, stderr: "Error: \(error)\n")
    }
  }

  /// Runs `flowrun` with `args` (without the program name); the live commands need the async
  /// `execute(_:environment:)`.
  public static func main(_ args: [String]) -> CommandOutput {
    var args = args
    let sub: String
    switch args.first {
    case "run", "validate", "schema", "help", "check", "graph", "coverage":
      sub = args.removeFirst()
    default:
      sub = "run"
    }
    do {
      switch sub {
      case "help":
        switch args.first {
        case nil, "run": return CommandOutput(code: 0, stdout: help)
        case "validate": return CommandOutput(code: 0, stdout: validateHelp)
        case "schema": return CommandOutput(code: 0, stdout: schemaHelp)
        case "check": return CommandOutput(code: 0, stdout: checkHelp)
        case "graph": return CommandOutput(code: 0, stdout: graphHelp)
        case "coverage": return CommandOutput(code: 0, stdout: coverageHelp)
        case "record": return CommandOutput(code: 0, stdout: recordHelp)
        case let other?: throw UsageError(message: "no subcommand '\(other)'")
        }
      case "validate": return try validate(args)
      case "check": return try check(args)
      case "graph": return try graph(args)
      case "coverage": return try coverage(args)
      case "schema":
        let a = try Arguments(args, flags: ["-h", "--help"], options: [])
        if a.has("-h") || a.has("--help") { return CommandOutput(code: 0, stdout: schemaHelp) }
        if !a.positional.isEmpty { throw UsageError(message: "schema takes no arguments") }
        return CommandOutput(code: 0, stdout: ScenarioSchema.text + "\n")
      default: return try run(args)
      }
    } catch let error as UsageError {
      return CommandOutput(code: ExitCode.usage, stderr: "Error: \(error.message)\n\(usage)\n")
    } catch {
      return CommandOutput(code: ExitCode.failure, stderr: "Error: \(error)\n")
    }
  }

  static func run(_ args: [String]) throws -> CommandOutput {
    let a = try Arguments(
      args, flags: ["--trace", "--quiet", "--show-secrets", "-h", "--help"],
      options: ["--format", "--filter"])
    if a.has("-h") || a.has("--help") { return CommandOutput(code: 0, stdout: help) }
    let formatName = a.options["--format"] ?? "text"
    guard let format = ReportFormat(rawValue: formatName) else {
      throw UsageError(message: "--format must be text, json or junit, not '\(formatName)'")
    }
    guard !a.positional.isEmpty else {
      throw UsageError(message: "give at least one scenario file or directory")
    }
    let (files, missing) = ScenarioFiles.expand(a.positional)
    var writer = ReportWriter()
    writer.trace = a.has("--trace")
    writer.quiet = a.has("--quiet")
    writer.redactor = Redactor(showSecrets: a.has("--show-secrets"))
    var entries: [RunEntry] = missing.map {
      .invalid(ScenarioError(file: $0, kind: .unreadable, message: "no such file or directory"))
    }
    for file in files {
      do {
        let scenario = try Scenario.load(path: file)
        if let filter = a.options["--filter"], !scenario.name.contains(filter),
          !file.contains(filter)
        {
          continue
        }
        entries.append(.ran(ScenarioRunner.run(scenario, redactor: writer.redactor)))
      } catch {
        entries.append(.invalid(error))
      }
    }
    if files.isEmpty && missing.isEmpty {
      return CommandOutput(
        code: ExitCode.noInput,
        stderr: "Error: no *.json scenario files under \(a.positional.joined(separator: " "))\n")
    }
    let text: String
    switch format {
    case .text: text = writer.text(entries)
    case .json: text = writer.json(entries)
    case .junit: text = writer.junit(entries)
    }
    return CommandOutput(code: exitCode(entries), stdout: text)
  }

  static func validate(_ args: [String]) throws -> CommandOutput {
    let a = try Arguments(args, flags: ["-h", "--help"], options: [])
    if a.has("-h") || a.has("--help") { return CommandOutput(code: 0, stdout: validateHelp) }
    guard !a.positional.isEmpty else {
      throw UsageError(message: "give at least one scenario file or directory")
    }
    let (files, missing) = ScenarioFiles.expand(a.positional)
    var entries: [RunEntry] = missing.map {
      .invalid(ScenarioError(file: $0, kind: .unreadable, message: "no such file or directory"))
    }
    var out = ""
    for file in files {
      do {
        let s = try Scenario.load(path: file)
        out += "✔ \(file) — \(s.name), \(s.steps.count) steps\n"
      } catch {
        entries.append(.invalid(error))
      }
    }
    var errText = ""
    for case .invalid(let e) in entries { errText += "✘ \(e)\n" }
    let valid = files.count - entries.count + missing.count
    out += "\(valid) valid, \(entries.count) invalid\n"
    return CommandOutput(code: exitCode(entries), stdout: out, stderr: errText)
  }

  /// 66 when a file is missing, else 65 when one is invalid, else 1 when a scenario failed.
  static func exitCode(_ entries: [RunEntry]) -> Int32 {
    var code = ExitCode.success
    for entry in entries {
      switch entry {
      case .invalid(let e) where e.kind == .unreadable: return ExitCode.noInput
      case .invalid: code = ExitCode.dataError
      case .ran(let r) where !r.passed && code == ExitCode.success: code = ExitCode.failure
      case .ran: break
      }
    }
    return code
  }
}
