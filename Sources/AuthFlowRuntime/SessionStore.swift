import AuthFlowCore
import Foundation

/// Where the session is kept between launches.
public protocol SessionStore: Sendable {
  /// The stored session, `nil` when there is none. Throws `SessionStoreError`.
  func load() async throws -> Session?
  /// Replaces the stored session.
  func save(_ session: Session) async throws
  /// Removes the stored session.
  func clear() async throws
}

/// Why a store could not do its job.
public enum SessionStoreError: Error, Equatable, Sendable {
  /// What is stored is not a session (the machine starts signed out and reports it).
  case corrupt(String)
  /// The storage cannot be read now (a locked keychain); the machine reads again later.
  case unavailable(String)
  /// A write failed (disk full, permissions).
  case writeFailed(String)

  /// The machine's error for this failure.
  public var authError: AuthError {
    switch self {
    case .corrupt(let m): AuthError(code: "CORRUPT_SESSION", message: m)
    case .unavailable(let m): AuthError(code: "STORAGE_UNAVAILABLE", message: m)
    case .writeFailed(let m): AuthError(code: "PERSIST_FAILED", message: m)
    }
  }
}

/// A store in memory, for tests and for sessions that must not outlive the process.
public actor InMemorySessionStore: SessionStore {
  private var session: Session?
  /// How many writes (saves and clears) it has seen.
  public private(set) var writes = 0

  /// A store holding `session`.
  public init(_ session: Session? = nil) { self.session = session }

  public func load() -> Session? { session }

  public func save(_ session: Session) {
    self.session = session
    writes += 1
  }

  public func clear() {
    session = nil
    writes += 1
  }
}

/// The stored form: versioned, so a future format can read (or refuse) an old file. A file
/// store also numbers its writes (`generation`, absent in files written before it existed) and
/// keeps a cleared store as a record without a session, so the numbering goes on and a reader in
/// another process can tell a newer write from one it has seen.
struct StoredSession: Codable {
  var version: Int
  var generation: UInt64?
  var session: Session?
  static let currentVersion = 1
  /// The highest write number a file may hold: 2^53, the largest integer every JSON reader
  /// keeps exactly (a billion writes a second would take 285 years to reach it). A file with a
  /// higher one was not written by a store and is refused as corrupt, so numbering never wraps.
  static let maximumGeneration: UInt64 = 1 << 53
  /// More than this is not a session (one is well under 10 KB): refused before it is parsed.
  static let maximumSize = 1 << 20

  /// The stored bytes of `session` (a keychain item: no generation).
  static func encode(_ session: Session) throws -> Data {
    try encode(session, generation: nil)
  }

  /// The stored bytes of `session` (`nil`: cleared) as write number `generation`.
  static func encode(_ session: Session?, generation: UInt64?) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(
      StoredSession(version: currentVersion, generation: generation, session: session))
  }

  /// The session in `data`; a record without one is corrupt here (a keychain item always has
  /// one).
  static func decode(
    _ data: Data, source: String, now: Instant = Instant(Date().timeIntervalSince1970)
  ) throws(SessionStoreError) -> Session {
    guard let s = try record(data, source: source, now: now).session else {
      throw .corrupt("\(source) holds no session")
    }
    return s
  }

  /// The record in `data`, or `corrupt` naming `source` and what is wrong: bytes that are not a
  /// stored session, another format version, empty identifiers, or times the machine cannot use
  /// (a corrupt or forged expiry must not reach the clock).
  static func record(
    _ data: Data, source: String, now: Instant = Instant(Date().timeIntervalSince1970)
  ) throws(SessionStoreError) -> (session: Session?, generation: UInt64) {
    guard data.count <= maximumSize else {
      throw .corrupt("\(source) is \(data.count) bytes, too large to be a stored session")
    }
    guard let stored = try? JSONDecoder().decode(StoredSession.self, from: data) else {
      throw .corrupt("\(source) is not a stored session (\(data.count) bytes)")
    }
    guard stored.version == currentVersion else {
      throw .corrupt("\(source) has format version \(stored.version); expected \(currentVersion)")
    }
    if let g = stored.generation, g > maximumGeneration {
      throw .corrupt("\(source) has write number \(g), above the highest a store writes (2^53)")
    }
    guard let s = stored.session else { return (nil, stored.generation ?? 0) }
    guard !s.uid.isEmpty, !s.idToken.isEmpty, !s.refreshToken.isEmpty else {
      throw .corrupt("\(source) has an empty uid or token")
    }
    guard s.hasValidTimes(at: now.clamped) else {
      throw .corrupt("\(source) has an expiry out of range (\(s.expiresAt.seconds))")
    }
    return (s, stored.generation ?? 0)
  }
}

/// A store that several processes share (an app and its extensions, copies of a tool): it
/// tells a process when another one wrote, and lets one process refresh for all.
public protocol SharedSessionStore: SessionStore {
  /// Calls `onChange` with what the store holds each time another process writes it, until the
  /// returned watch is stopped.
  func watch(_ onChange: @escaping @Sendable (Session?) -> Void) throws -> SessionStoreWatch

  /// Runs `refresh` for `session`'s user in one process at a time across every process sharing
  /// the store. A process that finds the user's tokens already refreshed by another (newer than
  /// `session`'s) gets those instead of refreshing again; one whose peer died mid-refresh takes
  /// over. The store does not write the new tokens itself: the machine's `persistSession` for
  /// the answer is the one write of the refresh, and the caller calls `finish` once that write
  /// is done (or when the answer led to none), which lets the next process go. `now` is the
  /// caller's clock.
  func sharedRefresh(
    of session: Session, now: @escaping @Sendable () -> Instant,
    refresh: @escaping @Sendable () async -> RefreshAnswer
  ) async -> SharedRefresh
}

/// The answer of a refresh shared across processes, and what to call once it has been written.
public struct SharedRefresh: Sendable {
  /// The refresh's answer (this process's, or tokens another process wrote).
  public var answer: RefreshAnswer
  /// Lets other processes refresh (or read these tokens) again; call it once, after the
  /// answer's write.
  public let finish: @Sendable () -> Void

  /// An answer and its finish.
  public init(answer: RefreshAnswer, finish: @escaping @Sendable () -> Void = {}) {
    self.answer = answer
    self.finish = finish
  }
}

/// Stops watching a store when told to (or when released).
public final class SessionStoreWatch: Sendable {
  private let stopper: @Sendable () -> Void

  /// A watch that runs `stop` once.
  public init(stop: @escaping @Sendable () -> Void) { stopper = stop }

  /// Stops watching.
  public func stop() { stopper() }

  deinit { stopper() }
}
