import AuthFlowCore

/// One scenario file: a story of intents, scripted answers and expectations.
public struct Scenario: Sendable {
  /// Short identifier, shown in reports.
  public var name: String
  /// One sentence a product person would recognise.
  public var description: String
  /// The virtual clock's start.
  public var clock: Instant
  /// The machine's policy.
  public var policy: Policy
  /// For each effect name, the answers to give, in order.
  public var script: [String: [ScriptEntry]]
  /// What happens, step by step.
  public var steps: [Step]
  /// Whether requests may still be pending at the end.
  public var allowPending: Bool
  /// Whether script entries may be left unused at the end (under strict rules).
  public var allowUnused: Bool
  /// Whether the file answers requests with another kind's results on purpose (a broken
  /// interpreter); each is replayed as the request's `UNEXPECTED_RESPONSE` without a warning.
  public var allowWrongKinds: Bool
  /// Strict rules for this file: an unused script entry, or a `respond` to a request that was
  /// never issued, fails the scenario instead of printing a warning.
  public var strict: Bool
  /// The file it came from (empty when built in code).
  public var file: String
  /// Every string the file spells (its tokens included): failures show these as written.
  public var spelled: Set<String> = []

  /// Creates a scenario.
  public init(
    name: String, description: String = "", clock: Instant = Instant(0), policy: Policy = Policy(),
    script: [String: [ScriptEntry]] = [:], steps: [Step], allowPending: Bool = false,
    allowUnused: Bool = false, allowWrongKinds: Bool = false, strict: Bool = false,
    file: String = ""
  ) {
    self.allowWrongKinds = allowWrongKinds
    self.name = name
    self.description = description
    self.clock = clock
    self.policy = policy
    self.script = script
    self.steps = steps
    self.allowPending = allowPending
    self.allowUnused = allowUnused
    self.strict = strict
    self.file = file
  }
}

/// One scripted answer to a request effect.
public enum ScriptEntry: Equatable, Sendable {
  /// Answer with this result.
  case answer(ResultTemplate)
  /// Leave the request in flight (answer it later with a `respond` step).
  case pending
  /// For `persistSession`/`clearSession`: the write succeeds (`"ok"`).
  case written
  /// For `persistSession`/`clearSession`: the write fails.
  case persistFailed(AuthError)
}

/// An answer as written in a scenario: a session's or tokens' `expiresIn` counts from delivery,
/// and the request id is the runner's to fill in.
public struct ResultTemplate: Equatable, Sendable {
  /// The answer (its request id a placeholder), with any expiry relative to t=0 when
  /// `relativeExpiry` is set.
  public var answer: Answer
  /// True when the expiries hold seconds to add to the delivery time.
  public var relativeExpiry: Bool
  /// `sessionLoaded` with `"session": "stored"`: whatever the runner's store holds.
  public var fromStore = false
  /// When the file answered a request with a result of another kind (a broken interpreter, on
  /// purpose): that result's name. The answer is then the request's own failure,
  /// `UNEXPECTED_RESPONSE`.
  public var wrongKind: String?

  /// Creates a template.
  public init(_ answer: Answer, relativeExpiry: Bool = false) {
    self.answer = answer
    self.relativeExpiry = relativeExpiry
  }

  /// The answer as delivered at `now` to request `id` of kind `kind` (the request itself when
  /// it is known): relative expiries become absolute, a credential that names no provider
  /// takes the request's, and an answer of another kind than the request's is that request's
  /// `UNEXPECTED_RESPONSE` (what any interpreter boundary makes of a broken answer).
  public func materialize(
    now: Instant, id: RequestID, kind: RequestKind? = nil, answering request: Request? = nil,
    store: Session? = nil
  ) -> Answer {
    if fromStore { return .loadSession(id, .sessionLoaded(session: store)) }
    let kind = kind ?? request?.kind ?? answer.kind
    guard kind == answer.kind else {
      return Answer.failed(
        kind, id,
        AuthError(
          code: AuthError.unexpectedResponse.code,
          message: "\(kind.rawValue) answered with \(answer.outcomeName)"))
    }
    let provider = request?.provider
    return answer.with(id: id).mapping(
      session: { s in
        var s = s
        if relativeExpiry { s.expiresAt = now + s.expiresAt.seconds }
        return s
      },
      tokens: { t in
        var t = t
        if relativeExpiry { t.expiresAt = now + t.expiresAt.seconds }
        return t
      },
      credential: { c in
        var c = c
        if c.provider == .unspecified, let provider { c.provider = provider }
        return c
      })
  }
}

/// One step: an action, then optional expectations.
public struct Step: Sendable {
  /// What the step does.
  public var action: Action
  /// What must hold afterwards.
  public var expect: Expectation?

  /// Creates a step.
  public init(_ action: Action, expect: Expectation? = nil) {
    self.action = action
    self.expect = expect
  }

  /// The three kinds of step.
  public enum Action: Sendable {
    /// Send an intent.
    case send(Intent)
    /// Send an intent whose fields name captures bound by earlier expectations
    /// (`{"sendSecondFactorCode": {"factor": "$factor"}}`): the values are put in when the step
    /// runs, so a live run can name what the server made up. Checked as an intent when loaded.
    case sendWithCaptures(JSONValue)
    /// Answer the oldest pending request of the named effect, or exactly request `requestId`
    /// (pending or not: a stale or duplicate answer on purpose).
    case respond(to: String, requestId: RequestID?, with: ResultTemplate)
    /// Move the virtual clock forward; due timers fire in order.
    case advance(seconds: Double)
    /// Fire a timer now, scheduled or not (a late or duplicate timer on purpose).
    case fire(TimerID)
    /// The app's process dies and starts again: a fresh machine with the same policy, no
    /// timers, no requests in flight, then `appLaunched`. The store keeps the last session
    /// written (with `lostLastWrite`, what it held before the previous step's writes).
    case relaunch(lostLastWrite: Bool)
    /// Another process wrote the shared session store, which now holds this session (`nil`:
    /// cleared); the runner's store model takes it too.
    case storeChanged(ResultTemplate)
  }
}

/// What a step expects; every field is optional.
public struct Expectation: Sendable {
  /// The top-level state name after the step.
  public var state: String?
  /// The exact list of states entered during the step.
  public var path: [String]?
  /// The exact effects, in order (patterns).
  public var effects: [Pattern]?
  /// Effects that must occur in this order; others allowed.
  public var effectsInclude: [Pattern]?
  /// Effect names that must not occur.
  public var effectsExclude: [String]?
  /// The session after the step: `.some(nil)` for none, else a subset of fields.
  public var session: SessionExpectation?
  /// The exact `notify` payloads emitted during the step.
  public var notifications: [Pattern]?

  /// An empty expectation.
  public init() {}
}

/// The expected session.
public enum SessionExpectation: Sendable {
  /// No session.
  case none
  /// A session whose fields include these.
  case fields(JSONValue)
}

/// A name, optionally with a subset of fields: `"persistSession"` or `{"signInWithIdp": {…}}`.
public struct Pattern: Sendable, Equatable {
  /// The effect or notification name.
  public var name: String
  /// Fields that must match (recursively, as subsets); `nil` matches any payload.
  public var fields: JSONValue?

  /// Creates a pattern.
  public init(_ name: String, fields: JSONValue? = nil) {
    self.name = name
    self.fields = fields
  }
}
