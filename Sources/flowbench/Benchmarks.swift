import AuthFlowCore
import AuthFlowRuntime
import AuthFlowScenarios
import AuthFlowVerification
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Realistic token sizes: a Firebase ID token is a ~900-byte JWT, a refresh token ~250 bytes.
func realisticSession(uid: String, at now: Instant) -> Session {
  Session(
    uid: uid, anonymous: false, providers: ["google.com"], email: "mike@example.com",
    idToken: "eyJ" + String(repeating: "a", count: 900),
    refreshToken: String(repeating: "r", count: 250),
    expiresAt: now + 3600)
}

/// A machine signed in with a fresh session, reached through real events.
func signedInMachine(now: Instant) -> AuthMachine {
  var m = AuthMachine()
  _ = m.handle(.intent(.appLaunched), now: now)
  _ = m.handle(
    .answer(.loadSession(1, .sessionLoaded(session: realisticSession(uid: "user-1", at: now)))),
    now: now)
  return m
}

/// The event log of every scenario: each a fresh machine and its timed events.
struct Story {
  var policy: Policy
  var events: [(Event, Instant)]
}

func stories(from directory: String) throws -> [Story] {
  try ScenarioFiles.expand([directory]).files.map { file in
    let scenario = try Scenario.load(path: file)
    let report = ScenarioRunner.run(scenario)
    return Story(policy: scenario.policy, events: report.transitions.map { ($0.event, $0.at) })
  }
}

enum Bench {
  /// `idTokenRequested` answered from a fresh session: ns per event and allocations per event.
  static func hotPath(runs: Int) -> [Figure] {
    let now = Instant(1_767_258_000)
    var times: [Double] = []
    var allocs: [Double] = []
    let n = 2_000_000
    for _ in 0..<runs {
      var m = signedInMachine(now: now)
      var effects: [Effect] = []
      effects.reserveCapacity(8)
      let t = seconds {
        for i in 0..<n {
          effects.removeAll(keepingCapacity: true)
          m.handle(
            .intent(.idTokenRequested(requestId: TokenRequestID(i), forceRefresh: false)), now: now,
            into: &effects)
        }
      }
      blackHole(effects)
      times.append(t / Double(n) * 1e9)
      let before = allocations()
      for i in 0..<100_000 {
        effects.removeAll(keepingCapacity: true)
        m.handle(
          .intent(.idTokenRequested(requestId: TokenRequestID(i), forceRefresh: false)), now: now,
          into: &effects)
      }
      allocs.append(Double(allocations() - before) / 100_000)
    }
    var out = [
      Figure(
        section: "hot path", name: "idTokenRequested from a fresh session", unit: "ns/event",
        samples: times, target: "≤ 25", met: nil)
    ]
    if allocationCounting {
      out.append(
        Figure(
          section: "hot path", name: "heap allocations per event", unit: "allocs/event",
          samples: allocs, target: "0", met: nil))
    }
    return out
  }

  /// Whole stories, in place with a reused buffer vs the textbook reduce (copy, fresh array).
  static func mixed(_ stories: [Story], runs: Int) -> [Figure] {
    let eventsPerPass = stories.reduce(0) { $0 + $1.events.count }
    let passes = max(1, 1_000_000 / max(1, eventsPerPass))
    var ours: [Double] = []
    var textbook: [Double] = []
    var ratios: [Double] = []
    for _ in 0..<runs {
      var effects: [Effect] = []
      effects.reserveCapacity(16)
      let a = seconds {
        for _ in 0..<passes {
          for story in stories {
            var m = AuthMachine(policy: story.policy)
            for (event, now) in story.events {
              effects.removeAll(keepingCapacity: true)
              m.handle(event, now: now, into: &effects)
            }
            blackHole(m)
          }
        }
      }
      var sink = 0
      let b = seconds {
        for _ in 0..<passes {
          for story in stories {
            var m = AuthMachine(policy: story.policy)
            for (event, now) in story.events {
              let (next, fx) = reduce(m, event, now: now)
              m = next
              sink &+= fx.count
            }
            blackHole(m)
          }
        }
      }
      blackHole(sink)
      let total = Double(passes * eventsPerPass)
      ours.append(a / total * 1e9)
      textbook.append(b / total * 1e9)
      ratios.append(b / a)
    }
    return [
      Figure(
        section: "mixed flows", name: "whole stories (\(eventsPerPass) events × \(passes))",
        unit: "ns/event", samples: ours, target: "≤ 100", met: nil),
      Figure(
        section: "mixed flows", name: "same stream, textbook reduce (copy in/out, fresh array)",
        unit: "ns/event", samples: textbook, target: nil, met: nil),
      Figure(
        section: "mixed flows", name: "speed-up over textbook", unit: "×", samples: ratios,
        target: "≥ 3", met: nil),
    ]
  }

