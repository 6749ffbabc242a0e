import AuthFlowCore

/// A run drawn as a sequence diagram: one lane per party (the app, the machine, the provider's
/// consent step, Firebase, Secure Token, the session store, other processes), one row per
/// event, effect, state change and clock jump, in order. `svg` draws it; the layout is computed
/// here, so no tool is needed to see it. Secrets appear as fingerprints (the redactor's).
public struct SequenceDiagram: Sendable {
  /// A party that sends or receives.
  public enum Lane: Int, CaseIterable, Sendable {
    case app, machine, provider, firebase, secureToken, store, others

    /// The lane's header.
    public var title: String {
      switch self {
      case .app: "App"
      case .machine: "AuthFlow machine"
      case .provider: "Provider consent"
      case .firebase: "Firebase Auth"
      case .secureToken: "Secure Token"
      case .store: "Session store"
      case .others: "Other processes"
      }
    }

    /// Where a request of this kind goes.
    static func of(_ kind: RequestKind) -> Lane {
      switch kind.destination {
      case .consent: .provider
      case .firebase: .firebase
      case .secureToken: .secureToken
      case .store: .store
      }
    }
  }

  /// What a row shows.
  public enum Kind: String, Sendable {
    /// An intent from the app, an answer, a store change: into the machine.
    case event
    /// A request or a command out of the machine.
    case effect
    /// A timer that fired, set or cancelled.
    case timer
    /// The machine entered another state.
    case state
    /// Virtual time moved on.
    case clock
  }

  /// One row.
  public struct Row: Sendable {
    public var kind: Kind
    public var from: Lane
    public var to: Lane
    /// The short label drawn on the arrow.
    public var label: String
    /// The whole text (a tooltip).
    public var detail: String
    /// The 0-based step of the scenario that caused it.
    public var step: Int
  }

  /// The rows, in order.
  public private(set) var rows: [Row] = []

  /// The diagram of a replay's transitions.
  public init(_ report: ScenarioReport, redactor: Redactor) {
    var clock = report.clock
    for t in report.transitions {
      if t.at > clock {
        let text =
          "+\(JSONValue.format(t.at - clock)) s (virtual clock at +\(JSONValue.format(t.at - report.clock)) s)"
        rows.append(
          Row(kind: .clock, from: .app, to: .others, label: text, detail: text, step: t.step))
        clock = t.at
      }
      let event = Render.event(t.event, redactor)
      switch t.event {
      case .intent(let i):
        let label = i.kind.rawValue + Self.brief(Matching.split(JSONValue.encoding(i)).1, redactor)
        rows.append(
          Row(kind: .event, from: .app, to: .machine, label: label, detail: event, step: t.step))
      case .answer(let a):
        rows.append(
          Row(
            kind: .event, from: Lane.of(a.kind), to: .machine, label: Self.label(a),
            detail: event, step: t.step))
      case .timerFired(let timer):
        rows.append(
          Row(
            kind: .timer, from: .machine, to: .machine, label: "timer \(timer.rawValue) fired",
            detail: event, step: t.step))
      case .persistFailed:
        rows.append(
          Row(kind: .event, from: .store, to: .machine, label: event, detail: event, step: t.step))
      case .storeChanged:
        rows.append(
          Row(kind: .event, from: .others, to: .machine, label: event, detail: event, step: t.step))
      }
      if t.from != t.to {
        rows.append(
          Row(
            kind: .state, from: .machine, to: .machine, label: "→ \(t.to)",
            detail: "\(t.from) → \(t.to)", step: t.step))
      }
      for effect in t.effects {
        rows.append(Self.row(effect, at: t.at, start: report.clock, step: t.step, redactor))
      }
    }
  }

  /// ` (choice: merge)`: an object of plain values, briefly; "" for an empty or nested one.
  static func brief(_ payload: JSONValue, _ redactor: Redactor) -> String {
    guard case .object(let members) = redactor.apply(payload), !members.isEmpty else { return "" }
    var parts: [String] = []
    for m in members {
      switch m.value {
      case .string(let v): parts.append("\(m.key): \(v)")
      case .number, .bool, .null: parts.append("\(m.key): \(m.value.compactText)")
      case .object, .array: return ""
      }
    }
    return " (" + parts.joined(separator: ", ") + ")"
  }

