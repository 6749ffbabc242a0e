import AuthFlowCore
import AuthFlowScenarios
import Foundation
import Testing

/// The HTML report's drawings, checked against simple rules on every scenario in Scenarios/.
@Suite("The HTML report")
struct ReportTests {
  static let failing = Paths.root.appendingPathComponent(
    "Tests/AuthFlowScenariosTests/Failing/upgrade-expects-the-wrong-user.json"
  ).path

  static func entries(_ files: [String]) throws -> [HTMLReport.Entry] {
    try files.map { file in
      let scenario = try Scenario.load(path: file)
      let r = ScenarioRunner.run(scenario)
      return HTMLReport.Entry(report: r, description: scenario.description, steps: [], seconds: 0)
    }
  }

  /// The values of `attribute` in every element of `svg` that starts with `prefix`.
  static func values(_ attribute: String, in svg: String, of prefix: String) -> [Double] {
    svg.components(separatedBy: prefix).dropFirst().compactMap { element in
      guard let end = element.firstIndex(of: ">") else { return nil }
      let tag = element[..<end]
      guard let r = tag.range(of: " \(attribute)=\"") else { return nil }
      let rest = tag[r.upperBound...]
      return Double(rest.prefix { $0 != "\"" })
    }
  }

  @Test("every arrow of every scenario's sequence runs between two lanes")
  func arrowsBetweenLanes() throws {
    let lanes = Set(SequenceDiagram.Lane.allCases.map { SequenceDiagram.Layout.x($0) })
    let files = ScenarioFiles.expand([Paths.scenarios]).files
    #expect(files.count >= 90)
    for file in files {
      let scenario = try Scenario.load(path: file)
      let diagram = SequenceDiagram(
        ScenarioRunner.run(scenario), redactor: Redactor(showSecrets: false))
      let svg = diagram.svg()
      let x1 = Self.values("x1", in: svg, of: "<line class=\"msg\"")
      let x2 = Self.values("x2", in: svg, of: "<line class=\"msg\"")
      #expect(x1.count == x2.count)
      #expect(!x1.isEmpty, "\(file) draws no arrow")
      for x in x1 + x2 { #expect(lanes.contains(x), "\(file): an arrow ends at x=\(x), no lane") }
      // Every row is an arrow, a note or a clock line, and every row is drawn.
      #expect(svg.components(separatedBy: "<g class=\"").count - 1 == diagram.rows.count)
    }
  }

  @Test("lane headers do not overlap and their labels fit")
  func laneLabels() {
    typealias L = SequenceDiagram.Layout
    let lanes = SequenceDiagram.Lane.allCases
    for (a, b) in zip(lanes, lanes.dropFirst()) {
      #expect(L.x(b) - L.x(a) >= L.headerWidth + 4, "\(a) and \(b) overlap")
    }
    for lane in lanes {
      // 12 px bold sans-serif: at most about 7.5 px a character.
      #expect(Double(lane.title.count) * 7.5 <= L.headerWidth - 8, "\(lane.title) does not fit")
    }
    #expect(L.x(.app) - L.headerWidth / 2 >= 0)
    #expect(L.x(.others) + L.headerWidth / 2 <= L.width)
  }

  @Test("text is escaped: a scenario named <script> shows as text")
  func escaping() throws {
    let scenario = Scenario(
      name: "<script>alert('x')</script> & \"quotes\"",
      description: "<img src=x onerror=alert(1)>",
      steps: [Step(.send(.appLaunched))])
    let r = ScenarioRunner.run(scenario)
    let page = HTMLReport(
      title: "<b>title</b>",
      entries: [
        HTMLReport.Entry(
          report: r, description: scenario.description,
          steps: [
            .object([
              ("send", .object([("appLaunched", .object([]))])), ("note", .string("</td><script>")),
            ])
          ], seconds: 0)
      ],
      invalid: [(file: "<evil>.json", message: "<x>")]
    ).html()
    #expect(page.components(separatedBy: "<script>").count == 2, "only the report's own script")
    #expect(
      page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quotes&quot;"))
    #expect(page.contains("&lt;img src=x onerror=alert(1)&gt;"))
    #expect(!page.contains("<b>title</b>"))
    #expect(!page.contains("<evil>") && !page.contains("<img"))
  }

  @Test("a failed step is marked in the steps, the sequence and the failure box")
  func failureMarked() throws {
    let scenario = try Scenario.load(path: Self.failing)
    let r = ScenarioRunner.run(scenario)
    #expect(!r.passed)
    #expect(r.failure?.step == 2)
    let steps: [JSONValue] = (0..<3).map { _ in .object([("send", .object([]))]) }
    let page = HTMLReport(
      title: "t",
      entries: [HTMLReport.Entry(report: r, description: "", steps: steps, seconds: 0)]
    ).html()
    #expect(page.contains("Step 3 failed"))
    #expect(page.contains("<tr class=\"step-failed\"><td>3</td>"))
    #expect(page.contains("class=\"fail-band\""))
    #expect(page.contains("- {&quot;uid&quot;:&quot;user-9&quot;}"))
  }

  @Test("each scenario of a report has both diagrams, and secrets are fingerprints")
  func diagramsAndSecrets() throws {
    let files = ScenarioFiles.expand([Paths.scenarios]).files
    let page = HTMLReport(title: "all", entries: try Self.entries(files)).html()
    #expect(page.components(separatedBy: "<svg class=\"sequence\"").count - 1 == files.count)
    #expect(page.components(separatedBy: "<svg class=\"states\"").count - 1 == files.count)
    // Tokens the scenarios hand out never appear in the drawings (the steps tables are empty
    // here: the file's own spelling is shown there, as its author wrote it).
    #expect(!page.contains("rt-a1") && !page.contains("id-a2"))
    #expect(page.contains("‹secret:"))
    // Small enough to mail: a few kilobytes a scenario.
    #expect(page.utf8.count < files.count * 40_000, "\(page.utf8.count) bytes")
  }
}
