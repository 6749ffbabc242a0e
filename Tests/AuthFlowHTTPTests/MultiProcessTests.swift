import AuthFlowCore
import AuthFlowHTTP
import AuthFlowRuntime
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A running `authflow-peer` process and the lines it printed.
final class Peer: @unchecked Sendable {
  let process = Process()
  private let lock = NSLock()
  private var lines: [(at: Date, text: String)] = []
  private var partial = Data()

  static let executable = URL(fileURLWithPath: CommandLine.arguments[0])
    .deletingLastPathComponent().appendingPathComponent("authflow-peer").path

  init(_ arguments: [String]) throws {
    process.executableURL = URL(fileURLWithPath: Self.executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
      self?.take(handle.availableData)
    }
    try process.run()
  }

  private func take(_ data: Data) {
    lock.lock()
    defer { lock.unlock() }
    partial += data
    while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
      lines.append((Date(), String(decoding: partial[partial.startIndex..<newline], as: UTF8.self)))
      partial = Data(partial[partial.index(after: newline)...])
    }
  }

  var output: [String] {
    lock.lock()
    defer { lock.unlock() }
    return lines.map(\.text)
  }

  /// When the first line starting with `prefix` came, waiting up to `timeout` seconds for it.
  func waitFor(_ prefix: String, timeout: Double = 20) async -> Date? {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if let hit = first(prefix) { return hit }
      try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return nil
  }

  private func first(_ prefix: String) -> Date? {
    lock.withLock { lines.first { $0.text.hasPrefix(prefix) }?.at }
  }

  func finish(timeout: Double = 60) async -> Int32? {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline {
      try? await Task.sleep(nanoseconds: 20_000_000)
    }
    if process.isRunning {
      process.terminate()
      return nil
    }
    return process.terminationStatus
  }

  deinit {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
  }
}

@Suite("One session shared by several processes, with one refresh", .serialized)
struct MultiProcessTests {
  /// A stand-in, a user signed up on it, and a session file holding that user with a token that
  /// expires in `expiresIn` seconds (inside the 300 s margin: every process wants a refresh).
  func setUp(expiresIn: Double) async throws -> (StandIn, String, String, Session) {
    #expect(FileManager.default.isExecutableFile(atPath: Peer.executable), "\(Peer.executable)")
    let standIn = try StandIn()
    guard case .signedIn(var session) = await standIn.api().signUpAnonymously() else {
      throw AuthError(code: "SETUP", message: "the stand-in did not sign up a user")
    }
    session.expiresAt = Instant(Date().timeIntervalSince1970 + expiresIn)
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-mp-\(UUID())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let path = dir.appendingPathComponent("session.json").path
    try await FileSessionStore(path: path).save(session)
    return (standIn, dir.path, path, session)
  }

  func refreshes(_ standIn: StandIn) async throws -> Int {
    (try await standIn.snapshot()["refreshes"] as? [Any])?.count ?? -1
  }

  /// Waits up to 10 s for a file to exist (a peer's lease); whether it does.
  func appears(_ file: String) async throws -> Bool {
    let deadline = Date().addingTimeInterval(10)
    while !FileManager.default.fileExists(atPath: file), Date() < deadline {
      try await Task.sleep(nanoseconds: 10_000_000)
    }
    return FileManager.default.fileExists(atPath: file)
  }

