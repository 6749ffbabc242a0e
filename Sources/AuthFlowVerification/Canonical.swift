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
  /// The store, where it can differ from the machine's session.
  public var store: StoreView

  /// What the session store holds, as far as it decides the future.
  public enum StoreView: Hashable, Sendable {
    /// Not read yet at the first launch: the alphabet answers `loadSession` with anything.
    case unknown
    /// The machine's session (or nothing, with no user): every write so far reached the store.
    case sameAsMachine
    /// Something else: what a relaunch reads while the machine restores, or the last write
    /// before a failed one.
    case holds(Session?)
  }

  /// The session the store holds, where it holds one of its own (`nil` otherwise).
  var heldSession: Session? {
    if case .holds(let s) = store { return s }
    return nil
  }

  /// The store of `world`, reduced.
  static func storeView(_ world: World) -> StoreView {
    guard world.storeKnown else { return .unknown }
    if world.store == world.machine.user?.session { return .sameAsMachine }
    return .holds(world.store)
  }

  /// The canonical form of `world`.
  public init(_ world: World) {
    var m = Canonicalizer(now: world.now, policy: world.machine.policy)
    var machine = world.machine
    // The phase first, then the user, then the store: the order in which names are handed out.
    let phase = m.phase(machine.phase)
    let user = machine.user.map { m.user($0) }
    let link = machine.pendingLink.map { l -> PendingLink in
      var l = l
      l.credential = m.credential(l.credential)
      return l
    }
    machine.restate(phase: phase, user: user, nextRequestID: 10, pendingLink: link)
    self.machine = machine
    timers = world.timers.map { Instant(max(0, $0 - world.now)) }
    switch Self.storeView(world) {
    case .holds(let s?): store = .holds(m.session(s))
    case let other: store = other
    }
  }

  /// A concrete world in this state at time 0 (fresh names do not collide with renamed ones).
  public func world(reducer: World.Reducer? = nil) -> World {
    // No record of requests and no history: an abstract state has no past to check against.
    var w = World(machine: machine, now: Instant(0), reducer: reducer, keepsRecords: false)
    w.timers = timers
    switch store {
    case .unknown: w.storeKnown = false
    case .sameAsMachine:
      w.storeKnown = true
      w.store = machine.user?.session
    case .holds(let s):
      w.storeKnown = true
      w.store = s
    }
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
  var apps: [TokenRequestID] = []

  init(now: Instant, policy: Policy) {
    self.now = now
    self.policy = policy
    // Room for a signed-in state's tokens and requests at once, instead of growing two or
    // three times for each state.
    tokens.reserveCapacity(8)
    ids.reserveCapacity(4)
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
    if let i = ids.firstIndex(of: r) { return RequestID(i + 1) }
    ids.append(r)
    return RequestID(ids.count)
  }

  mutating func waiters(_ list: [TokenRequestID]) -> [TokenRequestID] {
    if list.isEmpty { return list }
    return list.prefix(2).map { w in
      if let i = apps.firstIndex(of: w) { return TokenRequestID(100 + i) }
      apps.append(w)
      return TokenRequestID(100 + apps.count - 1)
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
      c.refreshToken = c.refreshToken.map { token($0) }
      // Like the session's: inside the margin every lifetime behaves alike.
      c.expiresAt = c.expiresAt.map {
        Instant(
          policy.refreshMargin + min(max(0, $0 - now - policy.refreshMargin), policy.backoffBase))
      }
      s.pendingCleanup = c
    }
    return s
  }

  mutating func proof(_ p: OwnerProof) -> OwnerProof {
    switch p {
    case .credential(let c): return .credential(credential(c))
    case .phoneNumber(var n):
      n.temporaryProof = token(n.temporaryProof)
      return .phoneNumber(n)
    }
  }

  mutating func credential(_ c: IdPCredential) -> IdPCredential {
    var c = c
    c.idToken = c.idToken.map { token($0) }
    c.accessToken = c.accessToken.map { token($0) }
    c.rawNonce = c.rawNonce.map { token($0) }
    c.pendingToken = c.pendingToken.map { token($0) }
    c.authorizationCode = c.authorizationCode.map { token($0) }
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
    switch o {
    case .deleteAccount, .unlink, .changePassword, .changeEmail, .enrollTotp,
      .withdrawSecondFactor, .enrollPhone:
      return o
    case .link(let c): return .link(credential: credential(c))
    }
  }

  mutating func purpose(_ p: ProviderPurpose) -> ProviderPurpose {
    if case .reauthenticate(let r?) = p { return .reauthenticate(resume: op(r)) }
    return p
  }

  mutating func phase(_ p: Phase) -> Phase {
    switch p {
    case .starting, .resting: return p
    case .restoring(var r):
      r.request = id(r.request)
      r.waiters = waiters(r.waiters)
      r.retryAt = r.retryAt.map(time)
      return .restoring(r)
    case .signingInAnonymously(let r): return .signingInAnonymously(request: id(r))
    case .providerFlow(var f):
      f.request = id(f.request)
      f.purpose = purpose(f.purpose)
      f.credential = f.credential.map { credential($0) }
      return .providerFlow(f)
    case .migrationRequired(var o):
      o.proof = proof(o.proof)
      return .migrationRequired(o)
    case .migrating(var m):
      m.request = id(m.request)
      m.proof = m.proof.map { proof($0) }
      return .migrating(m)
    case .reauthenticationRequired(let o): return .reauthenticationRequired(operation: op(o))
    case .deletingAccount(var d):
      d.request = d.request.map { id($0) }
      if case .reauthenticating(let c) = d.step {
        d.step = .reauthenticating(credential: credential(c))
      }
      return .deletingAccount(d)
    case .unlinkingProvider(var u):
      u.request = id(u.request)
      return .unlinkingProvider(u)
    case .emailFlow(var e):
      e.request = id(e.request)
      if let r = e.resume { e.resume = op(r) }
      return .emailFlow(e)
    case .accountFlow(var f):
      f.request = id(f.request)
      return .accountFlow(f)
    case .accountExists(var link):
      link.credential = credential(link.credential)
      return .accountExists(link)
    case .secondFactor(var step):
      step.challenge.pendingCredential = token(step.challenge.pendingCredential)
      if case .reauthenticate(let o?) = step.resume { step.resume = .reauthenticate(resume: op(o)) }
      if case .deleteAccount(let c) = step.resume {
        step.resume = .deleteAccount(credential: credential(c))
      }
      step.request = step.request.map { id($0) }
      if let sent = step.codeSent {
        step.codeSent = SentCode(factor: sent.factor, sessionInfo: token(sent.sessionInfo))
      }
      return .secondFactor(step)
    case .totpEnrollment(var e):
      e.secret.sharedSecretKey = token(e.secret.sharedSecretKey)
      e.secret.sessionInfo = token(e.secret.sessionInfo)
      e.request = e.request.map { id($0) }
      return .totpEnrollment(e)
    case .phoneEnrollment(var e):
      e.sessionInfo = token(e.sessionInfo)
      e.request = e.request.map { id($0) }
      return .phoneEnrollment(e)
    case .phoneSignIn(var f):
      f.sessionInfo = f.sessionInfo.map { token($0) }
      f.request = f.request.map { id($0) }
      return .phoneSignIn(f)
    }
  }
}
