import AuthFlowCore
import Foundation
import Testing

@testable import AuthFlowRuntime

#if canImport(Glibc)
  import Glibc
#endif

@Suite("A session store shared by several processes")
struct SharedStoreTests {
  func session(_ uid: String, _ id: String, expiresIn: Double) -> Session {
    Session(
      uid: uid, anonymous: false, providers: ["google.com"], idToken: id, refreshToken: "rt-\(id)",
      expiresAt: Instant(Date().timeIntervalSince1970 + expiresIn))
  }

  @Test("writes are numbered; clearing keeps the numbering; newer tokens are never replaced")
  func generations() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let store = FileSessionStore(path: dir + "/s.json")
    try await store.save(session("u1", "id-1", expiresIn: 3600))
    guard case .record(_, 1) = store.state() else { throw Failure("first write is generation 1") }
    try await store.clear()
    guard case .record(nil, 2) = store.state() else { throw Failure("a clear is a record") }
    #expect(try await store.load() == nil)
    try await store.save(session("u1", "id-2", expiresIn: 3600))
    // A peer that had not seen the refresh writes its older tokens: the newer ones stay.
    try await store.save(session("u1", "id-old", expiresIn: 60))
    #expect(try await store.load()?.idToken == "id-2")
    guard case .record(_, 4) = store.state() else { throw Failure("generation 4") }
    // An old file without a generation still loads.
    let old =
      #"{"version":1,"session":{"anonymous":false,"expiresAt":1796057598,"idToken":"i","providers":[],"refreshToken":"r","uid":"u"}}"#
    try old.write(toFile: dir + "/old.json", atomically: true, encoding: .utf8)
    #expect(try await FileSessionStore(path: dir + "/old.json").load()?.uid == "u")
  }

  @Test("a watch reports another writer's changes, not its own", arguments: [false, true])
  func watch(polling: Bool) async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let mine = FileSessionStore(path: dir + "/s.json")
    let theirs = FileSessionStore(path: dir + "/s.json")  // Another process's copy.
    let seen = Box()
    let watcher = FileWatcher(path: dir + "/s.json", polling: polling) {
      if case .record(let s, let g) = FileSessionStore.state(dir + "/s.json") {
        seen.add("\(g):\(s?.idToken ?? "cleared")")
      }
    }
    defer { watcher.stop() }
    let watch = try mine.watch { seen.add("change:\($0?.idToken ?? "cleared")") }
    defer { watch.stop() }
    try await mine.save(session("u1", "id-1", expiresIn: 3600))
    try await Task.sleep(nanoseconds: 500_000_000)
    #expect(!seen.items.contains { $0.hasPrefix("change:") }, "its own write: \(seen.items)")
    try await theirs.save(session("u1", "id-2", expiresIn: 3700))
    try await theirs.clear()
    let deadline = Date().addingTimeInterval(5)
    func done() -> Bool {
      seen.items.contains("change:cleared")
        && seen.items.contains { $0.hasPrefix("3:") || $0.hasPrefix("2:") }
    }
    while !done(), Date() < deadline {
      try await Task.sleep(nanoseconds: 20_000_000)
    }
    #expect(seen.items.contains("change:cleared"), "\(seen.items)")
    #expect(seen.items.contains { $0.hasPrefix("3:") || $0.hasPrefix("2:") }, "the raw watcher")
  }

  @Test("the refresh lease: free, held by a live process, taken over from a dead one or expired")
  func lease() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let store = FileSessionStore(path: dir + "/s.json", leaseDuration: 30)
    let now = Instant(Date().timeIntervalSince1970)
    #expect(try store.acquireLease(now: now) == .acquired)
    try store.releaseLease()
    #expect(!FileManager.default.fileExists(atPath: store.leasePath))
    // Held by a live process (our parent) until a minute from now.
    try "\(getppid()) \(now.seconds + 60)".write(
      toFile: store.leasePath, atomically: true, encoding: .utf8)
    #expect(try store.acquireLease(now: now) == .held)
    // …until it expires.
    #expect(try store.acquireLease(now: now + 61) == .acquired)
    // A holder that no longer exists is taken over at once.
    try "2147483000 \(now.seconds + 60)".write(
      toFile: store.leasePath, atomically: true, encoding: .utf8)
    #expect(try store.acquireLease(now: now) == .acquired)
    // Garbage in the lease file is no lease.
    try "garbage".write(toFile: store.leasePath, atomically: true, encoding: .utf8)
    #expect(try store.acquireLease(now: now) == .acquired)
  }

  @Test("two runtimes on one file: a refresh is shared, a sign-out reaches the other")
  func twoRuntimes() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/s.json"
    try await FileSessionStore(path: path).save(session("u1", "id-1", expiresIn: 60))
    let server = TestInterpreter()
    await server.answer(
      .refreshToken, with: .refreshed(idToken: "id-2", refreshToken: "rt-2", expiresIn: 3600))
    let a = AuthRuntime(interpreter: server, store: FileSessionStore(path: path))
    let b = AuthRuntime(interpreter: server, store: FileSessionStore(path: path))
    await a.start()
    await b.start()
    #expect(try await a.idToken() == "id-2")
    #expect(try await b.idToken() == "id-2")
    #expect(await server.count(.refreshToken) == 1, "one refresh for both")
    let notes = await b.notifications()
    await a.send(.signOutTapped(discardAnonymousData: true))
    await a.settled()
    var it = notes.makeAsyncIterator()
    #expect(await it.next() == .signedOutElsewhere)
    #expect(await b.state.name == "signedOut")
  }
}

struct Failure: Error, CustomStringConvertible {
  var description: String
  init(_ d: String) { description = d }
}

final class Box: @unchecked Sendable {
  private let lock = NSLock()
  private var list: [String] = []
  func add(_ s: String) { lock.withLock { list.append(s) } }
  var items: [String] { lock.withLock { list } }
}
