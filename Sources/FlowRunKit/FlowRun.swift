import AuthFlowCore
import AuthFlowScenarios
import Foundation

/// The `flowrun` command: replays, validates and describes scenarios.
public enum FlowRun {
  /// One subcommand: its name, one line for the overview, its help, and its flags and options
  /// (the only place they are listed: parsing, help and suggestions all read this table).
  struct Subcommand {
    let name: String
    let summary: String
    let helpText: () -> String
    let flags: Set<String>
    let options: Set<String>
    /// Whether it takes scenario paths.
    let takesPaths: Bool
    /// The synchronous commands; `nil` for those that only talk to servers.
    let run: ((Arguments) throws -> CommandOutput)?
    /// How it talks to servers (`record`, and `run --live`), if it does.
    var live: ((Arguments, [String: String]) async throws -> CommandOutput)? = nil

    var help: String { helpText() }

    /// Its usage lines, read from its help (`run`'s are declared on their own: its help is the
    /// program's).
    var usageLines: [String] {
      name == "run"
        ? FlowRun.runUsage.split(separator: "\n").map(String.init)
        : FlowRun.usageLines(in: help)
    }
  }

  static let common: Set<String> = ["-h", "--help"]

  /// Every subcommand, `run` first (the default).
  static var subcommands: [Subcommand] {
    [
      Subcommand(
        name: "run", summary: "Replay scenarios (the default).", helpText: { help },
        flags: common.union(["--trace", "--quiet", "--show-secrets", "--strict", "--live"]),
        options: Set(["--format", "--filter"]).union(liveOptions), takesPaths: true, run: run,
        live: { try await live($0, record: false, environment: $1, report: false) }),
      Subcommand(
        name: "validate", summary: "Parse and check scenario files without running them.",
        helpText: { validateHelp }, flags: common, options: ["--filter"], takesPaths: true,
        run: validate),
      Subcommand(
        name: "schema", summary: "Print the JSON Schema of the scenario format.",
        helpText: { schemaHelp }, flags: common, options: [], takesPaths: false, run: schema),
      Subcommand(
        name: "vocabulary",
        summary: "Print the scenario format's tables (or update them in a document).",
        helpText: { vocabularyHelp }, flags: common, options: ["--update"], takesPaths: false,
        run: vocabulary),
      Subcommand(
        name: "check", summary: "Explore every reachable state and check the invariants.",
        helpText: { checkHelp }, flags: common.union(["--stats"]),
        options: ["--depth", "--max-states", "--threads", "--format", "--counterexamples"],
        takesPaths: false,
        run: check),
      Subcommand(
        name: "explore",
        summary: "Run random event sequences on concrete time and check the invariants.",
        helpText: { exploreHelp }, flags: common,
        options: [
          "--sequences", "--length", "--seed", "--replay", "--counterexamples", "--format",
        ],
        takesPaths: false, run: explore),
      Subcommand(
        name: "graph", summary: "Print the state diagram derived from the exploration.",
        helpText: { graphHelp }, flags: common.union(["--path"]),
        options: ["--format", "--scenario", "--max-states"],
        takesPaths: false, run: graph),
      Subcommand(
        name: "coverage", summary: "Show which reachable transitions the scenarios exercise.",
        helpText: { coverageHelp }, flags: common.union(["--quiet"]), options: ["--max-states"],
        takesPaths: true,
        run: coverage),
      Subcommand(
        name: "generate", summary: "Write a scenario for every transition the scenarios miss.",
        helpText: { generateHelp }, flags: common.union(["--dry-run"]),
        options: ["--out", "--max-states"],
        takesPaths: true, run: generate),
      Subcommand(
        name: "report", summary: "Run scenarios and write one HTML page with their diagrams.",
        helpText: { reportHelp }, flags: common.union(["--strict", "--show-secrets", "--live"]),
        options: Set(["--out", "--title", "--filter"]).union(liveOptions), takesPaths: true,
        run: report, live: { try await live($0, record: false, environment: $1, report: true) }),
      Subcommand(
        name: "record", summary: "Run a scenario live and write the answers into its script.",
        helpText: { recordHelp }, flags: common.union(["--show-secrets", "--trace"]),
        options: liveOptions.union(["--out"]), takesPaths: true, run: nil,
        live: { try await live($0, record: true, environment: $1, report: false) }),
    ]
  }

