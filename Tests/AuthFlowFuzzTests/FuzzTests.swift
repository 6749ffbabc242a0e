import AuthFlowCore
import AuthFlowHTTP
import AuthFlowRuntime
import AuthFlowScenarios
import AuthFlowVerification
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One fuzzer per input boundary. The default budgets keep all four under 30 s of `swift test`
/// in a debug build; `AUTHFLOW_FUZZ_CASES=100000` is the long run (Docs/Reliability.md).
@Suite("Fuzzing every input boundary", .serialized)
struct FuzzTests {
  // MARK: Scenario files

  @Test("scenario files: parse, decode and run mutated files from Scenarios/ and the broken corpus")
  func scenarios() async throws {
    let corpus = ScenarioFiles.expand([FuzzPaths.scenarios, FuzzPaths.broken]).files.compactMap {
      FileManager.default.contents(atPath: $0).map { Array($0) }
    }
    try #require(corpus.count > 30)
    let fuzzer = Fuzzer("scenarios", filter: "FuzzTests/scenarios", defaultCases: 1500)
    let n = await fuzzer.run(
      input: { g, _ -> [UInt8] in
        let base = g.pick(corpus)
        if g.chance(0.7), let json = try? JSONValue.parse(String(decoding: base, as: UTF8.self)) {
          return Array(Mutate.json(json, &g).prettyText.utf8)
        }
        return Mutate.bytes(base, &g)
      },
      describe: { $0 },
      check: { bytes in
        let scenario: Scenario
        do {
          scenario = try Scenario.parse(String(decoding: bytes, as: UTF8.self), file: "fuzz.json")
        } catch {
          return "\(error)".isEmpty ? "an error without a message" : nil
        }
        let report = ScenarioRunner.run(scenario, redactor: Redactor(showSecrets: false))
        var writer = ReportWriter()
        writer.trace = true
        _ = writer.text([.ran(report)]) + writer.json([.ran(report)]) + writer.junit([.ran(report)])
        if let problems = report.failure?.problems,
          let broken = problems.first(where: { $0.hasPrefix("invariant") })
        {
          return broken
        }
        return nil
      })
    #expect(n == (fuzzer.only == nil ? fuzzer.cases : 1))
  }

  // MARK: Server responses

  @Test("server responses: every Firebase, Secure Token and OAuth parser on mutated answers")
  func responses() async throws {
    let fuzzer = Fuzzer("responses", filter: "FuzzTests/responses", defaultCases: 1500)
    let n = await fuzzer.run(
      input: { g, _ in ResponseCase.make(&g) },
      describe: { Array($0.description.utf8) },
      check: { c in await c.check() })
    #expect(n == (fuzzer.only == nil ? fuzzer.cases : 1))
  }

  // MARK: The stored session

  @Test("the session store: random bytes and mutated valid files")
  func sessionStore() async throws {
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("authflow-fuzz-store-\(UUID())").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let store = FileSessionStore(path: dir + "/session.json")
    let now = Instant(Date().timeIntervalSince1970)
    var valid: [[UInt8]] = []
    for (i, s) in StoreCorpus.sessions(now: now).enumerated() {
      try await store.save(s)
      let bytes = try #require(FileManager.default.contents(atPath: dir + "/session.json"))
      valid.append(Array(bytes))
      #expect(try await store.load() == s, "corpus session \(i) round-trips")
    }
    let fuzzer = Fuzzer("store", filter: "FuzzTests/sessionStore", defaultCases: 800)
    let n = await fuzzer.run(
      input: { g, _ -> [UInt8] in
        if g.chance(0.1) {
          return (0..<g.below(300)).map { _ in UInt8(truncatingIfNeeded: g.next()) }
        }
        let base = g.pick(valid)
        if g.chance(0.6), let json = try? JSONValue.parse(String(decoding: base, as: UTF8.self)) {
          return Array(Mutate.json(json, &g).compactText.utf8)
        }
        return Mutate.bytes(base, &g)
      },
      describe: { $0 },
      check: { bytes in
        _ = FileManager.default.createFile(atPath: dir + "/session.json", contents: Data(bytes))
        let loaded: Session?
        do {
          loaded = try await store.load()
        } catch let error as SessionStoreError {
          if case .corrupt = error { return nil }
          return "a stored file gave \(error), not corrupt"
        }
        guard let session = loaded else {
          // A record without a session is a cleared store; anything else must not read as one.
          let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
          if let object, object["session"] == nil || object["session"] is NSNull { return nil }
          return "an existing file loaded as no session"
        }
        guard session.hasValidTimes(at: now) else {
          return "loaded absurd times \(session.expiresAt)"
        }
        return MachineCheck.restore(session, now: now)
      })
    #expect(n == (fuzzer.only == nil ? fuzzer.cases : 1))
  }

  // MARK: The loopback receiver

  @Test("the loopback receiver: random requests over a real socket, then the real redirect")
  func loopback() async throws {
    let fuzzer = Fuzzer("loopback", filter: "FuzzTests/loopback", defaultCases: 25)
    let n = await fuzzer.run(
      input: { g, _ in LoopbackCase.make(&g) },
      describe: { Array($0.description.utf8) },
      check: { c in await c.check() })
    #expect(n == (fuzzer.only == nil ? fuzzer.cases : 1))
  }

  @Test("the loopback receiver still takes the redirect with 31 silent clients connected")
  func manySilentClients() async throws {
    let receiver = try LoopbackReceiver()
    async let redirect = receiver.waitForRedirect(timeout: 10)
    var silent: [Int32] = []
    for _ in 0..<31 { silent.append(LoopbackCase.dial(port: receiver.port)) }
    defer { for fd in silent { close(fd) } }
    let real = LoopbackCase.dial(port: receiver.port)
    LoopbackCase.transmit(
      real, Array("GET /callback?code=c1&state=s1 HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
    let result = await redirect
    close(real)
    #expect(try result.get() == ["code": "c1", "state": "s1"])
  }
}

/// Runs a machine through what an input led to and checks the invariants on every step.
enum MachineCheck {
  static func restore(_ session: Session, now: Instant) -> String? {
    var m = AuthMachine()
    return feed(
      &m, [.intent(.appLaunched), .answer(.loadSession(1, .sessionLoaded(session: session)))],
      now: now)
  }

  /// Feeds events; returns the first broken invariant.
  static func feed(_ m: inout AuthMachine, _ events: [Event], now: Instant) -> String? {
    for event in events {
      let before = m
      var fx: [Effect] = []
      m.handle(event, now: now, into: &fx)
      if let v = Invariants.check(before: before, event: event, after: m, effects: fx, now: now)
        .first
      {
        return "\(v)"
      }
    }
    return nil
  }
}

/// Sessions to store: realistic, expiring, anonymous, with a pending cleanup.
enum StoreCorpus {
  static func sessions(now: Instant) -> [Session] {
    [
      Session(
        uid: "user-1", anonymous: false, providers: ["google.com"], email: "mike@example.com",
        idToken: "eyJ" + String(repeating: "a", count: 900), refreshToken: "rt-1",
        expiresAt: now + 3600),
      Session(
        uid: "anon-1", anonymous: true, idToken: "id-a", refreshToken: "rt-a", expiresAt: now + 10),
      Session(
        uid: "user-2", anonymous: false, providers: ["apple.com", "password"],
        email: "x@privaterelay.appleid.com",
        idToken: "id-2", refreshToken: "rt-2", expiresAt: now - 100,
        pendingCleanup: AnonymousCleanup(uid: "anon-9", idToken: "id-9", dataMoved: true)),
    ]
  }
}
