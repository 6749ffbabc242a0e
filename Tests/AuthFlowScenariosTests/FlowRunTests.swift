import AuthFlowCore
import Foundation
import Testing

@testable import AuthFlowScenarios
@testable import FlowRunKit

@Suite("flowrun, the command")
struct FlowRunTests {
  let upgrade = Paths.scenarios + "/anonymous-upgrade.json"

  @Test("help goes to stdout with exit 0, for the tool and each subcommand")
  func help() {
    for args in [
      ["--help"], ["-h"], ["help"], ["validate", "--help"], ["schema", "-h"], ["help", "validate"],
    ] {
      let out = FlowRun.main(args)
      #expect(out.code == 0, "\(args)")
      #expect(out.stdout.contains("USAGE: flowrun"), "\(args)")
      #expect(out.stderr.isEmpty)
    }
  }

  @Test("bad usage prints Error: and the usage to stderr, exit 64")
  func usage() {
    for args in [
      [String](), ["--formt", "json", upgrade], ["--format", "xml", upgrade], ["--filter"],
    ] {
      let out = FlowRun.main(args)
      #expect(out.code == 64, "\(args)")
      #expect(out.stderr.hasPrefix("Error: "), "\(args)")
      #expect(out.stderr.contains("USAGE:"))
    }
    #expect(FlowRun.main(["--formt", "json", upgrade]).stderr.contains("did you mean '--format'?"))
  }

  @Test("a subcommand's usage error shows that subcommand's usage and where its help is")
  func subcommandUsage() {
    let out = FlowRun.main(["check", "--threads", "0"])
    #expect(out.code == 64)
    #expect(out.stderr.hasPrefix("Error: --threads takes a positive whole number"))
    #expect(out.stderr.contains("USAGE: flowrun check [--depth <n>]"))
    #expect(!out.stderr.contains("flowrun validate"))
    #expect(out.stderr.hasSuffix("See 'flowrun help check'.\n"))
    let unknown = FlowRun.main(["graph", "--stats"])
    #expect(unknown.stderr.contains("USAGE: flowrun graph"))
    #expect(unknown.stderr.contains("See 'flowrun help graph'."))
    // No subcommand named: the program's usage, every subcommand's lines.
    let typo = FlowRun.main(["chek"])
    #expect(typo.stderr.contains("did you mean 'check'?"))
    for command in FlowRun.subcommands {
      #expect(typo.stderr.contains("flowrun \(command.name == "run" ? "[run]" : command.name)"))
    }
  }

  @Test("every flag and option a subcommand takes is in its usage, and that usage is the program's")
  func usageListsOptions() {
    let program = FlowRun.usage
    for command in FlowRun.subcommands {
      let lines = command.usageLines
      #expect(!lines.isEmpty, "\(command.name) has no USAGE line")
      for line in lines { #expect(program.contains(line), "\(command.name): \(line)") }
      for name in command.flags.union(command.options).subtracting(FlowRun.common) {
        #expect(
          lines.contains { $0.contains("[\(name)") || $0.contains(" \(name) ") },
          "\(command.name)'s usage does not show \(name)")
      }
    }
  }

