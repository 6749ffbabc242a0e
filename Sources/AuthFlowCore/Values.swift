/// A moment in time, in seconds since 1970-01-01T00:00:00Z; the reducer never reads a clock.
public struct Instant: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
  /// Seconds since the Unix epoch.
  public var seconds: Double

  /// Creates an instant from seconds since the Unix epoch.
  public init(_ seconds: Double) { self.seconds = seconds }

  public init(from decoder: any Decoder) throws {
    seconds = try decoder.singleValueContainer().decode(Double.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(seconds)
  }

  public static func < (a: Instant, b: Instant) -> Bool { a.seconds < b.seconds }
  /// `a` moved by `b` seconds, saturating at `Instant.earliest` and `Instant.latest`.
  public static func + (a: Instant, b: Double) -> Instant { Instant(a.seconds + b).clamped }
  /// `a` moved back by `b` seconds, saturating like `+`.
  public static func - (a: Instant, b: Double) -> Instant { Instant(a.seconds - b).clamped }
  public static func - (a: Instant, b: Instant) -> Double { a.seconds - b.seconds }
  public var description: String { "t=\(seconds)" }
}

/// A signed-in Firebase user as stored on the device.
///
/// A value with copy-on-write storage: effects, results and the machine pass a session around
/// as one reference instead of copying (and retaining) its tokens each time.
public struct Session: Hashable, Codable, Sendable {
  @usableFromInline struct Fields: Hashable, Codable, Sendable {
    @usableFromInline var uid: String
    @usableFromInline var anonymous: Bool
    @usableFromInline var providers: [ProviderID]
    @usableFromInline var email: String?
    @usableFromInline var idToken: String
    @usableFromInline var refreshToken: String
    @usableFromInline var expiresAt: Instant
    @usableFromInline var pendingCleanup: AnonymousCleanup?
    @usableFromInline var displayName: String?
    @usableFromInline var pendingDeletion: DeletionRecord?
    @usableFromInline var emailVerified: Bool?
    @usableFromInline var photoURL: String?
    @usableFromInline var secondFactors: [SecondFactor]?
  }

  @usableFromInline var storage: CopyOnWrite<Fields>

  /// Creates a session.
  public init(
    uid: String, anonymous: Bool, providers: [ProviderID] = [], email: String? = nil,
    idToken: String, refreshToken: String, expiresAt: Instant,
    pendingCleanup: AnonymousCleanup? = nil, displayName: String? = nil,
    pendingDeletion: DeletionRecord? = nil, emailVerified: Bool = false, photoURL: String? = nil,
    secondFactors: [SecondFactor] = []
  ) {
    storage = CopyOnWrite(
      Fields(
        uid: uid, anonymous: anonymous, providers: providers, email: email, idToken: idToken,
        refreshToken: refreshToken, expiresAt: expiresAt, pendingCleanup: pendingCleanup,
        displayName: displayName, pendingDeletion: pendingDeletion,
        emailVerified: emailVerified, photoURL: photoURL,
        secondFactors: secondFactors.isEmpty ? nil : secondFactors))
  }

  /// The Firebase uid (`localId`).
  public var uid: String {
    @inlinable get { storage.value.uid }
    @inlinable _modify { yield &storage.value.uid }
  }
  /// True for a Firebase anonymous account.
  public var anonymous: Bool {
    @inlinable get { storage.value.anonymous }
    @inlinable _modify { yield &storage.value.anonymous }
  }
  /// Linked provider ids, e.g. `google.com`, `password`.
  public var providers: [ProviderID] {
    @inlinable get { storage.value.providers }
    @inlinable _modify { yield &storage.value.providers }
  }
  /// The account's email, when it has one.
  public var email: String? {
    @inlinable get { storage.value.email }
    @inlinable _modify { yield &storage.value.email }
  }
  /// The current Firebase ID token.
  public var idToken: String {
    @inlinable get { storage.value.idToken }
    @inlinable _modify { yield &storage.value.idToken }
  }
  /// The Secure Token refresh token.
  public var refreshToken: String {
    @inlinable get { storage.value.refreshToken }
    @inlinable _modify { yield &storage.value.refreshToken }
  }
  /// When `idToken` stops being valid.
  public var expiresAt: Instant {
    @inlinable get { storage.value.expiresAt }
    @inlinable _modify { yield &storage.value.expiresAt }
  }
  /// An anonymous account still to be deleted after a migration; persisted so a relaunch resumes.
  public var pendingCleanup: AnonymousCleanup? {
    @inlinable get { storage.value.pendingCleanup }
    @inlinable _modify { yield &storage.value.pendingCleanup }
  }
  /// The user's name, as the provider gave it (Apple gives it on the first authorization only,
  /// so it is kept here).
  public var displayName: String? {
    @inlinable get { storage.value.displayName }
    @inlinable _modify { yield &storage.value.displayName }
  }
  /// The URL of the user's photo, as Firebase has it (from the provider at sign-in, a reload, or
  /// a profile update).
  public var photoURL: String? {
    @inlinable get { storage.value.photoURL }
    @inlinable _modify { yield &storage.value.photoURL }
  }
  /// The account's second factors, as Firebase last said (at sign-in, or at a reload: an
  /// enrolment and a withdrawal reload the account); empty when it has none or never said (a
  /// session stored before this was kept reads as having none until the next reload).
  public var secondFactors: [SecondFactor] {
    @inlinable get { storage.value.secondFactors ?? [] }
    set { storage.value.secondFactors = newValue.isEmpty ? nil : newValue }
  }
  /// An account deletion under way; persisted so a relaunch finishes it.
  public var pendingDeletion: DeletionRecord? {
    @inlinable get { storage.value.pendingDeletion }
    @inlinable _modify { yield &storage.value.pendingDeletion }
  }
  /// Whether the account's email is verified, as Firebase last said (at sign-in, or at a
  /// reload); `false` when it never said (a session stored before this was kept reads as
  /// unverified).
  public var emailVerified: Bool {
    @inlinable get { storage.value.emailVerified ?? false }
    set { storage.value.emailVerified = newValue }
  }

