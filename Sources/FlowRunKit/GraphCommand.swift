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
  static let graphHelp = """
    OVERVIEW: Print the state diagram, derived from exploring the machine (not drawn by hand).

    USAGE: flowrun graph [--format <format>] [--scenario <file> [--path]] [--max-states <n>]

    OPTIONS:
      --format <format>       mermaid or dot (default: mermaid).
      --max-states <n>        Explore only the first n states (a quick, partial look).
      --scenario <file>       Highlight the states and arrows this scenario takes (filled
                              states, thick coloured arrows), to review a story on the machine.
      --path                  With --scenario: draw only the scenario's own states and arrows,
                              each arrow numbered in the order taken (no exploration needed).
      -h, --help              Show help information.

    Each arrow joins two top-level states and is labelled with the event kinds that take it;
    events that leave the top-level state unchanged (a token refresh) are not drawn.

    """

  static let coverageHelp = """
    OVERVIEW: Show which reachable transitions the scenario files exercise.

    USAGE: flowrun coverage [--quiet] [--max-states <n>] <path> ...

    ARGUMENTS:
      <path>                  A scenario file, or a directory searched for *.json files.

    OPTIONS:
      --quiet                 Print only the summary line.
      --max-states <n>        Explore only the first n states (a quick, partial look).
      -h, --help              Show help information.

    A transition is a (state, event kind) pair that changes the machine or emits effects; the
    reachable ones come from `flowrun check`'s exploration.

    """

  /// The full exploration, with progress on an interactive terminal: seconds in a debug build.
  static func explore(_ base: ModelChecker.Options = ModelChecker.Options()) -> ModelChecker.Result
  {
    var options = base
    let interactive = isatty(2) == 1
    if interactive {
      #if DEBUG
        FileHandle.standardError.write(
          Data("(a debug build; `swift run -c release flowrun …` answers in seconds)\n".utf8)
        )
      #endif
      options.progress = { states, _, depth in
        FileHandle.standardError.write(
          Data("\r  exploring the machine: \(states) states, depth \(depth) ".utf8))
      }
    }
    let result = ModelChecker(options: options).run()
    if interactive { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    return result
  }

  /// The edges of the reachable space: read from the cache the last exploration by this same
  /// executable with the same limit left, or explored (and cached) now.
  static func reachableEdges(_ options: ModelChecker.Options) -> Set<ModelChecker.Edge> {
    let cache = ExplorationCache(maxStates: options.maxStates)
    if let edges = cache?.read() { return edges }
    let result = explore(options)
    cache?.write(result.edges)
    return result.edges
  }

  /// The exploration's options with `--max-states`: a quick, partial look.
  static func limited(_ a: Arguments) throws -> ModelChecker.Options {
    var options = ModelChecker.Options()
    options.maxStates = try a.options["--max-states"].map { try positiveInt($0, "--max-states") }
    return options
  }

  static func graph(_ a: Arguments) throws -> CommandOutput {
    let format = a.options["--format"] ?? "mermaid"
    guard format == "mermaid" || format == "dot" else {
      throw UsageError(message: "--format must be mermaid or dot, not '\(format)'")
    }
    var highlight: StateGraph.Highlight? = nil
    if a.has("--path"), a.options["--scenario"] == nil {
      throw UsageError(message: "--path draws a scenario's path: give --scenario <file>")
    }
    if let file = a.options["--scenario"] {
      do {
        let report = ScenarioRunner.run(try Scenario.load(path: file))
        if a.has("--path") {
          return CommandOutput(code: 0, stdout: StateGraph.path(report, format: format))
        }
        highlight = StateGraph.Highlight(report)
      } catch {
        return CommandOutput(
          code: exitCode([.invalid(error)]), stderr: fileErrors([.invalid(error)]))
      }
    }
    let edges = reachableEdges(try limited(a))
    let text =
      format == "dot"
      ? StateGraph.dot(edges, highlight: highlight)
      : StateGraph.mermaid(edges, highlight: highlight)
    return CommandOutput(code: 0, stdout: text)
  }

  static func coverage(_ a: Arguments) throws -> CommandOutput {
    let (files, missing) = ScenarioFiles.expand(a.positional)
    if let first = missing.first {
      return CommandOutput(
        code: ExitCode.noInput, stderr: "✘ \(first): no such file or directory\n")
    }
    var reports: [ScenarioReport] = []
    var errors = ""
    for file in files {
      do {
        reports.append(ScenarioRunner.run(try Scenario.load(path: file)))
      } catch {
        errors += "✘ \(error)\n"
      }
    }
    if !errors.isEmpty { return CommandOutput(code: ExitCode.dataError, stderr: errors) }
    let reachable = reachableEdges(try limited(a))
    let (covered, missed) = StateGraph.coverage(reachable: reachable, reports: reports)
    let total = covered.count + missed.count
    let percent = total == 0 ? 100 : Double(covered.count) * 100 / Double(total)
    let scenarios = reports.count == 1 ? "1 scenario" : "\(reports.count) scenarios"
    var out = "\(covered.count) of \(total) reachable transitions exercised by \(scenarios)"
    out += " (\(String(format: "%.1f", percent))%).\n"
    if !a.has("--quiet") {
      // What the files cover, then what they miss (few files: the covered list is the point).
      if reports.count <= 5 {
        out += "covered (\(covered.count)):\n"
        for p in covered.sorted() { out += "  ✔ \(p.state) + \(p.event)\n" }
      }
      out += "missed (\(missed.count)):\n"
      for p in missed { out += "  missed: \(p.state) + \(p.event)\n" }
    }
    return CommandOutput(code: 0, stdout: out)
  }
}

/// Where `graph` and `coverage` keep the reachable space's edges between runs, keyed by what
/// determines them: this executable (its path, size and modification time: a rebuild of the
/// machine is a new key) and the exploration's limit.
struct ExplorationCache {
  let path: String

  init?(maxStates: Int?) {
    guard let exe = Bundle.main.executablePath,
      let attributes = try? FileManager.default.attributesOfItem(atPath: exe),
      let size = attributes[.size] as? Int, let modified = attributes[.modificationDate] as? Date
    else { return nil }
    let key = "v1|\(exe)|\(size)|\(modified.timeIntervalSince1970)|\(maxStates ?? -1)"
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in key.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    path =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("authflow-edges-\(String(h, radix: 16)).tsv").path
  }

  /// The edges, or `nil` when there is no cache or it cannot be read whole.
  func read() -> Set<ModelChecker.Edge>? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8),
      text.hasSuffix("end\n")
    else { return nil }
    var edges: Set<ModelChecker.Edge> = []
    for line in text.split(separator: "\n").dropLast() {
      let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard f.count == 3 else { return nil }
      edges.insert(ModelChecker.Edge(from: f[0], event: f[1], to: f[2]))
    }
    return edges
  }

  /// Keeps the edges (written whole or not at all: a reader never sees half a file).
  func write(_ edges: Set<ModelChecker.Edge>) {
    let text = edges.sorted().map { "\($0.from)\t\($0.event)\t\($0.to)\n" }.joined() + "end\n"
    try? text.write(toFile: path, atomically: true, encoding: .utf8)
  }
}