  @Test("one scenario: its line, its description, the summary and where to look next")
  func single() throws {
    let out = FlowRun.main([upgrade])
    #expect(out.code == 0)
    let description = try Scenario.load(path: upgrade).description
    #expect(
      out.stdout == "✔ anonymous-upgrade — 3 steps, 7 transitions\n    \(description)\n"
        + "1 passed, 0 failed\n"
        + "(--trace prints every transition; flowrun report draws each run as a picture)\n")
  }

  @Test("--filter picks scenarios by name; --quiet prints only the summary")
  func filterQuiet() throws {
    let out = FlowRun.main(["--quiet", "--filter", "migration", Paths.scenarios])
    #expect(out.code == 0)
    #expect(out.stdout.hasSuffix(" passed, 0 failed\n"))
    #expect(!out.stdout.contains("✔"))
    let selected = Int(out.stdout.prefix { $0.isNumber }) ?? 0
    let all = ScenarioFiles.expand([Paths.scenarios]).files
    let expected = try all.filter {
      try Scenario.load(path: $0).name.contains("migration") || $0.contains("migration")
    }.count
    #expect(selected == expected && expected > 5 && expected < all.count)
  }

  @Test("a failing scenario: exit 1, the step, a -/+ diff and the last transitions")
  func failing() throws {
    let text = Paths.read(upgrade).replacingOccurrences(
      of: #""linkTo": "$anonToken""#, with: #""linkTo": "id-zz""#)
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "flowrun-fail-\(UUID()).json"
    ).path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let out = FlowRun.main([path])
    #expect(out.code == 1)
    #expect(out.stdout.contains("✘ anonymous-upgrade — failed at step 3 of 3"))
    #expect(out.stdout.contains("    step 3: send signInWithGoogleTapped"))
    #expect(out.stdout.contains("- signInWithIdp"))
    #expect(out.stdout.contains("+ signInWithIdp"))
    #expect(out.stdout.contains("last transitions:"))
    // The tokens the file spells are its author's: shown as written, the field that differs
    // named, no line longer than 110 characters.
    #expect(out.stdout.contains(#""linkTo":"id-a1""#))
    #expect(out.stdout.contains("^ signInWithIdp: differs in linkTo"))
    #expect(out.stdout.split(separator: "\n").allSatisfy { $0.count <= 110 })
    #expect(out.stdout.contains("0 passed, 1 failed\n(--trace prints every transition"))
  }

  @Test("JSON and JUnit reports carry the same verdicts")
  func formats() throws {
    let json = FlowRun.main(["--format", "json", Paths.scenarios])
    #expect(json.code == 0)
    let parsed = try JSONValue.parse(json.stdout)
    #expect(parsed["failed"] == .number(0))
    let junit = FlowRun.main(["--format=junit", Paths.scenarios])
    #expect(junit.stdout.hasPrefix("<?xml"))
    #expect(junit.stdout.contains("failures=\"0\" errors=\"0\""))
    #expect(junit.stdout.contains("<testcase name=\"anonymous-upgrade\""))
  }

  @Test("flowrun schema prints Docs/scenario.schema.json")
  func schema() throws {
    let out = FlowRun.main(["schema"])
    #expect(out.code == 0)
    #expect(out.stdout == Paths.read(Paths.docs + "/scenario.schema.json"))
    _ = try JSONValue.parse(out.stdout)
  }

  @Test("validate checks without running")
  func validate() {
    let out = FlowRun.main(["validate", Paths.scenarios])
    #expect(out.code == 0)
    #expect(out.stdout.contains(" valid, 0 invalid"))
  }
}

@Suite("Expectation matching")
struct MatchingTests {
  func run(
    _ steps: String, script: String = #"{"loadSession": [{"sessionLoaded": {"session": null}}]}"#
  )
    throws -> ScenarioReport
  {
    let text =
      #"{"name": "t", "clock": "2026-01-01T09:00:00Z", "script": \#(script), "steps": \#(steps)}"#
    return ScenarioRunner.run(try Scenario.parse(text, file: "t.json"))
  }

  @Test("exact effects fail on an unlisted effect, include allows it, exclude forbids it")
  func effectLists() throws {
    #expect(try run(#"[{"send": "appLaunched", "expect": {"effects": []}}]"#).failure != nil)
    #expect(try run(#"[{"send": "appLaunched", "expect": {"effects": ["loadSession"]}}]"#).passed)
    #expect(try run(#"[{"send": "appLaunched", "expect": {"effectsInclude": []}}]"#).passed)
    #expect(
      try run(#"[{"send": "appLaunched", "expect": {"effectsExclude": ["loadSession"]}}]"#).failure
        != nil)
  }

