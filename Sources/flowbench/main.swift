import AuthFlowScenarios
import Foundation

let help = """
  OVERVIEW: Measure the cost of a transition, a replay and a model check, side by side.

  USAGE: swift run -c release flowbench [--json] [--runs <n>] [--scenarios <dir>]

  OPTIONS:
    --json                  Print the figures as JSON instead of a table.
    --runs <n>              Samples per figure (default: 5); each figure shows median, min, max.
    --scenarios <dir>       The scenario directory for the replay figures (default: Scenarios).
    --only <section>        One section: hot, mixed, replay, check, memory or runtimes.
    --check-states <n>      Explore the first <n> states of the model checker's space once, on
                            one thread, and print what it explored and how long it took (for a
                            profiler or an instruction counter; see Docs/Performance.md).
    -h, --help              Show help information.

  Build with -c release: a debug build measures the debugger-friendly code, not the product.

  """

var args = Array(CommandLine.arguments.dropFirst())
var json = false
var runs = 5
var directory = "Scenarios"
var only: String? = nil
var checkStates: Int? = nil
let sections = ["hot", "mixed", "replay", "check", "memory", "runtimes"]
while let arg = args.first {
  args.removeFirst()
  switch arg {
  case "-h", "--help":
    print(help, terminator: "")
    exit(0)
  case "--json": json = true
  case "--runs":
    guard let v = args.first, let n = Int(v), n > 0 else {
      FileHandle.standardError.write(Data("Error: --runs takes a positive number\n\(help)".utf8))
      exit(64)
    }
    args.removeFirst()
    runs = n
  case "--only":
    guard let v = args.first, sections.contains(v) else {
      FileHandle.standardError.write(
        Data("Error: --only takes one of \(sections.joined(separator: ", "))\n".utf8))
      exit(64)
    }
    args.removeFirst()
    only = v
  case "--check-states":
    guard let v = args.first, let n = Int(v), n > 0 else {
      FileHandle.standardError.write(
        Data("Error: --check-states takes a positive number\n\(help)".utf8))
      exit(64)
    }
    args.removeFirst()
    checkStates = n
  case "--scenarios":
    guard let v = args.first else {
      FileHandle.standardError.write(Data("Error: --scenarios takes a directory\n".utf8))
      exit(64)
    }
    args.removeFirst()
    directory = v
  default:
    FileHandle.standardError.write(Data("Error: unknown argument '\(arg)'\n\(help)".utf8))
    exit(64)
  }
}

#if DEBUG
  FileHandle.standardError.write(
    Data("warning: this is a debug build; run `swift run -c release flowbench`\n".utf8))
#endif

@MainActor func progress(_ text: String) {
  if !json { FileHandle.standardError.write(Data("  measuring \(text)…\n".utf8)) }
}

/// Runs `work` on the global executor and waits for it. The program's main stays synchronous,
/// so it also runs under tools that cannot follow an asynchronous main's parked main thread
/// (valgrind stops with an internal error there).
func blocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
  let box = Box<T>()
  let done = DispatchSemaphore(value: 0)
  Task.detached {
    box.value = await work()
    done.signal()
  }
  done.wait()
  return box.value!
}

/// What `blocking`'s task hands back, written before the semaphore is signalled and read after.
final class Box<T>: @unchecked Sendable { var value: T? }

if let checkStates {
  let result = Bench.checkPrefix(states: checkStates)
  print(result)
  exit(0)
}

do {
  var figures: [Figure] = []
  func wanted(_ s: String) -> Bool { only == nil || only == s }
  // Memory first, while the process is fresh: resident-memory growth is then real growth.
  if wanted("runtimes") {
    progress("10,000 runtimes")
    let n = min(runs, 3)
    figures += blocking { await Bench.runtimes(runs: n) }
  }
  if wanted("memory") {
    progress("memory")
    figures += Bench.memory(runs: min(runs, 3))
  }
  if wanted("hot") {
    progress("the hot path")
    figures += Bench.hotPath(runs: runs)
  }
  if wanted("mixed") {
    progress("mixed flows")
    figures += Bench.mixed(try stories(from: directory), runs: runs)
  }
  if wanted("replay") {
    progress("replay")
    figures += try Bench.replay(directory: directory, runs: runs)
    let flowrun = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("flowrun").path
    figures += Bench.flowrunWall(
      binary: flowrun, scenario: directory + "/anonymous-upgrade.json", runs: max(runs, 10))
  }
  if wanted("check") {
    progress("the model checker")
    figures += Bench.modelCheck(runs: min(runs, 3))
  }
  print(json ? Report.json(figures) : Report.table(figures), terminator: "")
} catch {
  FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
  exit(1)
}
