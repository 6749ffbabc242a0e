import AuthFlowCore
import Foundation

/// How `flowrun` prints its results.
public enum ReportFormat: String, Sendable, CaseIterable {
  case text, json, junit
}

/// A scenario file that could not be used, or one that ran.
public enum RunEntry: Sendable {
  /// The file was invalid or missing.
  case invalid(ScenarioError)
  /// The scenario ran.
  case ran(ScenarioReport)
}

/// Turns run entries into text, JSON or JUnit XML; the same input gives the same bytes.
public struct ReportWriter: Sendable {
  /// Print every transition.
  public var trace = false
  /// Print only failures and the summary.
  public var quiet = false
  /// How many transitions to show before a failure.
  public var contextTransitions = 6
  /// Secret handling.
  public var redactor = Redactor(showSecrets: false)

  /// A writer with the defaults.
  public init() {}

  /// `N passed, M failed` (invalid files count as failed).
  public static func summary(_ entries: [RunEntry]) -> String {
    let passed = entries.filter { if case .ran(let r) = $0 { r.passed } else { false } }.count
    let invalid = entries.filter { if case .invalid = $0 { true } else { false } }.count
    let failed = entries.count - passed
    return "\(passed) passed, \(failed) failed" + (invalid > 0 ? " (\(invalid) invalid)" : "")
  }

  /// The text report; the summary counts `summarizing` (by default the same entries), so a
  /// caller can print invalid files elsewhere (standard error) and still count them.
  public func text(_ entries: [RunEntry], summarizing: [RunEntry]? = nil) -> String {
    var out = ""
    // A few scenarios: say what each is about (a whole folder would drown in it).
    let describe = entries.count <= 5
    for entry in entries {
      switch entry {
      case .invalid(let error):
        out += "✘ \(error)\n"
      case .ran(let r):
        if r.passed {
          if !quiet || !r.warnings.isEmpty {
            out += "✔ \(r.name) — \(r.stepCount) steps, \(r.transitions.count) transitions\n"
            if describe, !r.description.isEmpty { out += "    \(r.description)\n" }
          }
          for w in r.warnings { out += "    ⚠ \(w)\n" }
          if trace { out += traceText(r) }
        } else {
          let at = r.failure?.step.map { "step \($0 + 1) of \(r.stepCount)" } ?? "the end"
          out += "✘ \(r.name) — failed at \(at) (\(r.file.isEmpty ? "in memory" : r.file))\n"
          if trace { out += traceText(r) }
          out += failureText(r)
        }
      }
    }
    out += Self.summary(summarizing ?? entries) + "\n"
    if !quiet, !trace {
      out += "(--trace prints every transition; flowrun report draws each run as a picture)\n"
    }
    return out
  }

  func traceText(_ r: ScenarioReport) -> String {
    var out = ""
    var step = -1
    for t in r.transitions {
      if t.step != step {
        step = t.step
        out += "    step \(step + 1):\n"
      }
      out +=
        Self.wrap(
          Render.transition(t, clock: r.clock, redactor.revealing(r.revealed)),
          indent: "      ") + "\n"
    }
    return out
  }

  /// `line` at most `width` characters a line, broken after a comma or a space, the rest
  /// indented further.
  static func wrap(_ line: String, indent: String, width: Int = 110) -> String {
    var out: [String] = []
    var rest = Substring(line)
    var room = width - indent.count
    while rest.count > room {
      let window = rest.prefix(room)
      let cut =
        window.lastIndex(of: ",").map { window.index(after: $0) }
        ?? window.lastIndex(of: " ") ?? window.endIndex
      out.append(String(rest[..<cut]))
      rest = rest[cut...].drop { $0 == " " }
      room = width - indent.count - 4
      if out.count > 40 { break }
    }
    out.append(String(rest))
    return indent + out.joined(separator: "\n" + indent + "    ")
  }

  func failureText(_ r: ScenarioReport) -> String {
    guard let f = r.failure else { return "" }
    var out = "    \(f.step.map { "step \($0 + 1)" } ?? "at the end"): \(f.action)\n"
    for p in f.problems {
      for line in p.split(separator: "\n", omittingEmptySubsequences: false) {
        let text = "    " + line
        let lead = String(text.prefix { $0 == " " })
        out += Self.wrap(String(text.dropFirst(lead.count)), indent: lead) + "\n"
      }
    }
    let last = r.transitions.suffix(contextTransitions)
    if !last.isEmpty && !trace {
      out += "    last transitions:\n"
      for t in last {
        out +=
          Self.wrap(
            Render.transition(t, clock: r.clock, redactor.revealing(r.revealed)), indent: "      ")
          + "\n"
      }
    }
    if !redactor.showSecrets {
      out +=
        "    (tokens the file does not spell are shown as fingerprints; --show-secrets prints them)\n"
    }
    return out
  }