  /// The scenario suite replayed in-process.
  static func replay(directory: String, runs: Int) throws -> [Figure] {
    let scenarios = try ScenarioFiles.expand([directory]).files.map { try Scenario.load(path: $0) }
    let steps = scenarios.reduce(0) { $0 + $1.steps.count }
    var rates: [Double] = []
    for _ in 0..<runs {
      var passed = 0
      let repeats = 20
      let t = seconds {
        for _ in 0..<repeats {
          for s in scenarios where ScenarioRunner.run(s).passed { passed += 1 }
        }
      }
      blackHole(passed)
      rates.append(Double(steps * repeats) / t)
    }
    return [
      Figure(
        section: "replay", name: "Scenarios/ in-process (\(scenarios.count) files, \(steps) steps)",
        unit: "steps/s", samples: rates, target: "≥ 20,000", met: nil)
    ]
  }

  /// `flowrun Scenarios/anonymous-upgrade.json` as a whole process.
  static func flowrunWall(binary: String, scenario: String, runs: Int) -> [Figure] {
    guard FileManager.default.isExecutableFile(atPath: binary) else { return [] }
    var walls: [Double] = []
    for _ in 0..<runs {
      // posix_spawn rather than Foundation's Process, whose own start-up costs tens of ms.
      var pid: pid_t = 0
      var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
      let argv: [UnsafeMutablePointer<CChar>?] = [strdup(binary), strdup(scenario), nil]
      defer { for a in argv { free(a) } }
      let t = seconds {
        guard posix_spawn(&pid, binary, &actions, nil, argv, environ) == 0 else { return }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
      }
      posix_spawn_file_actions_destroy(&actions)
      walls.append(t)
    }
    return [
      Figure(
        section: "replay", name: "flowrun anonymous-upgrade.json, whole process", unit: "ms",
        samples: walls.map { $0 * 1000 }, target: "< 50", met: nil)
    ]
  }

  /// The first `states` states of the model checker's space, once, on one thread: a fixed
  /// amount of work, for a profiler or an instruction counter to compare two builds by.
  static func checkPrefix(states: Int) -> String {
    var options = ModelChecker.Options()
    options.threads = 1
    options.maxStates = states
    var result = ModelChecker.Result()
    let t = seconds { result = ModelChecker(options: options).run() }
    return "\(result.states) states, \(result.transitions) transitions, "
      + String(format: "%.2f s", t)
  }

  /// The model checker over the whole space, on one thread and on every core.
  static func modelCheck(runs: Int) -> [Figure] {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    func measure(threads: Int) -> (rates: [Double], times: [Double], states: Int) {
      var rates: [Double] = []
      var times: [Double] = []
      var states = 0
      for _ in 0..<runs {
        var options = ModelChecker.Options()
        options.threads = threads
        var result = ModelChecker.Result()
        let t = seconds { result = ModelChecker(options: options).run() }
        states = result.states
        rates.append(Double(result.states) / t)
        times.append(t)
      }
      return (rates, times, states)
    }
    let one = measure(threads: 1)
    let all = measure(threads: cores)
    let speedups = zip(all.rates, one.rates).map { $0 / $1 }
    return [
      Figure(
        section: "model check", name: "states explored per second, 1 thread", unit: "states/s",
        samples: one.rates, target: "≥ 50,000", met: nil),
      Figure(
        section: "model check", name: "states explored per second, \(cores) threads",
        unit: "states/s", samples: all.rates, target: nil, met: nil),
      Figure(
        section: "model check", name: "speed-up of \(cores) threads over 1", unit: "×",
        samples: speedups, target: "≥ 1.7", met: nil),
      Figure(
        section: "model check",
        name: "full reachable space (\(all.states) states), \(cores) threads",
        unit: "s", samples: all.times, target: "< 10", met: nil),
    ]
  }

