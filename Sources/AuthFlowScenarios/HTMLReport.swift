import AuthFlowCore

/// One self-contained HTML page for a set of runs: an index (filter by name and by outcome),
/// and for each run its sequence diagram, the state diagram with the path taken, the steps with
/// their expectations, and for a failure the first mismatching step marked with what was
/// expected and what happened. No network, no external script, style or font: it opens from
/// disk in any browser.
public struct HTMLReport: Sendable {
  /// One run.
  public struct Entry: Sendable {
    /// What the runner reported.
    public var report: ScenarioReport
    /// The scenario's description.
    public var description: String
    /// The file's steps as written (shown as the author spelled them).
    public var steps: [JSONValue]
    /// How long the run took, in seconds.
    public var seconds: Double

    /// An entry.
    public init(report: ScenarioReport, description: String, steps: [JSONValue], seconds: Double) {
      self.report = report
      self.description = description
      self.steps = steps
      self.seconds = seconds
    }
  }

  /// The page's title.
  public var title: String
  /// The runs, in order.
  public var entries: [Entry]
  /// Files that could not be run, with why.
  public var invalid: [(file: String, message: String)]
  /// How secrets in the diagrams are shown.
  public var redactor: Redactor
  /// A line under the title (what produced the page).
  public var subtitle: String

  /// A report.
  public init(
    title: String, entries: [Entry], invalid: [(file: String, message: String)] = [],
    redactor: Redactor = Redactor(showSecrets: false), subtitle: String = ""
  ) {
    self.title = title
    self.entries = entries
    self.invalid = invalid
    self.redactor = redactor
    self.subtitle = subtitle
  }

  /// The state pairs of a run: one per transition that changed the state or did something.
  static func path(_ r: ScenarioReport) -> [(from: String, to: String)] {
    r.transitions.filter(\.changed).map { ($0.from, $0.to) }
  }

  /// The page.
  public func html() -> String {
    let layout = StateDiagram(edges: entries.flatMap { Self.path($0.report) })
    let failed = entries.filter { !$0.report.passed }.count
    var h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    h += "<title>\(HTML.escape(title))</title><style>\(Self.css)</style></head><body>"
    h += "<header><h1>\(HTML.escape(title))</h1>"
    h += "<p class=\"summary\">\(entries.count - failed) passed, \(failed) failed"
    if !invalid.isEmpty { h += ", \(invalid.count) invalid" }
    h += "</p>"
    if !subtitle.isEmpty { h += "<p class=\"sub\">\(HTML.escape(subtitle))</p>" }
    h += "</header><main>"
    // The index.
    h += "<section id=\"index\"><div class=\"filters\">"
    h +=
      "<label>Name <input id=\"filter\" type=\"search\" placeholder=\"part of a name or file\"></label>"
    h += "<label>Outcome <select id=\"outcome\"><option value=\"all\">all</option>"
    h +=
      "<option value=\"passed\">passed</option><option value=\"failed\">failed</option></select></label>"
    h += "<span id=\"shown\"></span></div>"
    h += "<table class=\"index\"><thead><tr><th></th><th>scenario</th><th>file</th><th>steps</th>"
    h += "<th>transitions</th><th>time</th></tr></thead><tbody>"
    for (k, e) in entries.enumerated() {
      let r = e.report
      h +=
        "<tr class=\"entry \(r.passed ? "passed" : "failed")\" data-name=\"\(HTML.escape(r.name + " " + r.file))\">"
      h += "<td class=\"mark\">\(r.passed ? "✔" : "✘")</td>"
      h +=
        "<td><a href=\"#s\(k)\">\(HTML.escape(r.name))</a></td><td class=\"file\">\(HTML.escape(r.file))</td>"
      h += "<td>\(r.stepsRun)/\(r.stepCount)</td><td>\(r.transitions.count)</td>"
      h += "<td>\(Self.duration(e.seconds))</td></tr>"
    }
    h += "</tbody></table>"
    if !invalid.isEmpty {
      h += "<h2>Files that could not be run</h2><ul class=\"invalid\">"
      for i in invalid {
        h += "<li><code>\(HTML.escape(i.file))</code>: \(HTML.escape(i.message))</li>"
      }
      h += "</ul>"
    }
    h += "</section>"
    for (k, e) in entries.enumerated() { h += section(e, number: k, layout: layout) }
    h += "</main><script>\(Self.script)</script></body></html>\n"
    return h
  }

