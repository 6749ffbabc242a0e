import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Calls `onEvent` (on a background thread) soon after the file at `path` is replaced, written
/// or removed: through inotify on the file's directory on Linux, a dispatch source on the
/// directory on Apple platforms, and by polling its status every 200 ms where neither can be
/// set up. A call may also come when nothing changed; the caller reads the file to find out.
final class FileWatcher: @unchecked Sendable {
  private let lock = NSLock()
  private var stopped = false
  #if canImport(Darwin)
    private var source: DispatchSourceFileSystemObject?
  #endif

  /// Watches `path`; `polling` skips the system's notifications (for tests of the fallback).
  init(path: String, polling: Bool = false, onEvent: @escaping @Sendable () -> Void) {
    let directory = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    let dir = directory.isEmpty ? "." : directory
    #if os(Linux)
      if !polling, let fd = Self.inotify(directory: dir) {
        let thread = Thread { [weak self] in self?.readEvents(fd, name: name, onEvent) }
        thread.name = "AuthFlow store watch"
        thread.start()
        return
      }
    #elseif canImport(Darwin)
      let fd = polling ? -1 : open(dir, O_EVTONLY)
      if fd >= 0 {
        let source = DispatchSource.makeFileSystemObjectSource(
          fileDescriptor: fd, eventMask: [.write, .rename, .delete, .link],
          queue: DispatchQueue.global(qos: .utility))
        source.setEventHandler(handler: onEvent)
        source.setCancelHandler { close(fd) }
        source.resume()
        self.source = source
        return
      }
    #endif
    let thread = Thread { [weak self] in self?.poll(path, onEvent) }
    thread.name = "AuthFlow store poll"
    thread.start()
  }

  /// Stops watching; safe to call more than once.
  func stop() {
    lock.lock()
    stopped = true
    lock.unlock()
    #if canImport(Darwin)
      source?.cancel()
    #endif
  }

  var isStopped: Bool {
    lock.lock()
    defer { lock.unlock() }
    return stopped
  }

  #if os(Linux)
    static func inotify(directory: String) -> Int32? {
      let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      guard fd >= 0 else { return nil }
      let mask = UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_CREATE)
      guard inotify_add_watch(fd, directory, mask) >= 0 else {
        close(fd)
        return nil
      }
      return fd
    }

    /// Waits for events a fifth of a second at a time (so `stop` is noticed), and reports those
    /// about the file's name.
    private func readEvents(_ fd: Int32, name: String, _ onEvent: @Sendable () -> Void) {
      defer { close(fd) }
      var buffer = [UInt8](repeating: 0, count: 64 * 1024)
      while !isStopped {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&p, 1, 200) > 0 else { continue }
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { continue }
        var offset = 0
        var relevant = false
        while offset + 16 <= n {
          // struct inotify_event: wd, mask, cookie, len (4 bytes each), then the name.
          let len = Int(
            buffer.withUnsafeBytes {
              $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)
            })
          let start = offset + 16
          let end = min(start + len, n)
          if len > 0, end > start {
            let bytes = buffer[start..<end].prefix { $0 != 0 }
            if String(decoding: bytes, as: UTF8.self) == name { relevant = true }
          }
          offset = start + len
        }
        if relevant && !isStopped { onEvent() }
      }
    }
  #endif

  /// The fallback: the file's inode, size and modification time, every 200 ms.
  private func poll(_ path: String, _ onEvent: @Sendable () -> Void) {
    func signature() -> [Int] {
      var info = stat()
      guard stat(path, &info) == 0 else { return [] }
      #if canImport(Darwin)
        let m = info.st_mtimespec
      #else
        let m = info.st_mtim
      #endif
      return [Int(info.st_ino), Int(info.st_size), Int(m.tv_sec), Int(m.tv_nsec)]
    }
    var last = signature()
    while !isStopped {
      usleep(200_000)
      let now = signature()
      if now != last, !isStopped {
        last = now
        onEvent()
      }
    }
  }
}