  /// The JSON report.
  public func json(_ entries: [RunEntry]) -> String {
    var items: [JSONValue] = []
    for entry in entries {
      switch entry {
      case .invalid(let e):
        items.append(
          .object([
            ("file", .string(e.file)), ("status", .string("invalid")),
            ("error", .string(e.description)),
          ]))
      case .ran(let r):
        var m: [(key: String, value: JSONValue)] = [
          ("name", .string(r.name)), ("file", .string(r.file)),
          ("status", .string(r.passed ? "passed" : "failed")),
          ("steps", .number(Double(r.stepCount))), ("stepsRun", .number(Double(r.stepsRun))),
          ("transitions", .number(Double(r.transitions.count))),
        ]
        if !r.warnings.isEmpty { m.append(("warnings", .array(r.warnings.map(JSONValue.string)))) }
        if let f = r.failure {
          m.append(
            (
              "failure",
              .object([
                ("step", f.step.map { .number(Double($0 + 1)) } ?? .null),
                ("action", .string(f.action)),
                ("problems", .array(f.problems.map(JSONValue.string))),
              ])
            ))
        }
        if trace {
          m.append(("trace", .array(r.transitions.map { traceJSON($0, clock: r.clock) })))
        }
        items.append(.object(m))
      }
    }
    let passed = entries.filter { if case .ran(let r) = $0 { r.passed } else { false } }.count
    return JSONValue.object([
      ("passed", .number(Double(passed))), ("failed", .number(Double(entries.count - passed))),
      ("scenarios", .array(items)),
    ]).prettyText + "\n"
  }

  func traceJSON(_ t: Transition, clock: Instant) -> JSONValue {
    .object([
      ("step", .number(Double(t.step + 1))), ("at", .number(t.at - clock)),
      ("from", .string(t.from)), ("event", redactor.apply(JSONValue.encoding(t.event))),
      ("to", .string(t.to)),
      ("effects", .array(t.effects.map { redactor.apply(JSONValue.encoding($0)) })),
    ])
  }

  /// The JUnit XML report.
  public func junit(_ entries: [RunEntry]) -> String {
    let failed = entries.filter { if case .ran(let r) = $0 { !r.passed } else { false } }.count
    let errors = entries.filter { if case .invalid = $0 { true } else { false } }.count
    var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    out += "<testsuites tests=\"\(entries.count)\" failures=\"\(failed)\" errors=\"\(errors)\">\n"
    out +=
      "  <testsuite name=\"flowrun\" tests=\"\(entries.count)\" failures=\"\(failed)\" errors=\"\(errors)\">\n"
    for entry in entries {
      switch entry {
      case .invalid(let e):
        out += "    <testcase name=\"\(xml(e.file))\" classname=\"\(xml(e.file))\">\n"
        out += "      <error message=\"invalid scenario file\">\(xml(e.description))</error>\n"
        out += "    </testcase>\n"
      case .ran(let r):
        out += "    <testcase name=\"\(xml(r.name))\" classname=\"\(xml(r.file))\">"
        if r.passed {
          out += "</testcase>\n"
        } else {
          let first = r.failure?.problems.first?.split(separator: "\n").first.map(String.init) ?? ""
          out += "\n      <failure message=\"\(xml(first))\">\(xml(failureText(r)))</failure>\n"
          out += "    </testcase>\n"
        }
      }
    }
    out += "  </testsuite>\n</testsuites>\n"
    return out
  }

  func xml(_ s: String) -> String {
    var out = ""
    for c in s {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      default: out.append(c)
      }
    }
    return out
  }
}

/// Finds scenario files: files as given, directories searched for `*.json`, sorted.
public enum ScenarioFiles {
  /// The files to run, or the paths that do not exist.
  public static func expand(_ paths: [String]) -> (files: [String], missing: [String]) {
    var files: [String] = []
    var missing: [String] = []
    let fm = FileManager.default
    for path in paths {
      var isDirectory: ObjCBool = false
      guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
        missing.append(path)
        continue
      }
      if isDirectory.boolValue {
        let base = path.hasSuffix("/") ? String(path.dropLast()) : path
        let found = (fm.enumerator(atPath: path)?.allObjects as? [String] ?? [])
          .filter { $0.hasSuffix(".json") && !$0.hasSuffix(".schema.json") }
          .sorted()
          .map { base + "/" + $0 }
        files += found
      } else {
        files.append(path)
      }
    }
    return (files, missing)
  }
}