  /// One machine at rest, and 10,000 live ones (heap measured in the main thread's arena).
  static func memory(runs: Int) -> [Figure] {
    let now = Instant(1_767_258_000)
    var heapTotal: [Double] = []
    for r in 0..<runs {
      let heapBefore = heapInUse()
      var machines: [AuthMachine] = []
      machines.reserveCapacity(10_000)
      for i in 0..<10_000 {
        var m = AuthMachine()
        _ = m.handle(.intent(.appLaunched), now: now)
        _ = m.handle(
          .answer(
            .loadSession(
              1, .sessionLoaded(session: realisticSession(uid: "user-\(r)-\(i)", at: now)))),
          now: now)
        machines.append(m)
      }
      heapTotal.append(heapInUse() - heapBefore)
      blackHole(machines)
    }
    return [
      Figure(
        section: "memory", name: "one machine inline (MemoryLayout<AuthMachine>.stride)",
        unit: "bytes", samples: [Double(MemoryLayout<AuthMachine>.stride)], target: nil, met: nil),
      Figure(
        section: "memory", name: "one signed-in machine, inline + heap (1.2 KB of tokens)",
        unit: "bytes", samples: heapTotal.map { $0 / 10_000 }, target: nil, met: nil),
      Figure(
        section: "memory", name: "10,000 live signed-in machines", unit: "MB",
        samples: heapTotal.map { $0 / 1e6 }, target: nil, met: nil),
    ]
  }

  /// 10,000 independent runtimes in one process (server-side use).
  static func runtimes(runs: Int) async -> [Figure] {
    var perSession: [Double] = []
    var rates: [Double] = []
    for r in 0..<runs {
      let rssBefore = residentBytes()
      var list: [AuthRuntime] = []
      let count = 10_000
      let clock = ManualClock()
      let t = await seconds {
        for i in 0..<count {
          let runtime = AuthRuntime(
            interpreter: InstantInterpreter(uid: "anon-\(r)-\(i)"), store: InMemorySessionStore(),
            clock: clock)
          list.append(runtime)
        }
        await withTaskGroup(of: Void.self) { group in
          for runtime in list {
            group.addTask {
              await runtime.start()
              await runtime.settled()
              await runtime.send(.signInAnonymouslyTapped)
              await runtime.settled()
              _ = try? await runtime.idToken()
            }
          }
        }
      }
      // appLaunched, sessionLoaded, signInAnonymouslyTapped, signedIn, idTokenRequested.
      rates.append(Double(count * 5) / t)
      perSession.append((residentBytes() - rssBefore) / Double(count))
      blackHole(list)
    }
    return [
      Figure(
        section: "runtimes", name: "10,000 AuthRuntime actors: resident memory per session",
        unit: "bytes", samples: perSession, target: nil, met: nil),
      Figure(
        section: "runtimes", name: "10,000 AuthRuntime actors: events handled", unit: "events/s",
        samples: rates, target: nil, met: nil),
    ]
  }
}

/// Answers every request at once: anonymous sign-ups succeed, refreshes succeed, the rest fail.
struct InstantInterpreter: AnsweringInterpreter {
  let uid: String

  func respond(to request: Request, id: RequestID) async -> Answer {
    switch request {
    case .signUpAnonymously:
      RequestSlot.signUpAnonymously.answer(
        id,
        .signedIn(
          session: Session(
            uid: uid, anonymous: true, idToken: "id-" + uid, refreshToken: "rt-" + uid,
            expiresAt: Instant(1_767_258_000 + 3600))))
    case .refreshToken:
      RequestSlot.refreshToken.answer(
        id,
        .tokenRefreshed(
          Tokens(
            idToken: "id2-" + uid, refreshToken: "rt2-" + uid,
            expiresAt: Instant(Date().timeIntervalSince1970 + 3600))))
    default: Answer.failed(request.kind, id, AuthError(code: "NETWORK"))
    }
  }
}