  @Test(
    "8 processes ask for 1,000 ID tokens around an expiry: one refresh, everyone gets its token")
  func eightProcesses() async throws {
    let (standIn, dir, path, old) = try await setUp(expiresIn: 60)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let started = Date()
    let peers = try (0..<8).map { _ in
      try Peer(["--store", path, "--firebase", standIn.hostPort, "--tokens", "125"])
    }
    for (i, peer) in peers.enumerated() {
      let status = await peer.finish()
      #expect(status == 0, "peer \(i): \(peer.output.suffix(3))")
    }
    let elapsed = Date().timeIntervalSince(started)
    #expect(try await refreshes(standIn) == 1, "one refresh for the one expiry")
    let stored = try #require(try await FileSessionStore(path: path).load())
    #expect(
      stored.expiresAt.seconds > old.expiresAt.seconds + 3000, "the file holds the new tokens")
    let tokens = peers.flatMap { $0.output.filter { $0.hasPrefix("token ") } }
    #expect(tokens.count == 1_000)
    // Every token handed out is the file's: none older than what the store holds.
    #expect(Set(tokens) == ["token " + Secrets.fingerprint(stored.idToken)])
    print("multi-process: 8 processes, 1,000 tokens, 1 refresh, \(Int(elapsed * 1000)) ms")
  }

  @Test("the refreshing process is killed mid-refresh: another takes over, nobody is signed out")
  func takeover() async throws {
    let (standIn, dir, path, _) = try await setUp(expiresIn: 60)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // The first refresh hangs for 5 s: its process is killed while it waits.
    try await standIn.fault("token", ["delay": 5])
    let victim = try Peer(["--store", path, "--firebase", standIn.hostPort, "--tokens", "1"])
    #expect(try await appears(path + ".lease"), "the first process took the lease")
    // (Its start waits for its first refresh, which waits for the lease: no "ready" yet.)
    let heir = try Peer(["--store", path, "--firebase", standIn.hostPort, "--tokens", "1"])
    try await Task.sleep(nanoseconds: 700_000_000)
    #expect(heir.output.allSatisfy { !$0.hasPrefix("token") }, "it waits for the lease holder")
    kill(victim.process.processIdentifier, SIGKILL)
    let killed = Date()
    let got = await heir.waitFor("token ", timeout: 30)
    let takeover = got.map { $0.timeIntervalSince(killed) }
    #expect(await heir.finish() == 0, "\(heir.output)")
    #expect(takeover != nil && takeover! < 2, "took \(takeover ?? -1) s")
    let stored = try #require(
      try await FileSessionStore(path: path).load(), "never torn, never lost")
    #expect(heir.output.contains("token " + Secrets.fingerprint(stored.idToken)))
    print("multi-process: takeover after SIGKILL in \(Int((takeover ?? 0) * 1000)) ms")
  }

  @Test("sign-out in one process: the others report signed out within a second")
  func signOutEverywhere() async throws {
    let (standIn, dir, path, _) = try await setUp(expiresIn: 3600)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let watchers = try (0..<3).map { _ in
      try Peer(["--store", path, "--firebase", standIn.hostPort, "--watch"])
    }
    for w in watchers { #expect(await w.waitFor("ready anonymous") != nil, "\(w.output)") }
    let quitter = try Peer(["--store", path, "--firebase", standIn.hostPort, "--sign-out"])
    let signedOut = try #require(await quitter.waitFor("signed-out"))
    var slowest = 0.0
    for w in watchers {
      let seen = await w.waitFor("state signedOut", timeout: 5)
      #expect(seen != nil, "\(w.output)")
      slowest = max(slowest, seen.map { $0.timeIntervalSince(signedOut) } ?? 99)
      #expect(await w.finish() == 0)
    }
    #expect(slowest < 1, "the slowest saw it after \(slowest) s")
    #expect(try await FileSessionStore(path: path).load() == nil)
    print("multi-process: sign-out seen by 3 other processes within \(Int(slowest * 1000)) ms")
  }

  @Test("a process that starts while another refreshes waits instead of refreshing again")
  func lateStarter() async throws {
    let (standIn, dir, path, _) = try await setUp(expiresIn: 60)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try await standIn.fault("token", ["delay": 1.5])
    let first = try Peer(["--store", path, "--firebase", standIn.hostPort, "--tokens", "1"])
    _ = try await appears(path + ".lease")
    let late = try Peer(["--store", path, "--firebase", standIn.hostPort, "--tokens", "1"])
    #expect(await first.finish() == 0)
    #expect(await late.finish() == 0)
    #expect(try await refreshes(standIn) == 1)
    #expect(first.output.last == late.output.last, "both got the one new token")
  }

  @Test(
    "a lease a live process holds until 1e300 delays another process's refresh by the lease duration"
  )
  func lyingLease() async throws {
    let (standIn, dir, path, _) = try await setUp(expiresIn: 60)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // This test process is alive; the lease claims the refresh for ever.
    try "\(getpid()) 1e300".write(toFile: path + ".lease", atomically: true, encoding: .utf8)
    let started = Date()
    let peer = try Peer(
      ["--store", path, "--firebase", standIn.hostPort, "--tokens", "1", "--lease-duration", "2"])
    let got = await peer.waitFor("token ", timeout: 30)
    #expect(await peer.finish() == 0, "\(peer.output)")
    let waited = got.map { $0.timeIntervalSince(started) } ?? 99
    #expect(waited < 6, "the refresh waited \(waited) s for a 2 s lease")
    #expect(try await refreshes(standIn) == 1)
  }
}
