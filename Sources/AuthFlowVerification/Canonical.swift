import AuthFlowCore

/// A world reduced to what decides its future behaviour, so the model checker's state space is
/// finite: request ids and token strings renamed in order of appearance, times made relative to
/// `now` (a token's remaining life reduced to "inside the margin" or "outside until the next
/// timer"), the failure count capped where the backoff delay stops growing, and token waiters
/// capped at two.
public struct AbstractState: Hashable, Sendable {
  /// The machine with renamed ids and tokens and relative times (`now` is 0).
  public var machine: AuthMachine
  /// Scheduled timers, relative to `now`.
  public var timers: TimerTable

  /// The canonical form of `world`.
  public init(_ world: World) {
    var m = Canonicalizer(now: world.now, policy: world.machine.policy)
    var machine = world.machine
    machine.restate(m.state(world.machine.state), nextRequestID: 10)
    self.machine = machine
    timers = world.timers.map { Instant(max(0, $0 - world.now)) }
  }

  /// A concrete world in this state at time 0 (fresh names do not collide with renamed ones).
  public func world(reducer: World.Reducer? = nil) -> World {
    var w = World(policy: machine.policy, now: Instant(0), reducer: reducer)
    w.machine = machine
    w.timers = timers
    w.recordsIssued = false
    w.counter = 1000
    return w
  }
}

/// Renames and relativizes one state's values, in a fixed traversal order.
struct Canonicalizer {
  let now: Instant
  let policy: Policy
  // Small arrays: a state holds a handful of each, so a linear search beats hashing.
  var tokens: [String] = []
  var ids: [RequestID] = []
  var apps: [RequestID] = []

  init(now: Instant, policy: Policy) {
    self.now = now
    self.policy = policy
  }

  /// Failures past this count all give the longest delay.
  var failureCap: Int {
    var n = 0
    while policy.backoffDelay(failures: n + 1, throttled: false) < policy.backoffCap, n < 64 {
      n += 1
    }
    return n
  }

  static let tokenNames = (0..<16).map { "t\($0)" }

  mutating func token(_ s: String) -> String {
    if let i = tokens.firstIndex(of: s) { return Self.name(i) }
    tokens.append(s)
    return Self.name(tokens.count - 1)
  }

  static func name(_ i: Int) -> String { i < tokenNames.count ? tokenNames[i] : "t\(i)" }

  mutating func id(_ r: RequestID) -> RequestID {
    if let i = ids.firstIndex(of: r) { return i + 1 }
    ids.append(r)
    return ids.count
  }

  mutating func waiters(_ list: [RequestID]) -> [RequestID] {
    if list.isEmpty { return list }
    return list.prefix(2).map { w in
      if let i = apps.firstIndex(of: w) { return 100 + i }
      apps.append(w)
      return 100 + apps.count - 1
    }
  }

  func time(_ t: Instant) -> Instant { Instant(max(0, t - now)) }

  mutating func session(_ s: Session) -> Session {
    var s = s
    s.idToken = token(s.idToken)
    s.refreshToken = token(s.refreshToken)
    // Inside the margin every remaining lifetime behaves alike. Above it, the token is taken to
    // cross into the margin by the next timer (every timer is at least backoffBase away): see
    // "Abstraction" in Docs/Verification.md for what this keeps and what it gives up.
    let remaining = s.expiresAt - now
    s.expiresAt = Instant(
      policy.refreshMargin + min(max(0, remaining - policy.refreshMargin), policy.backoffBase))
    if var c = s.pendingCleanup {
      c.idToken = token(c.idToken)
      s.pendingCleanup = c
    }
    return s
  }

  mutating func credential(_ c: GoogleCredential) -> GoogleCredential {
    var c = c
    c.idToken = token(c.idToken)
    c.accessToken = c.accessToken.map { token($0) }
    return c
  }

  mutating func user(_ u: SignedInUser) -> SignedInUser {
    var u = u
    u.session = session(u.session)
    switch u.token {
    case .fresh: break
    case .refreshing(let r, let w, let f):
      u.token = .refreshing(request: id(r), waiters: waiters(w), failures: min(f, failureCap))
    case .backingOff(let until, let f):
      u.token = .backingOff(until: time(until), failures: min(f, failureCap))
    }
    u.cleanupRequest = u.cleanupRequest.map { id($0) }
    return u
  }

  mutating func op(_ o: SensitiveOperation) -> SensitiveOperation {
    if case .linkGoogle(let c) = o { return .linkGoogle(credential: credential(c)) }
    return o
  }

  mutating func purpose(_ p: ProviderPurpose) -> ProviderPurpose {
    if case .reauthenticate(let r?) = p { return .reauthenticate(resume: op(r)) }
    return p
  }

  mutating func state(_ s: AuthState) -> AuthState {
    switch s {
    case .starting, .signedOut: return s
    case .restoring(let r, let w, let at):
      return .restoring(request: id(r), waiters: waiters(w), retryAt: at.map(time))
    case .signingInAnonymously(let r): return .signingInAnonymously(request: id(r))
    case .anonymous(let u): return .anonymous(user: user(u))
    case .awaitingProvider(let p, let r, let u):
      let rid = id(r)
      let user = u.map { self.user($0) }
      return .awaitingProvider(purpose: purpose(p), request: rid, user: user)
    case .googleAuthenticated(let p, let r, let c, let u):
      let rid = id(r)
      let user = u.map { self.user($0) }
      return .googleAuthenticated(
        purpose: purpose(p), request: rid, credential: credential(c), user: user)
    case .migrationRequired(let c, let e, let u):
      let user = self.user(u)
      return .migrationRequired(credential: credential(c), email: e, user: user)
    case .migrating(let ch, let r, let c, let u):
      let rid = id(r)
      let user = self.user(u)
      return .migrating(choice: ch, request: rid, credential: credential(c), user: user)
    case .firebaseAuthenticated(let u): return .firebaseAuthenticated(user: user(u))
    case .reauthenticationRequired(let o, let u):
      let user = self.user(u)
      return .reauthenticationRequired(operation: op(o), user: user)
    case .deletingAccount(let r, let u):
      let rid = id(r)
      return .deletingAccount(request: rid, user: user(u))
    case .signingInWithEmail(let r, let e): return .signingInWithEmail(request: id(r), email: e)
    case .creatingAccount(let r, let e, let u):
      let rid = id(r)
      return .creatingAccount(request: rid, email: e, user: u.map { self.user($0) })
    case .sendingPasswordReset(let r, let e): return .sendingPasswordReset(request: id(r), email: e)
    }
  }
}
