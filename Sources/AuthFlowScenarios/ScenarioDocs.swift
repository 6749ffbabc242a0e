import AuthFlowCore

/// The vocabulary tables of Docs/ScenarioFormat.md, generated from the declarations (the same
/// ones the decoder and the JSON Schema read). In the document each table sits between
/// `<!-- vocabulary: NAME -->` and `<!-- vocabulary: end -->`; `flowrun vocabulary --update`
/// rewrites them, and a test fails when the committed document differs.
public enum ScenarioDocs {
  /// Every table, by name, in the order the document shows them.
  public static var tables: [(name: String, markdown: String)] {
    [
      ("top-level", keys(Declarations.topLevel)),
      ("config", keys(Declarations.config)),
      ("traits", keys(Declarations.traits)),
      ("script", script),
      ("results", results),
      ("session", keys(Declarations.session)),
      ("pendingCleanup", keys(Declarations.cleanup)),
      ("pendingDeletion", keys(Declarations.deletion)),
      ("credential", keys(Declarations.credential)),
      ("error", keys(Declarations.error)),
      ("secondFactor", keys(Declarations.secondFactor)),
      ("step", keys(Declarations.step)),
      ("respond", keys(Declarations.respond)),
      ("relaunch", keys(Declarations.relaunch)),
      ("intents", intents),
      ("expect", keys(Declarations.expectation)),
      ("effects", effects),
      ("notifications", notifications),
      ("states", states),
      ("timers", timers),
    ]
  }

  static func code(_ s: String) -> String { "`\(s)`" }

  static func keys(_ keys: [KeyDecl]) -> String {
    "| key | required | meaning |\n|---|---|---|\n"
      + keys.map { "| `\($0.name)` | \($0.required ? "yes" : "no") | \($0.doc) |" }
      .joined(separator: "\n")
  }

  static func fieldList(_ fields: [FieldSpec]) -> String {
    fields.isEmpty
      ? "—"
      : fields.map { code($0.name) + ($0.required ? "" : " (optional)") }
        .joined(separator: ", ")
  }

  static var script: String {
    "| script key (request effect) | answers it takes |\n|---|---|\n"
      + Vocabulary.requestEffects.map { name in
        let kind = Vocabulary.requestKind(name) ?? .loadSession
        return "| `\(name)` | "
          + Vocabulary.answers(for: kind).map { code($0.rawValue) }.joined(separator: ", ") + " |"
      }.joined(separator: "\n")
      + "\n"
      + Vocabulary.writeEffects.map {
        "| `\($0)` | `\"ok\"` (the default), `persistFailed{error}` |"
      }
      .joined(separator: "\n")
  }

  static var results: String {
    "| result | fields | meaning |\n|---|---|---|\n"
      + AnswerName.allCases.map {
        "| `\($0.rawValue)` | \(fieldList(Vocabulary.fields($0))) | \(Vocabulary.doc($0)) |"
      }.joined(separator: "\n")
  }

  static var intents: String {
    "| intent | fields | meaning |\n|---|---|---|\n"
      + Intent.Kind.allCases.map {
        "| `\($0.rawValue)` | \(fieldList(Vocabulary.fields($0))) | \(Vocabulary.doc($0)) |"
      }.joined(separator: "\n")
  }

  static var effects: String {
    "| effect | fields | meaning |\n|---|---|---|\n"
      + Effect.Kind.allCases.map { kind in
        let fields = Vocabulary.fields(kind)
        return "| `\(kind.rawValue)` | "
          + (fields.isEmpty ? "—" : fields.map(code).joined(separator: ", "))
          + " | \(Vocabulary.doc(kind)) |"
      }.joined(separator: "\n")
  }

  static var notifications: String {
    "| notification | fields | meaning |\n|---|---|---|\n"
      + AuthNotification.Kind.allCases.map { kind in
        let fields = Vocabulary.fields(kind)
        return "| `\(kind.rawValue)` | "
          + (fields.isEmpty ? "—" : fields.map(code).joined(separator: ", "))
          + " | \(Vocabulary.doc(kind)) |"
      }.joined(separator: "\n")
  }

  static var states: String { Vocabulary.states.map(code).joined(separator: ", ") }

  static var timers: String {
    TimerID.allCases.map {
      code($0.rawValue)
        + ($0 == .tokenRefresh
          ? " (refresh the ID token, at expiry minus the margin or after a backoff)"
          : " (read the stored session again after a transient failure)")
    }.joined(separator: ", ")
  }

  /// `text` with every table between its markers replaced by the generated one; the names of
  /// generated tables the text has no markers for come back too.
  public static func apply(to text: String) -> (text: String, missing: [String]) {
    var out = text
    var missing: [String] = []
    for (name, markdown) in tables {
      let open = "<!-- vocabulary: \(name) -->"
      let close = "<!-- vocabulary: end -->"
      guard let start = out.range(of: open),
        let end = out.range(of: close, range: start.upperBound..<out.endIndex)
      else {
        missing.append(name)
        continue
      }
      out.replaceSubrange(start.upperBound..<end.lowerBound, with: "\n" + markdown + "\n")
    }
    return (out, missing)
  }
}
