import AuthFlowCore
import AuthFlowScenarios
import AuthFlowVerification
import FlowRunKit
import Foundation
import Testing

/// A new, empty folder in the temporary directory.
func scratchFolder() throws -> String {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-\(UUID())")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url.path
}

@Suite("flowrun explore, generate and graph --scenario")
struct VerificationCommandTests {
  let upgrade = repositoryRoot.appendingPathComponent("Scenarios/anonymous-upgrade.json").path

  @Test("explore: a seeded run prints its seed and figures; json parses; bad numbers exit 64")
  func explore() throws {
    let out = FlowRun.main(["explore", "--sequences", "300", "--seed", "7"])
    #expect(out.code == 0, "\(out.stdout)")
    #expect(out.stdout.contains("Ran 300 sequences"))
    #expect(out.stdout.contains("from master seed 7 "))
    #expect(out.stdout.contains("Invariants: all held on every step."))
    let again = FlowRun.main(["explore", "--sequences", "300", "--seed", "7"])
    #expect(
      again.stdout.split(separator: "(").first == out.stdout.split(separator: "(").first,
      "the same seed runs the same sequences")
    let json = try JSONValue.parse(
      FlowRun.main(["explore", "--sequences", "50", "--seed", "1", "--format", "json"]).stdout)
    #expect(json["passed"] == .bool(true))
    #expect(json["sequences"] == .number(50))
    let one = FlowRun.main(["explore", "--replay", "12345"])
    #expect(one.stdout.contains("Ran 1 sequences"))
    #expect(FlowRun.main(["explore", "--seed", "-1"]).code == 64)
    #expect(FlowRun.main(["explore", "--sequences", "0"]).code == 64)
    #expect(FlowRun.main(["explore", "--format", "xml"]).code == 64)
  }

  @Test("generate: every story it writes replays under strict rules and takes its transition")
  func generate() throws {
    let folder = try scratchFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let dry = FlowRun.main(["generate", "--max-states", "2500", "--dry-run", upgrade])
    #expect(dry.code == 0)
    #expect(dry.stdout.contains("would write"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    let out = FlowRun.main(["generate", "--max-states", "2500", "--out", folder, upgrade])
    #expect(out.code == 0, "\(out.stdout)\(out.stderr)")
    let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
      $0.hasSuffix(".json")
    }
    #expect(files.count > 20, "\(out.stdout)")
    for file in files.prefix(40) {
      let scenario = try Scenario.load(path: folder + "/" + file)
      let report = ScenarioRunner.run(scenario, strict: true)
      #expect(report.passed, "\(file): \(report.failure?.problems ?? [])")
      // The story ends with the transition its name promises.
      let parts = file.dropFirst("generated-".count).dropLast(".json".count)
        .split(separator: "-", maxSplits: 1)
      let last = report.transitions.last { $0.changed }
      #expect(last?.from == String(parts[0]), "\(file)")
    }
    // The stories it wrote are no longer missing: a second run writes fewer.
    let second = FlowRun.main(["generate", "--max-states", "2500", "--dry-run", upgrade, folder])
    #expect(second.stdout.contains("0 stories to write"), "\(second.stdout)")
  }

  @Test("graph --scenario: the story's states and arrows are highlighted in Mermaid and DOT")
  func highlighted() {
    let mermaid = FlowRun.main(["graph", "--max-states", "2000", "--scenario", upgrade])
    #expect(mermaid.code == 0)
    #expect(mermaid.stdout.contains("classDef story"))
    #expect(mermaid.stdout.contains("class anonymous story"))
    #expect(!mermaid.stdout.contains("class migrating story"), "a state the story never enters")
    let plain = FlowRun.main(["graph", "--max-states", "2000"])
    #expect(!plain.stdout.contains("classDef story"))
    let dot = FlowRun.main([
      "graph", "--format", "dot", "--max-states", "2000", "--scenario", upgrade,
    ])
    #expect(dot.stdout.contains(#"anonymous [style="rounded,filled""#))
    #expect(dot.stdout.contains("color="))
    let missing = FlowRun.main(["graph", "--scenario", "/no/such/file.json"])
    #expect(missing.code == 66)
  }
}

@Suite("Crash and relaunch")
struct RelaunchTests {
  /// A world with a signed-in guest.
  func guest() -> World {
    var w = World()
    w.apply(.send(.appLaunched))
    w.apply(.respond(to: "loadSession", with: .loadSession(1, .sessionLoaded(session: nil))))
    w.apply(.send(.signInAnonymouslyTapped))
    let s = Session(
      uid: "guest-1", anonymous: true, idToken: "id-g", refreshToken: "rt-g",
      expiresAt: w.now + 3600)
    w.apply(.respond(to: "signUpAnonymously", with: .signUpAnonymously(2, .signedIn(session: s))))
    return w
  }

  @Test("a relaunch reads the last write; losing it reads the write before")
  func store() {
    var w = guest()
    #expect(w.store?.uid == "guest-1")
    var kept = w
    #expect(kept.apply(.relaunch(lostLastWrite: false)).isEmpty)
    #expect(kept.machine.stateName == .restoring)
    #expect(kept.issued.map(\.name) == ["loadSession"], "the old requests died with the process")
    var lost = w
    lost.apply(.relaunch(lostLastWrite: true))
    #expect(lost.store == nil, "the sign-up's write never landed")
    w.apply(.relaunch(lostLastWrite: false))
    var answers = w
    let load = Alphabet.answers(for: .flow, in: &answers)
    #expect(load?.results.first == .loadSession(1, .sessionLoaded(session: w.store)))
  }

  @Test("run history: a token of a cleared session handed out again is caught")
  func history() {
    var h = RunHistory()
    var w = guest()
    let before = w.machine
    let effects = w.machine.handle(.intent(.signOutTapped(discardAnonymousData: true)), now: w.now)
    #expect(
      h.observe(before: before, event: .intent(.cancelTapped), after: w.machine, effects: effects)
        .isEmpty)
    let replay = h.observe(
      before: w.machine, event: .intent(.cancelTapped), after: w.machine,
      effects: [.deliverIDToken(requestIds: [1], result: .token(idToken: "id-g"))])
    #expect(replay.map(\.invariant) == [.clearedTokensUnused])
    h.writeLost(restoring: before.user?.session)
    #expect(
      h.observe(
        before: w.machine, event: .intent(.cancelTapped), after: w.machine,
        effects: [.deliverIDToken(requestIds: [1], result: .token(idToken: "id-g"))]
      ).isEmpty, "a clearing that never reached the store does not count")
  }

  @Test("the checker takes every migration policy's conflict answer")
  func everyPolicy() {
    var options = ModelChecker.Options()
    options.maxStates = 6_000
    options.keepWitnesses = true
    let all = ModelChecker(options: options).run()
    options.everyMigrationPolicy = false
    let askOnly = ModelChecker(options: options).run()
    #expect(all.transitions > askOnly.transitions)
    let direct = all.edges.filter { $0.event == "credentialAlreadyInUse" && $0.to == "migrating" }
    #expect(!direct.isEmpty, "merge and switch go straight to migrating")
    for edge in direct {
      #expect(all.witnessPolicies[edge]?.migration != .ask)
    }
  }
}