  public init(from decoder: any Decoder) throws {
    storage = try CopyOnWrite(from: decoder)
    // One value for "unverified", whether the file said so or predates the field.
    if storage.value.emailVerified == nil { storage.value.emailVerified = false }
  }
  public func encode(to encoder: any Encoder) throws { try storage.encode(to: encoder) }

  /// Whether the ID token can be handed out at `now` without a refresh: more than `margin`
  /// seconds of life left.
  @inline(__always)
  public func isFresh(at now: Instant, margin: Double) -> Bool {
    storage.value.expiresAt - now > margin
  }
}

/// The anonymous account left behind by a `merge` or `switchWithoutData` migration.
public struct AnonymousCleanup: Hashable, Codable, Sendable {
  /// The anonymous uid whose data the app moves and whose account is then deleted.
  public var uid: String
  /// The anonymous account's ID token, used to delete it.
  public var idToken: String
  /// False until the app has said `migrationFinished` (always true after `switchWithoutData`).
  public var dataMoved: Bool
  /// The anonymous account's refresh token: when `idToken` has expired by the time the data is
  /// moved (an hour later, a week later), it gets a fresh one to delete the account with.
  public var refreshToken: String?
  /// When `idToken` expires (`nil` in records written before this was kept: used as it is).
  public var expiresAt: Instant?

  /// Creates a cleanup record.
  public init(
    uid: String, idToken: String, dataMoved: Bool, refreshToken: String? = nil,
    expiresAt: Instant? = nil
  ) {
    self.uid = uid
    self.idToken = idToken
    self.dataMoved = dataMoved
    self.refreshToken = refreshToken
    self.expiresAt = expiresAt
  }
}

/// An account deletion under way, kept in the stored session: which providers' grants are
/// revoked already, and whether the deletion request itself is next.
public struct DeletionRecord: Hashable, Codable, Sendable {
  /// Providers whose revocation is done (or was refused for good and reported).
  public var revoked: [ProviderID]
  /// True once every revocation is behind: what is left is `accounts:delete`.
  public var deleting: Bool

  /// Creates a record.
  public init(revoked: [ProviderID] = [], deleting: Bool = false) {
    self.revoked = revoked
    self.deleting = deleting
  }
}

/// How the reducer treats an anonymous user whose provider account already belongs to someone.
public enum MigrationPolicy: String, Hashable, Codable, Sendable, CaseIterable {
  /// Stop in `migrationRequired` and wait for `migrationDecided`.
  case ask
  /// Sign in to the existing account and hand the app both uids to move data.
  case merge
  /// Sign in to the existing account and drop the anonymous data.
  case switchWithoutData
  /// Stay anonymous and report the conflict.
  case stayAnonymous
}

/// The tunable numbers and choices of the machine.
public struct Policy: Hashable, Codable, Sendable {
  /// What to do on an upgrade conflict.
  public var migration: MigrationPolicy
  /// Seconds before expiry at which a token counts as due for refresh.
  public var refreshMargin: Double
  /// First retry delay after a failed refresh, in seconds.
  public var backoffBase: Double
  /// Longest retry delay, in seconds.
  public var backoffCap: Double
  /// Shortest retry delay after a throttled (TOO_MANY_ATTEMPTS_TRY_LATER) failure, in seconds.
  public var throttledDelay: Double
  /// The sign-in providers the machine knows, with their traits (Google and Apple built in).
  public var providers: ProviderCatalog

  /// Creates a policy; every argument has the documented default.
  public init(
    migration: MigrationPolicy = .ask, refreshMargin: Double = 300, backoffBase: Double = 60,
    backoffCap: Double = 960, throttledDelay: Double = 300,
    providers: ProviderCatalog = .builtIn
  ) {
    self.migration = migration
    self.refreshMargin = refreshMargin
    self.backoffBase = backoffBase
    self.backoffCap = backoffCap
    self.throttledDelay = throttledDelay
    self.providers = providers
  }

  /// The retry delay after `failures` consecutive failed refreshes (1 for the first).
  public func backoffDelay(failures: Int, throttled: Bool) -> Double {
    var delay = backoffBase
    var n = 1
    while n < failures && delay < backoffCap {
      delay *= 2
      n += 1
    }
    delay = min(delay, backoffCap)
    return throttled ? max(delay, throttledDelay) : delay
  }
}

extension Policy {
  private enum CodingKeys: String, CodingKey {
    case migration, refreshMargin, backoffBase, backoffCap, throttledDelay, providers
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      migration: try c.decode(MigrationPolicy.self, forKey: .migration),
      refreshMargin: try c.decode(Double.self, forKey: .refreshMargin),
      backoffBase: try c.decode(Double.self, forKey: .backoffBase),
      backoffCap: try c.decode(Double.self, forKey: .backoffCap),
      throttledDelay: try c.decode(Double.self, forKey: .throttledDelay),
      // Machines written before providers were configurable know the built-in ones.
      providers: try c.decodeIfPresent(ProviderCatalog.self, forKey: .providers) ?? .builtIn)
  }
}
