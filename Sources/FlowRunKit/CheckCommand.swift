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
  static let checkHelp = """
    OVERVIEW: Explore every reachable state of the machine and check the invariants.

    Breadth-first from `starting` over a finite alphabet (every intent, every result kind with
    each class of error, stale and wrong-kind answers, timers due or stray), with states
    deduplicated by a canonical form. Every invariant is checked on every transition; then
    liveness: from every reachable state `signedOut` must be reachable.

    USAGE: flowrun check [--depth <n>] [--max-states <n>] [--threads <n>] [--stats] \
    [--format <format>] [--counterexamples <dir>]

    OPTIONS:
      --depth <n>             Expand states up to this depth only.
      --max-states <n>        Stop after this many states.
      --threads <n>           Threads that expand each level (default: one per core); the
                              answer is the same on any number.
      --stats                 Also print states/s, memory, and where the time went
                              (successors and the reducer's share of them, canonical
                              form, invariants, visited set).
      --format <format>       text or json (default: text).
      --counterexamples <dir> Where violations are written as scenario files (default: a
                              new folder in the system's temporary directory, named in the
                              output).
      -h, --help              Show help information.

    Exit 0 when every invariant holds, 1 when one is broken (each shortest path is printed and
    written as a scenario file that `flowrun` replays).

    """

  static func check(_ a: Arguments) throws -> CommandOutput {
    let format = try textOrJSON(a)
    var options = ModelChecker.Options()
    options.maxDepth = try a.options["--depth"].map { try positiveInt($0, "--depth") }
    options.maxStates = try a.options["--max-states"].map { try positiveInt($0, "--max-states") }
    if let t = try a.options["--threads"].map({ try positiveInt($0, "--threads") }) {
      options.threads = t
    }
    let wantsStats = a.has("--stats")
    options.collectStats = wantsStats
    let interactive = isatty(2) == 1
    if interactive {
      options.progress = { states, transitions, depth in
        let line = "\r  exploring: \(states) states, \(transitions) transitions, depth \(depth) "
        FileHandle.standardError.write(Data(line.utf8))
      }
    }
    let (result, seconds) = timed(clearingProgress: interactive) {
      ModelChecker(options: options).run()
    }
    // `graph` and `coverage` reuse this exploration's edges.
    if options.maxDepth == nil, result.violationCount == 0 {
      ExplorationCache(maxStates: options.maxStates)?.write(result.edges)
    }

    var written: [String] = []
    let directory =
      result.violations.isEmpty ? "" : try counterexampleDirectory(a.options["--counterexamples"])
    for (n, c) in result.violations.enumerated() {
      written.append(
        try writeCounterexample(
          name: "counterexample-\(n + 1)", foundBy: "flowrun check", violations: c.violations,
          events: c.events, policy: c.policy, in: directory))
    }
    let code = result.violationCount == 0 && result.cannotSignOut == 0 ? 0 : ExitCode.failure
    if format == "json" {
      let json = JSONValue.object(
        [
          ("states", .number(Double(result.states))),
          ("transitions", .number(Double(result.transitions))),
          ("maxDepth", .number(Double(result.maxDepth))), ("complete", .bool(result.complete)),
          ("seconds", .number((seconds * 1000).rounded() / 1000)),
          ("statesPerSecond", .number((Double(result.states) / max(seconds, 1e-9)).rounded())),
          ("violations", .number(Double(result.violationCount))),
          ("counterexamples", .array(written.map(JSONValue.string))),
          ("cannotSignOut", .number(Double(result.cannotSignOut))),
          ("deadEnds", .number(Double(result.deadEnds))),
          ("edges", .number(Double(result.edges.count))),
        ] + (wantsStats ? [("stats", statsJSON(result.stats))] : []))
      return CommandOutput(code: code, stdout: json.prettyText + "\n")
    }
    var out = ""
    let rate = Int(Double(result.states) / max(seconds, 1e-9))
    out += "Explored \(result.states) states and \(result.transitions) transitions"
    out += " to depth \(result.maxDepth) in \(String(format: "%.2f", seconds)) s"
    out +=
      " (\(rate) states/s)\(result.complete ? "; the space is complete" : "; stopped early (limit)").\n"
    if result.violationCount == 0 {
      out += "Invariants: all hold on every transition.\n"
    } else {
      out += "Invariants: \(result.violationCount) transitions break one.\n"
      for (n, c) in result.violations.enumerated() {
        out += "  ✘ " + c.violations.map(\.description).joined(separator: "; ") + "\n"
        out += "    shortest path (\(c.events.count) events), written to \(written[n]):\n"
        for e in c.events { out += "      " + describe(e) + "\n" }
      }
    }
    if result.complete {
      out +=
        result.cannotSignOut == 0
        ? "Liveness: signedOut is reachable from every state.\n"
        : "Liveness: \(result.cannotSignOut) states cannot reach signedOut.\n"
      if let path = result.cannotSignOutExample {
        out += "    shortest path to one (\(path.count) events):\n"
        for e in path { out += "      " + describe(e) + "\n" }
      }
    } else {
      out += "Liveness: not checked (the exploration stopped early).\n"
    }
    out += "Dead ends (no move leaves the state): \(result.deadEnds).\n"
    if wantsStats { out += statsText(result) }
    return CommandOutput(code: code, stdout: out)
  }

  /// The `--stats` lines: rate, memory, and the time split (thread time, summed).
  static func statsText(_ r: ModelChecker.Result) -> String {
    let s = r.stats
    let wall = Double(s.wallNanos) / 1e9
    // Each part, with the share of it that a line below names.
    let parts: [(name: String, ns: UInt64, within: (name: String, ns: UInt64)?)] = [
      ("successors (alphabet, reducer, world)", s.successorNanos, ("the reducer", s.reducerNanos)),
      ("canonical form (keys, hashes, new states)", s.canonicalNanos, nil),
      ("invariants", s.invariantNanos, nil), ("visited set (look-ups, merge)", s.visitedNanos, nil),
    ]
    let measured = parts.reduce(0) { $0 + $1.ns }
    var out = "Stats:\n"
    out += "  \(Int(Double(r.states) / max(wall, 1e-9))) states/s and "
    out += "\(Int(Double(r.transitions) / max(wall, 1e-9))) transitions/s on \(s.threads) "
    out += s.threads == 1 ? "thread" : "threads"
    out += " (\(String(format: "%.2f", wall)) s)\n"
    out += "  merging (one thread, the others waiting): "
    out += "\(String(format: "%.2f", Double(s.mergeNanos) / 1e9)) s of the wall clock"
    let mergeShare = Double(s.mergeNanos) * 100 / Double(max(s.wallNanos, 1))
    out += " (\(String(format: "%.0f", mergeShare))%)\n"
    out += "  liveness (one thread, after the exploration): "
    out += "\(String(format: "%.2f", Double(s.livenessNanos) / 1e9)) s\n"
    out += "  transitions back to their own state: \(s.selfLoops)\n"
    out += "  work: \(s.machines) distinct machines, \(s.stores) stores, "
    out += "\(s.machineMoves) machine moves applied, "
    out += "\(s.worldMoves) moves applied to a whole state\n"
    out +=
      "  memory: visited set \(mb(s.visitedBytes)) MB, peak resident \(mb(s.peakResidentBytes)) MB\n"
    out += "  time (thread seconds; clock reads included):\n"
    for (name, ns, within) in parts {
      let share = measured == 0 ? 0 : Double(ns) * 100 / Double(measured)
      out += "    \(name): \(String(format: "%.2f", Double(ns) / 1e9)) s"
      out += " (\(String(format: "%.0f", share))%), "
      out += "\(String(format: "%.0f", Double(ns) / Double(max(r.transitions, 1)))) ns/transition\n"
      if let within {
        let share = measured == 0 ? 0 : Double(within.ns) * 100 / Double(measured)
        out += "      of which \(within.name): \(String(format: "%.2f", Double(within.ns) / 1e9)) s"
        out += " (\(String(format: "%.0f", share))%)\n"
      }
    }
    return out
  }

  static func statsJSON(_ s: ModelChecker.Stats) -> JSONValue {
    .object([
      ("threads", .number(Double(s.threads))),
      ("wallSeconds", .number(Double(s.wallNanos) / 1e9)),
      ("successorSeconds", .number(Double(s.successorNanos) / 1e9)),
      ("canonicalSeconds", .number(Double(s.canonicalNanos) / 1e9)),
      ("invariantSeconds", .number(Double(s.invariantNanos) / 1e9)),
      ("reducerSeconds", .number(Double(s.reducerNanos) / 1e9)),
      ("visitedSetSeconds", .number(Double(s.visitedNanos) / 1e9)),
      ("mergeSeconds", .number(Double(s.mergeNanos) / 1e9)),
      ("livenessSeconds", .number(Double(s.livenessNanos) / 1e9)),
      ("visitedSetBytes", .number(Double(s.visitedBytes))),
      ("machines", .number(Double(s.machines))),
      ("stores", .number(Double(s.stores))),
      ("machineMoves", .number(Double(s.machineMoves))),
      ("wholeStateMoves", .number(Double(s.worldMoves))),
      ("peakResidentBytes", .number(Double(s.peakResidentBytes))),
    ])
  }

  static func mb(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }

  /// The `--format` option of `check` and `explore`: text (the default) or json.
  static func textOrJSON(_ a: Arguments) throws -> String {
    let format = a.options["--format"] ?? "text"
    guard format == "text" || format == "json" else {
      throw UsageError(message: "--format must be text or json, not '\(format)'")
    }
    return format
  }

  /// Runs `body` and measures it in seconds; on a terminal, clears the progress line after it.
  static func timed<T>(clearingProgress: Bool, _ body: () -> T) -> (T, Double) {
    let clock = ContinuousClock()
    let start = clock.now
    let value = body()
    let elapsed = clock.now - start
    if clearingProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    let seconds =
      Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    return (value, seconds)
  }

  /// Writes one counterexample as a scenario file `<name>.json` in `directory`; returns its path.
  static func writeCounterexample(
    name: String, foundBy: String, violations: [Violation], events: [WorldEvent],
    policy: Policy, in directory: String
  ) throws -> String {
    let text = CounterexampleWriter.scenario(
      name: name,
      description: "Found by \(foundBy): "
        + violations.map(\.description).joined(separator: "; "),
      events: events, policy: policy)
    let path = "\(directory)/\(name).json"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  static func positiveInt(_ text: String, _ option: String) throws -> Int {
    guard let n = Int(text), n > 0 else {
      throw UsageError(message: "\(option) takes a positive whole number, not '\(text)'")
    }
    return n
  }

  static func describe(_ e: WorldEvent) -> String {
    switch e {
    case .send(let i): return "send " + ScenarioEncoding.intent(i).compactText
    case .respond(let to, let a):
      return "respond to \(to) #\(a.id) with " + ScenarioEncoding.result(a).compactText
    case .advance(let s): return "advance \(JSONValue.format(s))s"
    case .fire(let t): return "fire \(t.rawValue)"
    case .relaunch(let lost): return lost ? "relaunch (the last write lost)" : "relaunch"
    case .storeChanged(let s):
      return "another process writes " + (s.map { "uid " + $0.uid } ?? "an empty store")
    }
  }
}
