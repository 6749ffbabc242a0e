import AuthFlowCore
import Foundation

/// A world's canonical form as a few machine words: what the model checker hashes and compares.
///
/// It encodes exactly what `AbstractState` keeps (the same traversal order, the same renaming of
/// tokens and request ids by first appearance, the same relative and capped times), with every
/// string that is not renamed (uids, emails, provider ids) interned to a number. Two worlds have
/// equal keys exactly when their abstract states are equal; a test checks that on random worlds.
/// Building a key allocates one array and no strings, so the checker builds a full
/// `AbstractState` only for the states it has not seen.
public struct PackedKey: Hashable, Sendable {
  var words: [UInt32]

  /// The key of `world`, interning strings in `interner`.
  public init(_ world: World, interner: Interner) {
    var e = PackedEncoder(policy: world.machine.policy, cache: InternerCache(interner))
    self.init(world, encoder: &e)
  }

  /// The key of `world`, with an encoder whose buffers and string cache are reused.
  init(_ world: World, encoder e: inout PackedEncoder) {
    e.encode(world)
    words = e.words
  }
}

extension PackedEncoder {
  /// Writes the canonical form of `world` into `words` (emptied first): the machine's part, the
  /// timers, then the store's part.
  mutating func encode(_ world: World) {
    machine(world.machine, now: world.now)
    time(world.timers.tokenRefresh.map { $0 - world.now })
    time(world.timers.restoreRetry.map { $0 - world.now })
    store(AbstractState.storeView(world))
  }

  /// Writes the canonical form of a machine alone into `words` (emptied first): what the model
  /// checker numbers machines by. Its tokens and ids are numbered first, so a store encoded
  /// after it (`storeWords`) names the tokens it shares with the machine as the machine does.
  mutating func machine(_ machine: AuthMachine, now: Instant) {
    reset(now: now)
    phase(machine.phase)
    if let u = machine.user {
      put(1)
      user(u)
    } else {
      put(0)
    }
    string(machine.emailLinkAddress)
    pendingLink(machine.pendingLink)
  }

  mutating func pendingLink(_ link: PendingLink?) {
    guard let link else { return put(0) }
    put(1)
    credential(link.credential)
    string(link.email)
    put(UInt32(link.providers.count))
    for p in link.providers { string(p.rawValue) }
    string(link.guest)
  }

  /// The store, only where it can differ from the machine's session (see `AbstractState`).
  mutating func store(_ view: AbstractState.StoreView) {
    switch view {
    case .unknown: put(0)
    case .sameAsMachine: put(1)
    case .holds(nil): put(2)
    case .holds(let s?):
      put(3)
      session(s)
    }
  }

  /// The words `store(view)` would append after the machine's part, leaving the encoder as it
  /// was (the machine's words and names stay, for the next store).
  mutating func storeWords(_ view: AbstractState.StoreView) -> [UInt32] {
    let marks = (words.count, tokens.count, ids.count, apps.count)
    store(view)
    storeBuffer.removeAllKeepingCapacity()
    storeBuffer.append(contentsOf: words[marks.0...])
    words.truncate(to: marks.0)
    tokens.truncate(to: marks.1)
    ids.truncate(to: marks.2)
    apps.truncate(to: marks.3)
    return storeBuffer
  }

  /// The words `storeWords(.holds(session))` gives after a machine whose tokens, in its order,
  /// are `tokens` (no other of the machine's names appear in a session).
  mutating func storeWords(holding session: Session?, tokens machineTokens: [String]) -> [UInt32] {
    reset(now: now)
    tokens.append(contentsOf: machineTokens)
    store(.holds(session))
    return words
  }

  /// A 64-bit hash of `words` (what the visited set probes with).
  var hash: UInt64 { StateTable.hash(words) }
}

/// Numbers for strings, the same for the whole run, safe to share between threads.
public final class Interner: @unchecked Sendable {
  private var table: [String: UInt32] = [:]
  private let lock = NSLock()

  /// An empty interner.
  public init() {}

  /// The number of `s` (assigned at its first use).
  func id(_ s: String) -> UInt32 {
    lock.lock()
    defer { lock.unlock() }
    if let n = table[s] { return n }
    let n = UInt32(table.count + 1)
    table[s] = n
    return n
  }
}

