import AuthFlowCore
import AuthFlowScenarios
import Foundation

extension FlowRun {
  static let reportHelp = """
    OVERVIEW: Run scenarios and write one self-contained HTML report.

    The page opens from disk in any browser (no network, no external script, style or font):
    an index of every scenario with its outcome and time (filter by name and by outcome), and
    for each scenario its sequence diagram (app, machine, provider consent, Firebase, Secure
    Token, session store, other processes; secrets as fingerprints), the state diagram with
    the path it took numbered in order, and its steps with their expectations. A failed step
    is marked, with what was expected and what happened. Counterexamples that `flowrun check`
    and `flowrun explore` write are scenario files: report them the same way.

    USAGE: flowrun report [--out <file>] [--title <text>] [--filter <substring>] [--strict] \
    [--show-secrets] <path> ...
           flowrun report --live --config <file> [--browser <mode>] [--login-hint <hint>] \
    [--out <file>] <path> ...

    OPTIONS:
      --out <file>            Where to write the page (default: flowrun-report.html).
      --title <text>          The page's title (default: AuthFlow scenarios).
      --filter <substring>    Only scenarios whose name or file path contains it.
      --strict                Strict rules, as for `flowrun run --strict`.
      --show-secrets          Show tokens and passwords in the diagrams instead of fingerprints.
      --live                  Run against the providers and Firebase (see 'flowrun help record'
                              for --config, --browser and --login-hint).
      -h, --help              Show help information.

    Exit 0 when every scenario passed, 1 when one failed, 65 when a file is invalid (the page is
    written in every case, invalid files listed).

    EXAMPLES:
      flowrun report Scenarios/ && open flowrun-report.html
      flowrun report --out /tmp/why.html /tmp/counterexamples/

    """

  static func report(_ a: Arguments) throws -> CommandOutput {
    let selection = try select(a)
    if let empty = selection.nothingSelected { return empty }
    let redactor = Redactor(showSecrets: a.has("--show-secrets"))
    var entries: [HTMLReport.Entry] = []
    var ran: [RunEntry] = selection.invalid
    let clock = ContinuousClock()
    for scenario in selection.scenarios {
      let start = clock.now
      let r = ScenarioRunner.run(scenario, redactor: redactor, strict: a.has("--strict"))
      entries.append(reportEntry(scenario, r, seconds: seconds(clock.now - start)))
      ran.append(.ran(r))
    }
    return try writeReport(entries, entries: ran, a, redactor: redactor, subtitle: "replayed")
  }

  /// The page's entry for one run: the file's own steps, as its author spelled them.
  static func reportEntry(_ scenario: Scenario, _ r: ScenarioReport, seconds: Double)
    -> HTMLReport.Entry
  {
    var steps: [JSONValue] = []
    if let text = try? String(contentsOfFile: scenario.file, encoding: .utf8),
      case .object(let members)? = try? JSONValue.parse(text),
      case .array(let list)? = members.first(where: { $0.key == "steps" })?.value
    {
      steps = list
    }
    return HTMLReport.Entry(
      report: r, description: scenario.description, steps: steps, seconds: seconds)
  }

  /// Writes the page to `--out` and says where; the exit code is the run's.
  static func writeReport(
    _ pages: [HTMLReport.Entry], entries: [RunEntry], _ a: Arguments, redactor: Redactor,
    subtitle: String
  ) throws -> CommandOutput {
    let out = a.options["--out"] ?? "flowrun-report.html"
    let invalid: [(file: String, message: String)] = entries.compactMap {
      if case .invalid(let e) = $0 { return (e.file, e.message) }
      return nil
    }
    let page = HTMLReport(
      title: a.options["--title"] ?? "AuthFlow scenarios", entries: pages, invalid: invalid,
      redactor: redactor,
      subtitle: "\(pages.count) scenarios \(subtitle) by flowrun report"
    ).html()
    do {
      try page.write(toFile: out, atomically: true, encoding: .utf8)
    } catch {
      return CommandOutput(
        code: ExitCode.cantCreate, stderr: "Error: cannot write the report to \(out): \(error)\n")
    }
    let failed = pages.filter { !$0.report.passed }.count
    var text = "Wrote \(out) (\(page.utf8.count / 1024) KB): \(pages.count - failed) passed, "
    text += "\(failed) failed"
    text += invalid.isEmpty ? ".\n" : ", \(invalid.count) invalid.\n"
    return CommandOutput(code: exitCode(entries), stdout: text, stderr: fileErrors(entries))
  }

  static func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
  }
}
