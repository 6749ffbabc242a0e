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
  /// Strict rules for this file: an unused script entry, or a `respond` to a request that was
  /// never issued, fails the scenario instead of printing a warning.
  public var strict: Bool
  /// The file it came from (empty when built in code).
  public var file: String

  /// Creates a scenario.
  public init(
    name: String, description: String = "", clock: Instant = Instant(0), policy: Policy = Policy(),
    script: [String: [ScriptEntry]] = [:], steps: [Step], allowPending: Bool = false,
    allowUnused: Bool = false, strict: Bool = false, file: String = ""
  ) {
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

/// A result as written in a scenario: a session's `expiresIn` counts from delivery.
public struct ResultTemplate: Equatable, Sendable {
  /// The result, with any session expiry relative to t=0 when `relativeExpiry` is set.
  public var result: RequestResult
  /// True when the session's `expiresAt` holds seconds to add to the delivery time.
  public var relativeExpiry: Bool
  /// `sessionLoaded` with `"session": "stored"`: whatever the runner's store holds.
  public var fromStore = false

  /// Creates a template.
  public init(_ result: RequestResult, relativeExpiry: Bool = false) {
    self.result = result
    self.relativeExpiry = relativeExpiry
  }

  /// The result as delivered at `now` in answer to `request`: relative expiries become
  /// absolute, and a credential that names no provider takes the request's.
  public func materialize(
    now: Instant, answering request: Request? = nil, store: Session? = nil
  ) -> RequestResult {
    if fromStore { return .sessionLoaded(session: store) }
    var result = self.result
    if relativeExpiry {
      switch result {
      case .signedIn(var s):
        s.expiresAt = now + s.expiresAt.seconds
        result = .signedIn(session: s)
      case .sessionLoaded(var s?):
        s.expiresAt = now + s.expiresAt.seconds
        result = .sessionLoaded(session: s)
      default: break
      }
    }
    guard let provider = request.flatMap(Self.provider(of:)) else { return result }
    switch result {
    case .providerSucceeded(var c) where c.provider == .unspecified:
      c.provider = provider
      return .providerSucceeded(credential: c)
    case .credentialAlreadyInUse(var c, let email) where c.provider == .unspecified:
      c.provider = provider
      return .credentialAlreadyInUse(credential: c, email: email)
    default: return result
    }
  }

  /// The provider a request is about, if any.
  static func provider(of request: Request) -> ProviderID? {
    switch request {
    case .authorize(let p, _, _): p
    case .signInWithIdp(let c, _): c.provider
    case .revokeToken(let p, _, _), .unlinkProvider(let p, _): p
    case .signUpAnonymously, .signInWithPassword, .signUpWithPassword, .sendPasswordReset,
      .refreshToken, .deleteAccount:
      nil
    }
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