/// The strings one thread met lately, in front of the shared (locked) interner: the alphabet
/// has a handful of uids, emails and provider ids, so most look-ups end here.
///
/// The first look is at a small table keyed by the string's own 16 bytes: a short string holds
/// its characters there, a long one a reference to its storage. Equal bytes mean equal strings
/// (the table keeps each string it holds alive, so a long string's storage cannot be freed and
/// its address reused for another), so a hit needs no comparison of characters; equal strings
/// with different bytes (the same text built twice, long) only miss, and are found by the
/// list behind it.
struct InternerCache {
  let shared: Interner
  /// The strings met lately, and each one's number.
  var recent = StringList()
  var recentIDs: [UInt32] = []
  /// The table by bytes: `keys[i]` and `ids[i]` (`UInt32.max`: empty); a new string replaces
  /// the one in its slot.
  var keys: [String]
  var ids: [UInt32]
  static let slotBits = 8

  init(_ shared: Interner) {
    self.shared = shared
    keys = Array(repeating: "", count: 1 << Self.slotBits)
    ids = Array(repeating: .max, count: 1 << Self.slotBits)
  }

  /// A string's 16 bytes, where `String` is 16 bytes (64-bit platforms); `nil` elsewhere.
  @inline(__always) static func bytes(_ s: String) -> (UInt64, UInt64)? {
    guard MemoryLayout<String>.size == 16 else { return nil }
    return unsafeBitCast(s, to: (UInt64, UInt64).self)
  }

