import AuthFlowCore
import FlowRunKit
import Foundation
import Testing

@testable import AuthFlowScenarios

@Suite("flowrun never does the wrong thing silently")
struct CLIFrictionTests {
  func temporaryDirectory() throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-\(UUID())")
      .path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
  }

  @Test("a typo in a subcommand is a usage error with a suggestion, not a missing file")
  func subcommandTypo() {
    for (typo, meant) in [("validat", "validate"), ("grph", "graph"), ("chek", "check")] {
      let out = FlowRun.main([typo, Paths.scenarios])
      #expect(out.code == 64)
      #expect(out.stderr.contains("unknown subcommand '\(typo)'; did you mean '\(meant)'?"))
      #expect(out.stdout.isEmpty, "nothing ran")
    }
  }

  @Test("a filter or a folder that selects nothing is exit 66 with a message, for run and validate")
  func nothingSelected() throws {
    let empty = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: empty) }
    for args in [
      ["--filter", "zzz", Paths.scenarios], ["run", empty], ["validate", empty],
      ["validate", "--filter", "zzz", Paths.scenarios],
    ] {
      let out = FlowRun.main(args)
      #expect(out.code == 66, "\(args)")
      #expect(out.stderr.hasPrefix("Error: no "), "\(args): \(out.stderr)")
    }
  }

  @Test("file errors go to standard error for run and validate alike")
  func diagnosticsOnStderr() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try "{ nope".write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
    for sub in ["run", "validate"] {
      let out = FlowRun.main([sub, dir])
      #expect(out.code == 65)
      #expect(out.stderr.contains("bad.json:1:3: invalid JSON"), "\(sub)")
      #expect(!out.stdout.contains("invalid JSON"), "\(sub)")
    }
  }

  @Test("--live is an option like any other: a scenario file named run is not dropped")
  func liveParsed() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let out = await FlowRun.execute(["--live", "--config", dir + "/missing.json", "run"])
    #expect(out.code == 65, "the config is read first: \(out.stderr)")
    #expect(out.stderr.contains("missing.json: no such file"))
    let noFile = await FlowRun.execute(["run", "--live", "--config", dir + "/missing.json"])
    #expect(noFile.code == 64)
  }

  @Test("the failure diff says which side is expected")
  func diffLegend() throws {
    let text = Paths.read(Paths.scenarios + "/anonymous-upgrade.json").replacingOccurrences(
      of: #""linkTo": "$anonToken""#, with: #""linkTo": "somebody-else""#)
    let report = ScenarioRunner.run(try Scenario.parse(text, file: "x.json"))
    #expect(report.failure?.problems.first?.contains("(- expected, + actual)") == true)
  }

  @Test("state names are offered by the suggestions")
  func stateSuggestions() {
    for (word, hint) in [
      ("signedIn", #""firebaseAuthenticated" or "anonymous""#),
      ("authenticated", #""firebaseAuthenticated""#), ("loggedOut", #""signedOut""#),
      ("migratng", #""migrating""#),
    ] {
      let text =
        #"{"name":"x","steps":[{"send":"appLaunched","expect":{"state":""# + word + #""}}]}"#
      #expect(throws: ScenarioError.self) { try Scenario.parse(text, file: "x.json") }
      do {
        _ = try Scenario.parse(text, file: "x.json")
      } catch {
        #expect(error.message.contains("did you mean \(hint)?"), "\(word): \(error.message)")
      }
    }
  }

  @Test("ScenarioFormat.md lists every state name, and no other")
  func stateNamesDocumented() throws {
    let doc = Paths.read(Paths.docs + "/ScenarioFormat.md")
    let section = try #require(doc.range(of: "### State names")).upperBound
    let end = try #require(doc[section...].range(of: "###")).lowerBound
    let listed = doc[section..<end].split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }
      .map { String($0.element) }
    #expect(listed == Vocabulary.states)
  }
}

@Suite("Scenarios that test less than they say")
struct StrictnessTests {
  static let unused = #"""
    {"name": "unused", "script": {"loadSession": [{"sessionLoaded": {"session": null}}],
       "signUpAnonymously": ["pending", {"requestFailed": {"error": {"code": "NETWORK"}}}]},
     "allowPending": true,
     "steps": [{"send": "appLaunched"}, {"send": "signInAnonymouslyTapped"}]}
    """#

  @Test("an unused script entry: a warning by default, a failure naming it when strict")
  func unusedEntries() throws {
    let scenario = try Scenario.parse(Self.unused, file: "unused.json")
    let lenient = ScenarioRunner.run(scenario)
    #expect(lenient.passed)
    #expect(
      lenient.warnings == [
        "script entries never used: signUpAnonymously[1]; the story tests less than its script says:"
          + " remove them, or set \"allowUnused\": true"
      ])
    let strict = ScenarioRunner.run(scenario, strict: true)
    #expect(!strict.passed)
    #expect(
      strict.failure?.problems.first?.hasPrefix("script entries never used: signUpAnonymously[1]")
        == true)
    let inFile = try Scenario.parse(
      Self.unused.replacingOccurrences(
        of: #""allowPending": true,"#, with: #""allowPending": true, "strict": true,"#),
      file: "unused.json")
    #expect(!ScenarioRunner.run(inFile).passed)
    let allowed = try Scenario.parse(
      Self.unused.replacingOccurrences(
        of: #""allowPending": true,"#, with: #""allowPending": true, "allowUnused": true,"#),
      file: "unused.json")
    #expect(ScenarioRunner.run(allowed, strict: true).passed)
    let out = FlowRun.main(["--strict", "--quiet", Paths.scenarios])
    #expect(out.code == 0, "Scenarios/ pass under strict rules: \(out.stdout)")
  }

  @Test("a respond to a request that was never issued names the ones that exist")
  func respondToNothing() throws {
    let text = #"""
      {"name": "ghost", "script": {"loadSession": [{"sessionLoaded": {"session": null}}]},
       "steps": [{"send": "appLaunched"},
                 {"respond": {"to": "signInWithIdp", "requestId": 42,
                              "with": {"requestFailed": {"error": {"code": "NETWORK"}}}}}]}
      """#
    let scenario = try Scenario.parse(text, file: "ghost.json")
    let expected =
      "step 2: respond to signInWithIdp #42: no request #42 was ever issued (issued: loadSession #1);"
      + " a stale answer should name a request that exists"
    #expect(ScenarioRunner.run(scenario).warnings == [expected])
    #expect(ScenarioRunner.run(scenario, strict: true).failure?.problems == [expected])
  }
}