  func section(_ e: Entry, number k: Int, layout: StateDiagram) -> String {
    let r = e.report
    let failedStep = r.failure.map { $0.step ?? -1 }
    var h = "<section class=\"scenario \(r.passed ? "passed" : "failed")\" id=\"s\(k)\""
    h += " data-name=\"\(HTML.escape(r.name + " " + r.file))\">"
    h += "<h2><span class=\"mark\">\(r.passed ? "✔" : "✘")</span> \(HTML.escape(r.name))</h2>"
    h += "<p class=\"file\">\(HTML.escape(r.file)) · \(r.stepsRun) of \(r.stepCount) steps · "
    h +=
      "\(r.transitions.count) transitions · \(Self.duration(e.seconds)) · <a href=\"#index\">index</a></p>"
    if !e.description.isEmpty { h += "<p class=\"description\">\(HTML.escape(e.description))</p>" }
    if let f = r.failure {
      h += "<div class=\"failure step-failed\"><h3>"
      h += f.step.map { "Step \($0 + 1) failed" } ?? "The end-of-scenario checks failed"
      h += ": \(HTML.escape(f.action))</h3>"
      for p in f.problems { h += "<pre>\(HTML.escape(p))</pre>" }
      h += "</div>"
    }
    for w in r.warnings { h += "<p class=\"warning\">⚠ \(HTML.escape(w))</p>" }
    h += "<div class=\"diagrams\"><figure><figcaption>Sequence</figcaption><div class=\"scroll\">"
    h += SequenceDiagram(r, redactor: redactor).svg(highlight: failedStep, id: "\(k)")
    h += "</div></figure><figure><figcaption>States, the path numbered in order</figcaption>"
    h += "<div class=\"scroll\">\(layout.svg(path: Self.path(r), id: "\(k)"))</div></figure></div>"
    // The steps as the file spells them.
    h +=
      "<table class=\"steps\"><thead><tr><th>step</th><th>does</th><th>expects</th><th></th></tr>"
    h += "</thead><tbody>"
    for (i, step) in e.steps.enumerated() {
      var action = step
      var expect: JSONValue?
      if case .object(let members) = step {
        action = .object(members.filter { $0.key != "expect" })
        expect = members.first { $0.key == "expect" }?.value
      }
      let mark: String
      var cls = ""
      if failedStep == i {
        mark = "✘"
        cls = " class=\"step-failed\""
      } else if i < r.stepsRun {
        mark = "✔"
      } else {
        mark = "not run"
        cls = " class=\"not-run\""
      }
      h += "<tr\(cls)><td>\(i + 1)</td><td><code>\(HTML.escape(action.compactText))</code></td>"
      h += "<td><code>\(HTML.escape(expect?.compactText ?? ""))</code></td><td>\(mark)</td></tr>"
    }
    h += "</tbody></table></section>"
    return h
  }

  static func duration(_ seconds: Double) -> String {
    seconds < 1
      ? "\(JSONValue.format((seconds * 10_000).rounded() / 10)) ms"
      : "\(JSONValue.format((seconds * 100).rounded() / 100)) s"
  }