  mutating func id(_ s: String) -> UInt32 {
    guard let (a, b) = Self.bytes(s) else { return listed(s) }
    let mixed = (a ^ (b &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
    let slot = Int(truncatingIfNeeded: mixed >> UInt64(64 - Self.slotBits))
    if ids[slot] != .max, let (c, d) = Self.bytes(keys[slot]), a == c, b == d {
      return ids[slot]
    }
    let n = listed(s)
    keys[slot] = s
    ids[slot] = n
    return n
  }

  /// The number from the list of recent strings, or from the shared interner.
  mutating func listed(_ s: String) -> UInt32 {
    if let i = recent.index(of: s) { return recentIDs[i] }
    let n = shared.id(s)
    if recent.count < 64 {
      recent.append(s)
      recentIDs.append(n)
    }
    return n
  }
}

/// Mirrors `Canonicalizer`, writing numbers instead of renamed values.
struct PackedEncoder {
  var now = Instant(0)
  let policy: Policy
  var cache: InternerCache
  var words: [UInt32] = []
  var tokens: [String] = []
  var ids: [RequestID] = []
  var apps: [TokenRequestID] = []
  /// What `storeWords(_:)` returns, in a buffer kept from call to call.
  var storeBuffer: [UInt32] = []
  let failureCap: Int

  init(policy: Policy, cache: InternerCache) {
    self.policy = policy
    self.cache = cache
    var n = 0
    while policy.backoffDelay(failures: n + 1, throttled: false) < policy.backoffCap, n < 64 {
      n += 1
    }
    failureCap = n
    words.reserveCapacity(64)
  }

  /// Ready for another world, keeping the buffers.
  mutating func reset(now: Instant) {
    self.now = now
    words.removeAllKeepingCapacity()
    tokens.removeAllKeepingCapacity()
    ids.removeAllKeepingCapacity()
    apps.removeAllKeepingCapacity()
  }

  mutating func put(_ w: UInt32) { words.append(w) }
  mutating func put(_ b: Bool) { words.append(b ? 1 : 0) }

  mutating func double(_ d: Double) {
    let bits = d == 0 ? 0 : d.bitPattern  // -0 and 0 are the same instant
    words.append(UInt32(truncatingIfNeeded: bits))
    words.append(UInt32(truncatingIfNeeded: bits >> 32))
  }

  /// A relative time, as `Canonicalizer.time` makes it (never below 0), or its absence.
  mutating func time(_ seconds: Double?) {
    guard let seconds else { return put(0) }
    put(1)
    double(max(0, seconds))
  }

  mutating func string(_ s: String?) {
    guard let s else { return put(0) }
    put(cache.id(s))
  }

  /// An app's proof: its kind, then its fields.
  mutating func proof(_ p: AppVerification?) {
    switch p {
    case nil: put(0)
    case .recaptcha(let t)?:
      put(1)
      string(t)
    case .iosApp(let r, let s)?:
      put(2)
      string(r)
      string(s)
    case .recaptchaEnterprise(let t)?:
      put(3)
      string(t)
    }
  }

  mutating func token(_ s: String) {
    if let i = tokens.firstIndex(of: s) { return put(UInt32(i + 1)) }
    tokens.append(s)
    put(UInt32(tokens.count))
  }

  mutating func token(_ s: String?) {
    guard let s else { return put(0) }
    token(s)
  }

  mutating func id(_ r: RequestID) {
    if let i = ids.firstIndex(of: r) { return put(UInt32(i + 1)) }
    ids.append(r)
    put(UInt32(ids.count))
  }

  mutating func waiters(_ list: [TokenRequestID]) {
    let kept = list.prefix(2)
    put(UInt32(kept.count))
    for w in kept {
      if let i = apps.firstIndex(of: w) {
        put(UInt32(100 + i))
      } else {
        apps.append(w)
        put(UInt32(100 + apps.count - 1))
      }
    }
  }

  mutating func expiry(_ at: Instant) {
    let remaining = at - now
    double(policy.refreshMargin + min(max(0, remaining - policy.refreshMargin), policy.backoffBase))
  }

  mutating func credential(_ c: IdPCredential) {
    string(c.provider.rawValue)
    token(c.idToken)
    token(c.accessToken)
    token(c.rawNonce)
    token(c.pendingToken)
    token(c.authorizationCode)
    string(c.email)
    string(c.givenName)
    string(c.familyName)
  }

  mutating func proof(_ p: OwnerProof) {
    switch p {
    case .credential(let c):
      put(0)
      credential(c)
    case .phoneNumber(let n):
      put(1)
      string(n.phoneNumber)
      token(n.temporaryProof)
    }
  }

  mutating func op(_ o: SensitiveOperation) {
    switch o {
    case .deleteAccount: put(1)
    case .link(let c):
      put(2)
      credential(c)
    case .unlink(let p):
      put(3)
      string(p.rawValue)
    case .changePassword(let p):
      put(4)
      string(p)
    case .changeEmail(let e):
      put(5)
      string(e)
    case .enrollTotp: put(6)
    case .withdrawSecondFactor(let f):
      put(7)
      string(f)
    case .enrollPhone(let n, let p):
      put(8)
      string(n)
      proof(p)
    }
  }

  mutating func purpose(_ p: ProviderPurpose) {
    switch p {
    case .signIn: put(1)
    case .upgrade: put(2)
    case .link: put(3)
    case .reauthenticate(nil): put(4)
    case .reauthenticate(let o?):
      put(5)
      op(o)
    }
  }

  mutating func phase(_ p: Phase) {
    switch p {
    case .starting: put(1)
    case .resting: put(2)
    case .restoring(let r):
      put(3)
      id(r.request)
      waiters(r.waiters)
      time(r.retryAt.map { $0 - now })
    case .signingInAnonymously(let r):
      put(4)
      id(r)
    case .providerFlow(let f):
      put(5)
      id(f.request)
      purpose(f.purpose)
      if let c = f.credential {
        put(1)
        credential(c)
      } else {
        put(0)
      }
      string(f.provider.rawValue)
    case .migrationRequired(let o):
      put(6)
      proof(o.proof)
      string(o.email)
    case .migrating(let m):
      put(7)
      id(m.request)
      if let p = m.proof {
        put(1)
        proof(p)
      } else {
        put(0)
      }
      put(UInt32(MigrationChoice.allCases.firstIndex(of: m.choice) ?? 0))
      string(m.provider.rawValue)
      put(m.reauthorized)
    case .reauthenticationRequired(let o):
      put(8)
      op(o)
    case .deletingAccount(let d):
      put(9)
      if let r = d.request {
        put(1)
        id(r)
      } else {
        put(0)
      }
      switch d.step {
      case .authorizing(let p):
        put(1)
        string(p.rawValue)
      case .reauthenticating(let c):
        put(2)
        credential(c)
      case .revoking(let p):
        put(3)
        string(p.rawValue)
      case .deleting: put(4)
      case .waitingForToken: put(5)
      }
    case .unlinkingProvider(let u):
      put(10)
      id(u.request)
      string(u.provider.rawValue)
    case .emailFlow(let e):
      put(11)
      id(e.request)
      put(UInt32(EmailFlow.Kind.allCases.firstIndex(of: e.kind) ?? 0))
      string(e.email)
      if let r = e.resume {
        put(1)
        op(r)
      } else {
        put(0)
      }
    case .accountFlow(let f):
      put(12)
      id(f.request)
      put(UInt32(AccountFlow.Kind.allCases.firstIndex(of: f.kind) ?? 0))
      if let o = f.operation {
        put(1)
        op(o)
      } else {
        put(0)
      }
    case .accountExists(let link):
      put(14)
      pendingLink(link)
    case .totpEnrollment(let e):
      put(15)
      token(e.secret.sharedSecretKey)
      token(e.secret.sessionInfo)
      put(UInt32(truncatingIfNeeded: e.secret.codeLength))
      put(UInt32(truncatingIfNeeded: e.secret.periodSeconds))
      string(e.secret.hashingAlgorithm)
      if let r = e.request {
        put(1)
        id(r)
      } else {
        put(0)
      }
    case .phoneSignIn(let f):
      put(17)
      string(f.phoneNumber)
      token(f.sessionInfo)
      put(f.sendingCode ? 1 : 0)
      if let r = f.request {
        put(1)
        id(r)
      } else {
        put(0)
      }
    case .phoneEnrollment(let e):
      put(16)
      string(e.phoneNumber)
      token(e.sessionInfo)
      if let r = e.request {
        put(1)
        id(r)
      } else {
        put(0)
      }
    case .secondFactor(let step):
      put(13)
      token(step.challenge.pendingCredential)
      put(UInt32(step.challenge.factors.count))
      for f in step.challenge.factors {
        string(f.id)
        put(f.kind == .phone)
        string(f.displayName)
        string(f.phoneHint)
      }
      string(step.challenge.email)
      switch step.resume {
      case .signIn: put(1)
      case .reauthenticate(nil): put(2)
      case .reauthenticate(let o?):
        put(3)
        op(o)
      case .migrate(let choice):
        put(4)
        put(UInt32(MigrationChoice.allCases.firstIndex(of: choice) ?? 0))
      case .deleteAccount(let c):
        put(5)
        credential(c)
      }
      if let r = step.request {
        put(1)
        id(r)
      } else {
        put(0)
      }
      string(step.factor)
      put(step.sendingCode)
      if let sent = step.codeSent {
        put(1)
        string(sent.factor)
        token(sent.sessionInfo)
      } else {
        put(0)
      }
      string(step.displayName)
    }
  }

  mutating func user(_ u: SignedInUser) {
    session(u.session)
    switch u.token {
    case .fresh: put(1)
    case .refreshing(let r, let w, let f):
      put(2)
      id(r)
      waiters(w)
      put(UInt32(min(f, failureCap)))
    case .backingOff(let until, let f):
      put(3)
      double(max(0, until - now))
      put(UInt32(min(f, failureCap)))
    }
    if let r = u.cleanupRequest {
      put(1)
      id(r)
    } else {
      put(0)
    }
    put(u.cleanupRefreshing)
  }

  mutating func session(_ s: Session) {
    token(s.idToken)
    token(s.refreshToken)
    expiry(s.expiresAt)
    if let c = s.pendingCleanup {
      put(1)
      token(c.idToken)
      token(c.refreshToken)
      if let at = c.expiresAt {
        put(1)
        expiry(at)
      } else {
        put(0)
      }
      string(c.uid)
      put(c.dataMoved)
    } else {
      put(0)
    }
    string(s.uid)
    put(s.anonymous)
    put(UInt32(s.providers.count))
    for p in s.providers { string(p.rawValue) }
    string(s.email)
    string(s.displayName)
    string(s.photoURL)
    put(UInt32(truncatingIfNeeded: s.secondFactors.count))
    for f in s.secondFactors {
      string(f.id)
      string(f.kind.rawValue)
      string(f.displayName)
      string(f.phoneHint)
    }
    put(s.emailVerified)
    if let d = s.pendingDeletion {
      put(1)
      put(d.deleting)
      put(UInt32(d.revoked.count))
      for p in d.revoked { string(p.rawValue) }
    } else {
      put(0)
    }
  }
}
