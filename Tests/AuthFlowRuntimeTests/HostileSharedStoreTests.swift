import AuthFlowCore
import Foundation
import Testing

@testable import AuthFlowRuntime

#if canImport(Glibc)
  import Glibc
#endif

@Suite(
  "Hostile shared-store files: a lying lease, a write number at its limit", .timeLimit(.minutes(1)))
struct HostileSharedStoreTests {
  func session(expiresIn: Double) -> Session {
    Session(
      uid: "u1", anonymous: false, providers: ["google.com"], idToken: "id-1",
      refreshToken: "rt-1", expiresAt: Instant(Date().timeIntervalSince1970 + expiresIn))
  }

  @Test(
    "a lease from a live process with an absurd expiry is trusted for the lease duration only",
    arguments: ["1e300", "\(Date().timeIntervalSince1970 + 365 * 86_400)", "inf"])
  func lyingLease(expiry: String) async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lease-\(UUID())").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/s.json"
    let store = FileSessionStore(path: path, leaseDuration: 1)
    try await store.save(session(expiresIn: 60))  // Inside the margin: the token wants a refresh.
    // Our parent is alive, and the lease says it holds the refresh until the end of time.
    try "\(getppid()) \(expiry)".write(toFile: path + ".lease", atomically: true, encoding: .utf8)
    let now = Instant(Date().timeIntervalSince1970)
    #expect(try store.acquireLease(now: now) == .held, "a fresh lease from a live holder holds")
    #expect(try store.acquireLease(now: now + 2) == .acquired, "…for the lease duration at most")
    try store.releaseLease()
    try "\(getppid()) \(expiry)".write(toFile: path + ".lease", atomically: true, encoding: .utf8)
    let server = TestInterpreter()
    await server.answer(
      .refreshToken, with: .refreshed(idToken: "id-2", refreshToken: "rt-2", expiresIn: 3600))
    let runtime = AuthRuntime(interpreter: server, store: store)
    await runtime.start()
    let started = ContinuousClock.now
    let token = try await runtime.idToken()
    let waited = ContinuousClock.now - started
    #expect(token == "id-2")
    #expect(waited < .seconds(3), "waited \(waited) for a lease that lasts 1 s")
  }

  @Test("a lease whose holder keeps rewriting it delays a refresh by the lease duration at most")
  func rewrittenLease() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lease-\(UUID())").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/s.json"
    let store = FileSessionStore(path: path, leaseDuration: 1)
    try await store.save(session(expiresIn: 60))
    let lease = "\(getppid()) 1e300"
    try lease.write(toFile: path + ".lease", atomically: true, encoding: .utf8)
    let rewriter = Task.detached {
      while !Task.isCancelled {
        try? lease.write(toFile: path + ".lease", atomically: true, encoding: .utf8)
        try? await Task.sleep(nanoseconds: 20_000_000)
      }
    }
    defer { rewriter.cancel() }
    let server = TestInterpreter()
    await server.answer(
      .refreshToken, with: .refreshed(idToken: "id-2", refreshToken: "rt-2", expiresIn: 3600))
    let runtime = AuthRuntime(interpreter: server, store: store)
    await runtime.start()
    let started = ContinuousClock.now
    #expect(try await runtime.idToken() == "id-2")
    #expect(ContinuousClock.now - started < .seconds(3))
  }

  @Test(
    "a write number above 2^53 is refused as corrupt (never wrapped); 2^53 itself is read",
    arguments: [UInt64.max, (UInt64(1) << 53) + 1] as [UInt64])
  func generationLimit(generation: UInt64) async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gen-\(UUID())").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/s.json"
    let expiry = Int(Date().timeIntervalSince1970) + 3600
    let record = { (g: UInt64) in
      #"{"generation":\#(g),"version":1,"session":{"anonymous":false,"expiresAt":\#(expiry),"idToken":"i","providers":[],"refreshToken":"r","uid":"u"}}"#
    }
    try record(generation).write(toFile: path, atomically: true, encoding: .utf8)
    do {
      _ = try await FileSessionStore(path: path).load()
      Issue.record("a write number of \(generation) was read")
    } catch let e as SessionStoreError {
      #expect(e.authError.message?.contains("2^53") == true, "\(e)")
    }
    // The runtime starts signed out and says why; the next write numbers from 1 again.
    let runtime = AuthRuntime(interpreter: TestInterpreter(), store: FileSessionStore(path: path))
    let notes = await runtime.notifications()
    await runtime.start()
    var it = notes.makeAsyncIterator()
    guard case .error(let e) = await it.next() else { throw Failure("no error notification") }
    #expect(e.code == "CORRUPT_SESSION" && e.message?.contains("2^53") == true, "\(e)")
    #expect(await runtime.state.name == "signedOut")
    try record(1 << 53).write(toFile: path, atomically: true, encoding: .utf8)
    #expect(try await FileSessionStore(path: path).load()?.uid == "u")
  }
}