  static let css = """
    body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
    header{background:#1d2a3a;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}
    .summary,.sub{margin:4px 0 0;opacity:.85}main{padding:12px 24px}
    table{border-collapse:collapse;background:#fff;margin:8px 0}td,th{border:1px solid #dde1e7;padding:3px 8px;vertical-align:top;text-align:left}
    th{background:#eef1f5}.index td.file,.file{color:#5a6472;font-size:12px}
    tr.failed td.mark,.scenario.failed h2 .mark{color:#c62828}tr.passed td.mark,.scenario.passed h2 .mark{color:#2e7d32}
    .filters{display:flex;gap:16px;align-items:center;margin:6px 0}input,select{font:inherit;padding:2px 6px}
    section.scenario{background:#fff;border:1px solid #dde1e7;border-radius:8px;margin:18px 0;padding:8px 16px}
    section.scenario.failed{border-color:#e57373}section.scenario h2{margin:6px 0;font-size:17px}
    .description{margin:4px 0 8px}.warning{color:#8a5a00}
    .failure{background:#fdecea;border:1px solid #e57373;border-radius:6px;padding:4px 12px;margin:8px 0}
    .failure h3{margin:6px 0;font-size:14px}.failure pre{white-space:pre-wrap;word-break:break-word;margin:4px 0;font-size:12px}
    .diagrams{display:flex;flex-wrap:wrap;gap:16px}figure{margin:0;min-width:0;max-width:100%}figcaption{font-weight:600;margin:4px 0}
    .scroll{overflow:auto;max-height:760px;border:1px solid #eef1f5}
    table.steps code{white-space:pre-wrap;word-break:break-word;font-size:12px}
    table.steps tr.step-failed td{background:#fdecea}table.steps tr.not-run td{color:#9aa3ad}
    svg text{font:11px ui-monospace,Menlo,Consolas,monospace;fill:#1d2430}
    svg .lane-head{fill:#1d2a3a}svg .lane-label{fill:#fff;font:600 12px system-ui,sans-serif}
    svg .lifeline{stroke:#b8c0cc;stroke-dasharray:4 4}svg .msg{stroke:#3b4a5e;fill:none}
    svg marker path{fill:#3b4a5e}svg .event .msg{stroke:#1565c0}svg .effect .msg{stroke:#6a1b9a}
    svg .timer .msg{stroke:#b26a00}svg .clock{stroke:#999;stroke-dasharray:2 3}svg .clock-label{fill:#666}
    svg .state-note{fill:#e8f5e9;stroke:#66bb6a}svg .fail-band{fill:#fdecea}svg .step-no{fill:#8a94a3}
    svg .node rect{fill:#fff;stroke:#b8c0cc}svg .node.visited rect{fill:#e3f2fd;stroke:#1565c0}
    svg .node.first rect{stroke-width:2.5}svg .path-edge path{stroke:#1565c0;fill:none;stroke-width:1.6}
    svg .path-edge text{fill:#0d47a1;font-weight:600}
    """

  static let script = """
    (function(){
    var errors=[];window.addEventListener('error',function(e){errors.push(String(e.message));});
    function apply(){
      var q=document.getElementById('filter').value.toLowerCase();
      var o=document.getElementById('outcome').value;
      var only=location.hash.indexOf('#only:')===0?decodeURIComponent(location.hash.slice(6)):null;
      var shown=0;
      document.querySelectorAll('tr.entry,section.scenario').forEach(function(el){
        var name=el.getAttribute('data-name').toLowerCase();
        var ok=(!q||name.indexOf(q)>=0)&&(o==='all'||el.classList.contains(o));
        if(only!==null){ok=el.tagName==='SECTION'&&name.split(' ')[0]===only.toLowerCase();}
        el.style.display=ok?'':'none';if(ok&&el.tagName==='TR')shown++;
      });
      document.getElementById('index').style.display=only!==null?'none':'';
      document.getElementById('shown').textContent=shown+' shown';
    }
    function selftest(){
      var sections=document.querySelectorAll('section.scenario');var missing=0;
      sections.forEach(function(s){if(!s.querySelector('svg.sequence')||!s.querySelector('svg.states'))missing++;});
      var failed=document.querySelectorAll('section.scenario.failed');var unmarked=0;
      failed.forEach(function(s){if(!s.querySelector('.step-failed'))unmarked++;});
      document.documentElement.setAttribute('data-selftest',JSON.stringify({scenarios:sections.length,
        missingDiagrams:missing,failed:failed.length,failedUnmarked:unmarked,errors:errors}));
    }
    document.getElementById('filter').addEventListener('input',apply);
    document.getElementById('outcome').addEventListener('change',apply);
    window.addEventListener('hashchange',apply);
    apply();selftest();
    })();
    """
}
