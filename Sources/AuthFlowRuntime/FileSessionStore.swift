import AuthFlowCore
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A session in a JSON file that several processes may share (an app and its extensions in an
/// app group's container, several copies of a command-line tool).
///
/// - **Atomic**: every write goes to a temporary file in the same directory, is fsynced, then
///   renamed over the old one, with permissions 0600. A crash mid-write leaves the old file or
///   the new one, never half of either.
/// - **Coordinated**: every read-modify-write holds an advisory lock (`flock` on `<path>.lock`),
///   and the file numbers its writes (`generation`); clearing keeps a record without a session,
///   so the numbering goes on. A write never replaces the same user's newer tokens with older
///   ones.
/// - **Watched**: `watch(_:)` reports another process's writes, through inotify on Linux, a
///   dispatch source on Apple platforms, or polling (every 200 ms) where neither works.
/// - **One refresh**: `sharedRefresh(of:now:refresh:)` holds a lease (`<path>.lease`: the
///   holder's pid and an expiry) while it refreshes, so the processes refresh once between them;
///   a lease whose holder died, or that expired, is taken over.
///
/// A missing file is "no session"; a file that is not a session is reported as corrupt (the
/// machine then starts signed out and says so).
public struct FileSessionStore: SharedSessionStore {
  /// The file's path.
  public let path: String
  /// How long a refresh lease lasts before another process may take it over (its holder is
  /// alive but stuck); a holder that died is taken over at once.
  public var leaseDuration: Double
  private let seen: SeenGeneration

  /// A store at `path` (its directory must exist).
  public init(path: String, leaseDuration: Double = 30) {
    self.path = path
    self.leaseDuration = leaseDuration
    seen = SeenGeneration()
  }

  public func load() async throws -> Session? {
    guard let (session, generation) = try readRecord() else { return nil }
    seen.raise(to: generation)
    return session
  }

  public func save(_ session: Session) async throws {
    try withLock {
      let current = state()
      // A write that changes nothing is no write: the numbering and the watchers stay still
      // (a process that took another's refreshed tokens writes what the file already holds).
      if case .record(let stored?, _) = current, stored == session { return }
      var session = session
      if case .record(let stored?, _) = current, stored.uid == session.uid,
        stored.expiresAt > session.expiresAt
      {
        // Another process refreshed since this one read: keep its newer tokens.
        session.idToken = stored.idToken
        session.refreshToken = stored.refreshToken
        session.expiresAt = stored.expiresAt
      }
      try write(session, after: current.generation)
    }
  }

  public func clear() async throws {
    try withLock {
      // No file: nothing to clear. A file that cannot be read as a record is replaced.
      let current = state()
      if case .missing = current { return }
      try write(nil, after: current.generation)
    }
  }

  // MARK: Watching

  public func watch(_ onChange: @escaping @Sendable (Session?) -> Void) throws
    -> SessionStoreWatch
  {
    let seen = self.seen
    let path = self.path
    let watcher = FileWatcher(path: path) {
      // A corrupt or half-visible file is skipped: the next write, or load, reports it.
      guard case .record(let session, let generation) = Self.state(path),
        seen.raise(to: generation)
      else { return }
      onChange(session)
    }
    return SessionStoreWatch { watcher.stop() }
  }

  // MARK: One refresh across processes

  public func sharedRefresh(
    of session: Session, now: @escaping @Sendable () -> Instant,
    refresh: @escaping @Sendable () async -> RefreshAnswer
  ) async -> SharedRefresh {
    // However the lease file reads, waiting for it ends: after `leaseDuration` of waiting this
    // process takes the lease over (its holder is stuck, or the file lies).
    let waitingSince = ContinuousClock.now
    while true {
      // Another process may have refreshed already.
      if let done = refreshedElsewhere(session, now: now()) { return SharedRefresh(answer: done) }
      let waited = (ContinuousClock.now - waitingSince).components
      let takeOver =
        Double(waited.seconds) + Double(waited.attoseconds) / 1e18
        >= Instant.clampedDuration(leaseDuration)
      switch (try? acquireLease(now: now(), takeOver: takeOver)) ?? .held {
      case .acquired:
        // Checked again under the lease: a peer may have finished just before.
        if let done = refreshedElsewhere(session, now: now()) {
          try? releaseLease()
          return SharedRefresh(answer: done)
        }
        let answer = await refresh()
        // The lease is held until the machine's write of these tokens is done, so whoever
        // waits finds them in the store.
        let store = self
        return SharedRefresh(answer: answer) { try? store.releaseLease() }
      case .held:
        // Someone else is refreshing: wait for their tokens (or for the lease to lapse).
        try? await Task.sleep(nanoseconds: 50_000_000)
        if Task.isCancelled {
          return SharedRefresh(answer: .requestFailed(error: AuthError(code: "CANCELLED")))
        }
        if case .record(let stored, _) = state(), stored?.uid != session.uid {
          // Signed out, or someone else signed in: the store's watch tells the machine.
          return SharedRefresh(
            answer: .requestFailed(
              error: AuthError(code: "STORE_CHANGED", message: "another process changed the user"))
          )
        }
      }
    }
  }

  /// The same user's newer tokens in the store, as a refresh's answer.
  func refreshedElsewhere(_ session: Session, now: Instant) -> RefreshAnswer? {
    // Newer means a later expiry: a refresh a second after another may even return the same
    // token string.
    guard let record = try? readRecord(), let stored = record.session,
      stored.uid == session.uid, stored.expiresAt > session.expiresAt, stored.expiresAt > now
    else { return nil }
    return .tokenRefreshed(
      Tokens(
        idToken: stored.idToken, refreshToken: stored.refreshToken, expiresAt: stored.expiresAt))
  }

  enum Lease { case acquired, held }

  var leasePath: String { path + ".lease" }

  /// Takes the lease if nobody holds it, its holder has died, it has expired, or `takeOver`.
  ///
  /// A lease is never trusted beyond `leaseDuration` after it was written (the file's
  /// modification time, itself never later than `now`): an expiry of `1e300`, or a year ahead,
  /// from a holder that is alive counts as one that ends `leaseDuration` after the write.
  func acquireLease(now: Instant, takeOver: Bool = false) throws -> Lease {
    try withLock {
      if !takeOver, let text = try? String(contentsOfFile: leasePath, encoding: .utf8) {
        let parts = text.split(separator: " ")
        if parts.count == 2, let pid = Int32(parts[0]), let until = Double(parts[1]),
          pid != getpid(), min(until, leaseWritten(now: now) + leaseDuration) > now.seconds,
          Self.isAlive(pid)
        {
          return .held
        }
      }
      let record = "\(getpid()) \(now.seconds + leaseDuration)"
      try Self.writeAtomically(Data(record.utf8), to: leasePath)
      return .acquired
    }
  }

  /// When the lease file was written, in seconds since 1970, never later than `now` (a file
  /// stamped in the future is read as written now).
  func leaseWritten(now: Instant) -> Double {
    let attributes = try? FileManager.default.attributesOfItem(atPath: leasePath)
    let written = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? now.seconds
    return min(written, now.seconds)
  }

  /// Lets the lease go, if this process still holds it.
  func releaseLease() throws {
    try withLock {
      guard let text = try? String(contentsOfFile: leasePath, encoding: .utf8),
        text.split(separator: " ").first == Substring("\(getpid())")
      else { return }
      unlink(leasePath)
    }
  }

  static func isAlive(_ pid: Int32) -> Bool {
    kill(pid, 0) == 0 || errno != ESRCH  // EPERM: alive, but not ours to signal.
  }

  // MARK: Reading and writing

  /// What the file holds, errors folded in.
  enum FileState {
    case missing, unreadable
    case record(Session?, UInt64)

    /// The generation to write after (a missing or unreadable file starts again at 0).
    var generation: UInt64 {
      if case .record(_, let g) = self { return g }
      return 0
    }
  }

  func state() -> FileState { Self.state(path) }

  static func state(_ path: String) -> FileState {
    do {
      guard let (session, generation) = try read(path) else { return .missing }
      return .record(session, generation)
    } catch {
      return .unreadable
    }
  }

  /// The record in the file, or `nil` when there is no file.
  func readRecord() throws -> (session: Session?, generation: UInt64)? {
    try Self.read(path)
  }

  static func read(_ path: String) throws -> (session: Session?, generation: UInt64)? {
    var info = stat()
    if stat(path, &info) != 0 {
      if errno == ENOENT { return nil }
      throw SessionStoreError.unavailable(
        "\(path) cannot be read: \(String(cString: strerror(errno)))")
    }
    guard Int(info.st_size) <= StoredSession.maximumSize else {
      throw SessionStoreError.corrupt(
        "\(path) is \(info.st_size) bytes, too large to be a stored session")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      if errno == ENOENT { return nil }  // Removed between the two calls.
      throw SessionStoreError.unavailable("\(path) exists but cannot be read")
    }
    return try StoredSession.record(data, source: path)
  }

  /// Writes `session` as the write after `generation` (call with the lock held).
  private func write(_ session: Session?, after generation: UInt64) throws {
    // Reading refuses a generation above `StoredSession.maximumGeneration`, so this never wraps.
    let next = generation + 1
    // Marked as seen before the rename, so this process's own watch never reports it.
    seen.raise(to: next)
    try Self.writeAtomically(try StoredSession.encode(session, generation: next), to: path)
  }

  /// Runs `body` holding the advisory lock shared by every process using this file.
  func withLock<T>(_ body: () throws -> T) throws -> T {
    let fd = open(path + ".lock", O_RDWR | O_CREAT, 0o600)
    guard fd >= 0 else {
      throw SessionStoreError.writeFailed(
        "cannot open \(path).lock: \(String(cString: strerror(errno)))")
    }
    defer { close(fd) }  // Closing the descriptor releases the lock.
    while flock(fd, LOCK_EX) != 0 {
      guard errno == EINTR else {
        throw SessionStoreError.writeFailed(
          "cannot lock \(path).lock: \(String(cString: strerror(errno)))")
      }
    }
    return try body()
  }

  /// Writes `data` to `path` so that readers see the old or the new content, never a mix.
  static func writeAtomically(_ data: Data, to path: String) throws {
    let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    guard fd >= 0 else {
      throw SessionStoreError.writeFailed(
        "cannot create \(temporary): \(String(cString: strerror(errno)))")
    }
    var ok = data.withUnsafeBytes { buffer -> Bool in
      var offset = 0
      while offset < buffer.count {
        let n = posixWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
        if n <= 0 { return false }
        offset += n
      }
      return true
    }
    ok = ok && fsync(fd) == 0
    close(fd)
    guard ok, rename(temporary, path) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporary)
      throw SessionStoreError.writeFailed("cannot write \(path): \(reason)")
    }
    // The rename is durable once the directory entry is on disk.
    let directory = (path as NSString).deletingLastPathComponent
    let dfd = open(directory.isEmpty ? "." : directory, O_RDONLY)
    if dfd >= 0 {
      fsync(dfd)
      close(dfd)
    }
  }
}

/// `write(2)`, under a name that does not clash with the store's own `write`.
@inline(__always)
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, buffer, count)
}

/// The highest generation this process has read or written, shared by copies of a store.
final class SeenGeneration: @unchecked Sendable {
  private var value: UInt64 = 0
  private let lock = NSLock()

  /// Raises the mark to `generation`; true when that is news (higher than the mark).
  @discardableResult
  func raise(to generation: UInt64) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    guard generation > value else { return false }
    value = generation
    return true
  }
}
