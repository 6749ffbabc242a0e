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

/// The stored form: versioned, so a future format can read (or refuse) an old file.
struct StoredSession: Codable {
  var version: Int
  var session: Session
  static let currentVersion = 1
}
