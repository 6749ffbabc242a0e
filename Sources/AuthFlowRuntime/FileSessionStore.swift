import AuthFlowCore
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A session in a JSON file, written atomically: a temporary file in the same directory,
/// fsync, then rename over the old one, with permissions 0600. A crash mid-write leaves the old
/// file or the new one, never half of either. A missing file is "no session"; a file that is not
/// a session is reported as corrupt (the machine then starts signed out and says so).
public struct FileSessionStore: SessionStore {
  /// The file's path.
  public let path: String

  /// A store at `path` (its directory must exist).
  public init(path: String) { self.path = path }

  public func load() async throws -> Session? {
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
      throw SessionStoreError.unavailable("\(path) exists but cannot be read")
    }
    return try StoredSession.decode(data, source: path)
  }

  public func save(_ session: Session) async throws {
    try Self.writeAtomically(try StoredSession.encode(session), to: path)
  }

  public func clear() async throws {
    guard unlink(path) == 0 || errno == ENOENT else {
      throw SessionStoreError.writeFailed(
        "cannot remove \(path): \(String(cString: strerror(errno)))")
    }
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
        let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
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