  /// `run`'s usage lines: the program's first (its help is the program's, whose usage lists
  /// every subcommand's).
  static let runUsage = """
    flowrun [run] [--trace] [--format <format>] [--filter <substring>] [--quiet] [--strict] \
    [--show-secrets] <path> ...
    flowrun [run] --live --config <file> [--browser <mode>] [--login-hint <hint>] <path> ...
    """

  /// The program's usage: every subcommand's lines, as each one's help gives them.
  static var usage: String { usageBlock(subcommands.flatMap(\.usageLines)) }

  /// `lines` under one `USAGE:` heading, aligned.
  static func usageBlock(_ lines: [String]) -> String {
    "USAGE: " + lines.joined(separator: "\n       ")
  }

  /// The lines of the `USAGE:` block in a help text (up to the blank line after it).
  static func usageLines(in help: String) -> [String] {
    let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0.hasPrefix("USAGE: ") }) else { return [] }
    var out = [String(lines[start].dropFirst("USAGE: ".count))]
    for line in lines[(start + 1)...] {
      let text = line.drop(while: { $0 == " " })
      if text.isEmpty { break }
      out.append(String(text))
    }
    return out
  }

  /// A usage error's output: the message, then the usage of the subcommand it is about (with
  /// where its help is), or the program's when no subcommand was named.
  static func usageFailure(_ error: UsageError, named name: String?) -> CommandOutput {
    guard let command = subcommands.first(where: { $0.name == name }), command.name != "run"
    else {
      return CommandOutput(code: ExitCode.usage, stderr: "Error: \(error.message)\n\(usage)\n")
    }
    return CommandOutput(
      code: ExitCode.usage,
      stderr: "Error: \(error.message)\n\(usageBlock(command.usageLines))\n"
        + "See 'flowrun help \(command.name)'.\n")
  }

  static var help: String {
    """
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
      --quiet                 Print only failures, warnings and the summary line.
      --strict                Fail a scenario whose script has unused entries or that answers
                              a request never issued (a file can ask with "strict": true).
      --show-secrets          Print tokens and passwords instead of fingerprints.
      --live                  Send the intents to the providers and Firebase over HTTP (the
                              script is ignored; needs --config; see 'flowrun help record' for
                              the --config, --browser and --login-hint options). A provider's
                              OpenID configuration is read when a scenario first asks it.
      -h, --help              Show help information.

    SUBCOMMANDS:
    \(subcommands.map { "  " + $0.name.padding(toLength: 24, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))

      See 'flowrun help <subcommand>' for detailed help.

    EXIT CODES:
      0 all passed, 1 a scenario failed, 64 bad usage, 65 invalid scenario file,
      66 file not found or no scenario selected.
      Messages about files and usage go to standard error; reports to standard output.

    EXAMPLES:
      flowrun Scenarios/anonymous-upgrade.json
      flowrun --trace --filter migration Scenarios/
      flowrun --format junit Scenarios/ > flowrun.xml
      flowrun report Scenarios/            # one HTML page: sequence and state diagrams

    """
  }

  static let validateHelp = """
    OVERVIEW: Parse and check scenario files without running them.

    USAGE: flowrun validate [--filter <substring>] <path> ...

    ARGUMENTS:
      <path>                  A scenario file, or a directory searched for *.json files.

    OPTIONS:
      --filter <substring>    Check only scenarios whose name or file path contains it.
      -h, --help              Show help information.

    Prints one line per valid file on standard output and one per invalid file on standard
    error; exit 0 when all are valid, 65 when one is invalid, 66 when a path does not exist or
    nothing is selected.

    """

  static let schemaHelp = """
    OVERVIEW: Print the JSON Schema (draft 2020-12) of the scenario format.

    USAGE: flowrun schema

    OPTIONS:
      -h, --help              Show help information.

    """

  static let vocabularyHelp = """
    OVERVIEW: Print the tables of every key, intent, result, effect and notification a scenario
    file may use, generated from the same declarations the decoder and the schema read.

    USAGE: flowrun vocabulary [--update <file>]

    OPTIONS:
      --update <file>         Rewrite the tables between the <!-- vocabulary: NAME --> and
                              <!-- vocabulary: end --> markers of <file> (Docs/ScenarioFormat.md).
      -h, --help              Show help information.

    """

  static func vocabulary(_ a: Arguments) throws -> CommandOutput {
    guard let path = a.options["--update"] else {
      let text = ScenarioDocs.tables.map { "## \($0.name)\n\n\($0.markdown)\n" }
        .joined(separator: "\n")
      return CommandOutput(code: 0, stdout: text)
    }
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
      return CommandOutput(code: ExitCode.noInput, stderr: "Error: cannot read \(path)\n")
    }
    let (updated, missing) = ScenarioDocs.apply(to: text)
    guard missing.isEmpty else {
      return CommandOutput(
        code: ExitCode.dataError,
        stderr: "Error: \(path) has no markers for " + missing.joined(separator: ", ") + "\n")
    }
    if updated != text { try updated.write(toFile: path, atomically: true, encoding: .utf8) }
    return CommandOutput(
      code: 0, stderr: updated == text ? "\(path) is up to date\n" : "updated \(path)\n")
  }

  /// Runs `flowrun`, including the commands that talk to servers (`--live`, `record`).
  public static func execute(
    _ args: [String], environment: [String: String] = ProcessInfo.processInfo.environment
  ) async -> CommandOutput {
    var named: Subcommand?
    do {
      let (command, a) = try parse(args)
      named = command
      if a.has("-h") || a.has("--help") { return CommandOutput(code: 0, stdout: command.help) }
      if let live = command.live, command.run == nil || a.has("--live") {
        guard !a.positional.isEmpty else { throw UsageError(message: "give a scenario file") }
        return try await live(a, environment)
      }
      return try command.run?(a) ?? CommandOutput(code: ExitCode.usage)
    } catch let error as UsageError {
      return usageFailure(error, named: error.command ?? named?.name)
    } catch let error as HelpRequest {
      return error.output
    } catch {
      return CommandOutput(code: ExitCode.failure, stderr: "Error: \(error)\n")
    }
  }

  /// Runs `flowrun` with `args` (without the program name); `--live` and `record` need the
  /// async `execute(_:environment:)`.
  public static func main(_ args: [String]) -> CommandOutput {
    var named: Subcommand?
    do {
      let (command, a) = try parse(args)
      named = command
      if a.has("-h") || a.has("--help") { return CommandOutput(code: 0, stdout: command.help) }
      guard let run = command.run, !a.has("--live") else {
        throw UsageError(message: "\(command.name) talks to servers: use the flowrun executable")
      }
      return try run(a)
    } catch let error as UsageError {
      return usageFailure(error, named: error.command ?? named?.name)
    } catch let error as HelpRequest {
      return error.output
    } catch {
      return CommandOutput(code: ExitCode.failure, stderr: "Error: \(error)\n")
    }
  }

  /// `help [subcommand]` answered through the error path, so every caller prints it the same.
  struct HelpRequest: Error {
    let output: CommandOutput
  }

  /// The subcommand and its parsed arguments. The first argument names the subcommand; one
  /// that is neither a subcommand nor something that could be a path (an existing file or
  /// directory, a `.json` name, a name with a `/`) is a typo, not a file to look for.
  static func parse(_ args: [String]) throws -> (Subcommand, Arguments) {
    var args = args
    let table = subcommands
    if args.first == "help" {
      args.removeFirst()
      guard let name = args.first else {
        throw HelpRequest(output: CommandOutput(code: 0, stdout: help))
      }
      guard let command = table.first(where: { $0.name == name }) else {
        throw UsageError(message: "no subcommand '\(name)'" + suggestion(for: name, among: table))
      }
      throw HelpRequest(output: CommandOutput(code: 0, stdout: command.help))
    }
    var command = table[0]
    if let first = args.first, let named = table.first(where: { $0.name == first }) {
      command = named
      args.removeFirst()
    } else if let first = args.first, !first.hasPrefix("-"), !looksLikePath(first) {
      throw UsageError(
        message: "unknown subcommand '\(first)'" + suggestion(for: first, among: table)
          + " (a scenario path must exist, end in .json or contain a /)")
    }
    do {
      let a = try Arguments(args, flags: command.flags, options: command.options)
      if !command.takesPaths, !a.positional.isEmpty, !(a.has("-h") || a.has("--help")) {
        throw UsageError(message: "\(command.name) takes no arguments")
      }
      if command.takesPaths, a.positional.isEmpty, !(a.has("-h") || a.has("--help")) {
        throw UsageError(message: "give at least one scenario file or directory")
      }
      return (command, a)
    } catch var error as UsageError {
      error.command = command.name
      throw error
    }
  }

  static func looksLikePath(_ s: String) -> Bool {
    s.contains("/") || s.hasSuffix(".json") || FileManager.default.fileExists(atPath: s)
  }

  static func suggestion(for word: String, among table: [Subcommand]) -> String {
    guard let near = Suggest.nearest(word, among: table.map(\.name)) else {
      return "; subcommands: " + table.map(\.name).joined(separator: ", ")
    }
    return "; did you mean '\(near)'?"
  }

  static func schema(_ a: Arguments) throws -> CommandOutput {
    CommandOutput(code: 0, stdout: ScenarioSchema.text + "\n")
  }

  static func run(_ a: Arguments) throws -> CommandOutput {
    let formatName = a.options["--format"] ?? "text"
    guard let format = ReportFormat(rawValue: formatName) else {
      throw UsageError(message: "--format must be text, json or junit, not '\(formatName)'")
    }
    var writer = ReportWriter()
    writer.trace = a.has("--trace")
    writer.quiet = a.has("--quiet")
    writer.redactor = Redactor(showSecrets: a.has("--show-secrets"))
    let selection = try select(a)
    if let empty = selection.nothingSelected { return empty }
    var entries = selection.invalid
    for scenario in selection.scenarios {
      entries.append(
        .ran(ScenarioRunner.run(scenario, redactor: writer.redactor, strict: a.has("--strict"))))
    }
    let text: String
    switch format {
    case .text:
      text = writer.text(
        entries.filter { if case .ran = $0 { true } else { false } }, summarizing: entries)
    case .json: text = writer.json(entries)
    case .junit: text = writer.junit(entries)
    }
    return CommandOutput(code: exitCode(entries), stdout: text, stderr: Self.fileErrors(entries))
  }

  static func validate(_ a: Arguments) throws -> CommandOutput {
    let selection = try select(a)
    if let empty = selection.nothingSelected { return empty }
    var out = ""
    for s in selection.scenarios { out += "✔ \(s.file) — \(s.name), \(s.steps.count) steps\n" }
    out += "\(selection.scenarios.count) valid, \(selection.invalid.count) invalid\n"
    return CommandOutput(
      code: exitCode(selection.invalid), stdout: out, stderr: Self.fileErrors(selection.invalid))
  }

  /// What the paths and `--filter` select: the scenarios that load, the files that do not,
  /// and, when nothing at all is selected, the error to print (exit 66, for every subcommand).
  struct Selection {
    var scenarios: [Scenario] = []
    var invalid: [RunEntry] = []
    var nothingSelected: CommandOutput?
  }

  static func select(_ a: Arguments) throws -> Selection {
    let (files, missing) = ScenarioFiles.expand(a.positional)
    var selection = Selection()
    selection.invalid = missing.map {
      .invalid(ScenarioError(file: $0, kind: .unreadable, message: "no such file or directory"))
    }
    let filter = a.options["--filter"]
    var filteredOut = 0
    for file in files {
      do {
        let scenario = try Scenario.load(path: file)
        if let filter, !scenario.name.contains(filter), !file.contains(filter) {
          filteredOut += 1
          continue
        }
        selection.scenarios.append(scenario)
      } catch {
        selection.invalid.append(.invalid(error))
      }
    }
    if selection.scenarios.isEmpty && selection.invalid.isEmpty {
      let searched = a.positional.joined(separator: " ")
      let why =
        files.isEmpty
        ? "no *.json scenario files under \(searched)"
        : "no scenario matches --filter '\(filter ?? "")' (\(filteredOut) searched under \(searched))"
      selection.nothingSelected = CommandOutput(code: ExitCode.noInput, stderr: "Error: \(why)\n")
    }
    return selection
  }

  /// One `✘ file: message` line per file that could not be used.
  static func fileErrors(_ entries: [RunEntry]) -> String {
    entries.map { if case .invalid(let e) = $0 { "✘ \(e)\n" } else { "" } }.joined()
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
