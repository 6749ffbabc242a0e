import AuthFlowCore
import AuthFlowScenarios
import FlowRunKit
import Foundation
import Testing

@Suite("The Scenarios/ directory")
struct ScenarioSuiteTests {
  static let files = ScenarioFiles.expand([Paths.scenarios]).files

  @Test("there are at least 20 scenarios")
  func count() {
    #expect(Self.files.count >= 20)
  }

  @Test("every scenario passes, under strict rules", arguments: files)
  func passes(file: String) throws {
    let scenario = try Scenario.load(path: file)
    let report = ScenarioRunner.run(scenario, strict: true)
    var writer = ReportWriter()
    writer.redactor = Redactor(showSecrets: true)
    #expect(report.passed, "\(writer.text([.ran(report)]))")
  }

  @Test("two traced runs of the whole directory are byte-identical")
  func deterministic() {
    let a = FlowRun.main(["--trace", Paths.scenarios])
    let b = FlowRun.main(["--trace", Paths.scenarios])
    #expect(a.code == 0)
    #expect(a.stdout == b.stdout)
    #expect(a.stdout.contains("--appLaunched--> restoring"))
  }

  @Test("every state name appears in some scenario")
  func statesCovered() throws {
    var seen: Set<String> = []
    for file in Self.files {
      let report = ScenarioRunner.run(try Scenario.load(path: file))
      for t in report.transitions { seen.insert(t.to) }
    }
    let missing = Set(Vocabulary.states).subtracting(seen).subtracting(["starting"])
    #expect(missing.isEmpty, "never entered: \(missing.sorted())")
  }
}

@Suite("Broken scenario files")
struct BrokenCorpusTests {
  static let cases = ScenarioFiles.expand([Paths.broken]).files.map {
    URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent
  }

  @Test("the corpus is not empty")
  func notEmpty() { #expect(Self.cases.count >= 15) }

  @Test("each broken file gives its documented message and exit code 65", arguments: cases)
  func message(name: String) {
    let path = Paths.broken + "/" + name + ".json"
    let expected = Paths.read(Paths.broken + "/" + name + ".expected")
      .trimmingCharacters(in: .whitespacesAndNewlines)
    do {
      _ = try Scenario.parse(Paths.read(path), file: name + ".json")
      Issue.record("\(name).json parsed without error")
    } catch {
      #expect(error.description == expected)
    }
    let run = FlowRun.main([path])
    #expect(run.code == 65)
    #expect(run.stdout.contains("0 passed, 1 failed (1 invalid)"))
    #expect(FlowRun.main(["validate", path]).code == 65)
  }

  @Test("a missing file exits 66 and says so")
  func missing() {
    let out = FlowRun.main(["validate", "/nonexistent/scenario.json"])
    #expect(out.code == 66)
    #expect(out.stderr.contains("/nonexistent/scenario.json: no such file or directory"))
    #expect(FlowRun.main(["/nonexistent/scenario.json"]).code == 66)
  }
}
