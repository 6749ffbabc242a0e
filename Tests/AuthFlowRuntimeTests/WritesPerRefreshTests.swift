import AuthFlowCore
import Foundation
import Testing

@testable import AuthFlowRuntime

/// Docs/Embedding.md, "How many writes": a refresh writes the shared store once, and another
/// process sees one change for it.
@Suite("Writes per flow")
struct WritesPerRefreshTests {
  @Test("a refresh writes the store once; another process sees one change")
  func oneWritePerRefresh() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/s.json"
    let store = FileSessionStore(path: path)
    try await store.save(
      Session(
        uid: "u1", anonymous: false, providers: ["google.com"], idToken: "id-1",
        refreshToken: "rt-1", expiresAt: Instant(Date().timeIntervalSince1970 + 3600)))
    guard case .record(_, let before) = store.state() else { throw Failure("a first write") }
    let server = TestInterpreter()
    await server.answer(
      .refreshToken, with: .refreshed(idToken: "id-2", refreshToken: "rt-2", expiresIn: 3600))
    let runtime = AuthRuntime(interpreter: server, store: store)
    await runtime.start()
    await runtime.settled()
    // Another process watching the same file.
    let seen = Box()
    let peer = FileSessionStore(path: path)
    let watch = try peer.watch { seen.add($0?.idToken ?? "cleared") }
    defer { watch.stop() }
    #expect(try await runtime.idToken(forceRefresh: true) == "id-2")
    await runtime.settled()
    try await Task.sleep(nanoseconds: 700_000_000)  // Longer than the watch's settling time.
    guard case .record(let stored, let after) = store.state() else { throw Failure("a record") }
    #expect(stored?.idToken == "id-2")
    #expect(after - before == 1, "\(after - before) writes for one refresh")
    #expect(seen.items == ["id-2"], "the other process saw \(seen.items)")
    #expect(await server.count(.refreshToken) == 1)
  }
}