  /// `#3 signedIn (user-1)`, `#4 requestFailed NETWORK`: the outcome and what tells it apart.
  static func label(_ a: Answer) -> String {
    var out = "#\(a.id) \(a.outcomeName)"
    if let e = a.error {
      out += " " + e.code
    } else if let s = a.signedInSession {
      out += " (\(s.uid))"
    } else if let c = a.authorizedCredential {
      out += " (\(c.provider.rawValue))"
    } else if case let s?? = a.loadedSession {
      out += " (\(s.uid))"
    } else if case .some(.none) = a.loadedSession {
      out += " (empty)"
    }
    return out
  }

  static func row(
    _ effect: Effect, at: Instant, start: Instant, step: Int, _ redactor: Redactor
  ) -> Row {
    let text = Render.effect(effect, redactor)
    func out(_ to: Lane, _ label: String, kind: Kind = .effect) -> Row {
      Row(kind: kind, from: .machine, to: to, label: label, detail: text, step: step)
    }
    switch effect {
    case .request(let id, let request):
      var about: [String] = []
      // `authorizeWithGoogle` names its provider already.
      if let p = request.provider, !(request.kind == .authorize && p.hasGoogleSpellings) {
        about.append(p.rawValue)
      }
      if request.linkTo != nil { about.append("linkTo") }
      let provider = about.isEmpty ? "" : " (" + about.joined(separator: ", ") + ")"
      return out(Lane.of(request.kind), "#\(id) \(effect.name)\(provider)")
    case .loadSession(let id): return out(.store, "#\(id) loadSession")
    case .persistSession(let s): return out(.store, "persistSession (\(s.uid))")
    case .clearSession: return out(.store, "clearSession")
    case .scheduleTimer(let timer, let when):
      return out(
        .machine, "timer \(timer.rawValue) set for +\(JSONValue.format(when - start)) s",
        kind: .timer)
    case .cancelTimer(let timer):
      return out(.machine, "timer \(timer.rawValue) cancelled", kind: .timer)
    case .deliverIDToken(let ids, let result):
      let what: String
      switch result {
      case .token(let t): what = redactor.apply(.object([("idToken", .string(t))])).compactText
      case .failure(let e): what = e.code
      }
      return out(.app, "deliverIDToken \(ids.map { "#\($0)" }.joined(separator: ",")) \(what)")
    case .signOutProvider(let p, let revoke):
      return out(.provider, "signOutProvider (\(p.rawValue)\(revoke ? ", revoke" : ""))")
    case .notify(let n):
      let (name, payload) = Matching.split(JSONValue.encoding(n))
      return out(.app, "notify \(name)" + brief(payload, redactor))
    }
  }

  // MARK: Drawing

  /// Geometry, shared with the checks in the tests.
  public enum Layout {
    public static let laneSpacing = 160.0
    public static let left = 96.0
    public static let top = 46.0
    public static let rowHeight = 22.0
    public static let headerWidth = 136.0
    /// Width of one character of the 11 px monospace labels, rounded up.
    public static let charWidth = 6.7

    /// The lanes' centres: wider between the app and the machine (intents have long names)
    /// and between the machine and the provider.
    public static func x(_ lane: Lane) -> Double {
      let gaps = [0.0, 230, 210, 190, laneSpacing, laneSpacing, laneSpacing]
      return left + gaps[...lane.rawValue].reduce(0, +)
    }
    public static var width: Double { x(.others) + headerWidth / 2 + 16 }
  }

  /// The diagram as an SVG element; rows of `highlight` (a failed step) are marked.
  public func svg(highlight: Int? = nil, id: String = "") -> String {
    typealias L = Layout
    let height = L.top + Double(rows.count) * L.rowHeight + 30
    var s = ""
    s += "<svg class=\"sequence\" xmlns=\"http://www.w3.org/2000/svg\" "
    s +=
      "width=\"\(n(L.width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(L.width)) \(n(height))\""
    s += " role=\"img\" aria-label=\"sequence diagram\">"
    s +=
      "<defs><marker id=\"arr\(id)\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\""
    s +=
      " markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\"/></marker></defs>"
    // Failed step band, then lifelines and headers.
    if let highlight {
      for (i, r) in rows.enumerated() where r.step == highlight {
        let y = L.top + Double(i) * L.rowHeight
        s +=
          "<rect class=\"fail-band\" x=\"0\" y=\"\(n(y))\" width=\"\(n(L.width))\" height=\"\(n(L.rowHeight))\"/>"
      }
    }
    for lane in Lane.allCases {
      let x = L.x(lane)
      s +=
        "<line class=\"lifeline\" x1=\"\(n(x))\" y1=\"\(n(L.top - 8))\" x2=\"\(n(x))\" y2=\"\(n(height - 10))\"/>"
      s +=
        "<rect class=\"lane-head\" x=\"\(n(x - L.headerWidth / 2))\" y=\"6\" width=\"\(n(L.headerWidth))\""
      s += " height=\"26\" rx=\"5\"/>"
      s +=
        "<text class=\"lane-label\" x=\"\(n(x))\" y=\"23\" text-anchor=\"middle\">\(HTML.escape(lane.title))</text>"
    }
    var lastStep = -1
    for (i, r) in rows.enumerated() {
      let y = L.top + Double(i) * L.rowHeight
      let mid = y + L.rowHeight / 2
      if r.step != lastStep {
        s += "<text class=\"step-no\" x=\"6\" y=\"\(n(mid + 4))\">step \(r.step + 1)</text>"
        lastStep = r.step
      }
      s += "<g class=\"\(r.kind.rawValue)\">"
      if r.detail != r.label { s += "<title>\(HTML.escape(r.detail))</title>" }
      switch r.kind {
      case .clock:
        s +=
          "<line class=\"clock\" x1=\"60\" y1=\"\(n(mid))\" x2=\"\(n(L.width - 10))\" y2=\"\(n(mid))\"/>"
        s += "<text class=\"clock-label\" x=\"\(n(L.x(.machine) + 8))\" y=\"\(n(mid - 3))\">"
        s += HTML.escape(r.label) + "</text>"
      case .state:
        let x = L.x(.machine)
        let w = min(L.laneSpacing * 1.6, Double(r.label.count) * L.charWidth + 14)
        s += "<rect class=\"state-note\" x=\"\(n(x - w / 2))\" y=\"\(n(y + 2))\" width=\"\(n(w))\""
        s += " height=\"\(n(L.rowHeight - 4))\" rx=\"8\"/>"
        s += "<text class=\"state-label\" x=\"\(n(x))\" y=\"\(n(mid + 4))\" text-anchor=\"middle\">"
        s += HTML.escape(Self.fit(r.label, Int(L.laneSpacing * 1.6 / L.charWidth) - 2)) + "</text>"
      case .event, .effect, .timer:
        let x1 = L.x(r.from)
        let x2 = L.x(r.to)
        if x1 == x2 {
          // To itself: a small loop to the right, the label beside it.
          s +=
            "<path class=\"msg self\" d=\"M\(n(x1)),\(n(y + 5)) h24 v\(n(L.rowHeight - 10)) h-22\""
          s += " marker-end=\"url(#arr\(id))\"/>"
          s += "<text class=\"msg-label\" x=\"\(n(x1 + 30))\" y=\"\(n(mid + 4))\">"
          s += HTML.escape(Self.fit(r.label, Int(L.laneSpacing * 2.3 / L.charWidth))) + "</text>"
        } else {
          s +=
            "<line class=\"msg\" x1=\"\(n(x1))\" y1=\"\(n(mid + 4))\" x2=\"\(n(x2))\" y2=\"\(n(mid + 4))\""
          s += " marker-end=\"url(#arr\(id))\"/>"
          let span = abs(x2 - x1)
          let labelX = min(x1, x2) + 6
          s += "<text class=\"msg-label\" x=\"\(n(labelX))\" y=\"\(n(mid))\">"
          s += HTML.escape(Self.fit(r.label, Int((span - 10) / L.charWidth))) + "</text>"
        }
      }
      s += "</g>"
    }
    s += "</svg>"
    return s
  }

  /// `text`, cut to `limit` characters with an ellipsis.
  static func fit(_ text: String, _ limit: Int) -> String {
    let limit = max(limit, 8)
    return text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
  }
}

/// A number for SVG attributes: whole numbers without a fraction.
func n(_ d: Double) -> String {
  d == d.rounded() && abs(d) < 1e12 ? String(Int(d)) : String((d * 10).rounded() / 10)
}

/// Escaping for text and attributes in HTML and SVG.
public enum HTML {
  /// `s` with `& < > " '` escaped.
  public static func escape(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for c in s {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      default: out.append(c)
      }
    }
    return out
  }
}