  @Test("object patterns match given fields only; null matches an absent field")
  func subsets() throws {
    #expect(
      try run(
        #"[{"send": "appLaunched", "expect": {"effects": [{"loadSession": {"requestId": 1}}]}}]"#
      ).passed)
    #expect(
      try run(
        #"[{"send": "appLaunched", "expect": {"effects": [{"loadSession": {"requestId": 2}}]}}]"#
      ).failure != nil)
    #expect(try run(#"[{"send": "signInWithGoogleTapped"}]"#, script: "{}").passed)
  }

  @Test("requests left pending fail the scenario unless allowPending")
  func pending() throws {
    let r = try run(#"[{"send": "appLaunched"}]"#, script: "{}")
    #expect(
      r.failure?.problems.first?.contains("requests still pending: loadSession (request 1)") == true
    )
  }

  @Test("respond without a pending request is a step failure")
  func respondNothing() throws {
    let r = try run(#"[{"respond": {"to": "refreshToken", "with": "accountDeleted"}}]"#)
    #expect(
      r.failure?.problems == [#"no pending "refreshToken" request to respond to (pending: none)"#])
  }

  @Test("line diff marks removed and added lines around common ones")
  func diff() {
    let lines = ["a", "b", "c"]
    let other = ["a", "x", "c"]
    #expect(
      Matching.diff(expected: lines, actual: other) { lines[$0] == other[$1] }
        == ["  a", "+ x", "- b", "  c"])
  }
}

@Suite("ISO 8601 times")
struct ISOTimeTests {
  @Test(
    "known instants format and parse both ways",
    arguments: [
      (0.0, "1970-01-01T00:00:00Z"), (1_767_258_000, "2026-01-01T09:00:00Z"),
      (951_782_400, "2000-02-29T00:00:00Z"), (-86_400, "1969-12-31T00:00:00Z"),
      (1_709_208_000.5, "2024-02-29T12:00:00.500Z"), (4_102_444_799, "2099-12-31T23:59:59Z"),
    ])
  func roundTrip(seconds: Double, text: String) {
    #expect(ISOTime.format(Instant(seconds)) == text)
    #expect(ISOTime.parse(text) == Instant(seconds))
  }

  @Test("offsets are applied; malformed times are refused")
  func offsets() {
    #expect(ISOTime.parse("2026-01-01T10:00:00+01:00") == ISOTime.parse("2026-01-01T09:00:00Z"))
    #expect(ISOTime.parse("2026-01-01T08:30:00-00:30") == ISOTime.parse("2026-01-01T09:00:00Z"))
    for bad in [
      "2026-01-01", "2026-13-01T00:00:00Z", "2026-01-01T00:00:00", "yesterday",
      "2026-01-01T00:00:00.Z", "2026-01-01T25:00:00Z", "2026-01-01T00:00:00Zjunk",
    ] {
      #expect(ISOTime.parse(bad) == nil, "\(bad)")
    }
  }

  @Test("graph --scenario --path draws only the story's states and arrows, numbered in order")
  func scenarioPath() {
    let upgrade = Paths.scenarios + "/anonymous-upgrade.json"
    let out = FlowRun.main(["graph", "--scenario", upgrade, "--path"])
    #expect(out.code == 0)
    #expect(out.stdout.hasPrefix("stateDiagram-v2\n  [*] --> starting\n"))
    #expect(out.stdout.contains("  starting --> restoring: 1 appLaunched\n"))
    #expect(!out.stdout.contains("deletingAccount"), "a state the story never entered")
    let dot = FlowRun.main(["graph", "--format", "dot", "--scenario", upgrade, "--path"])
    #expect(dot.stdout.contains("\"starting\" -> \"restoring\" [label=\"1 appLaunched\"];"))
    #expect(FlowRun.main(["graph", "--path"]).code == 64)
  }
}
