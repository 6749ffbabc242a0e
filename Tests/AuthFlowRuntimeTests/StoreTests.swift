import AuthFlowCore
import AuthFlowRuntime
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

func temporaryDirectory() throws -> String {
  let dir = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-\(UUID())").path
  try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
  return dir
}

@Suite("Session stores")
struct StoreTests {
  let session = Sessions.permanent(expiresIn: 3600)

  @Test("the file store round-trips a versioned session, with permissions 0600")
  func fileRoundTrip() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let store = FileSessionStore(path: dir + "/session.json")
    #expect(try await store.load() == nil)
    try await store.save(session)
    #expect(try await store.load() == session)
    let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/session.json")
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    let text = try String(contentsOfFile: dir + "/session.json", encoding: .utf8)
    #expect(text.hasPrefix(#"{"generation":1,"session":"#) && text.contains(#""version":1"#))
    try await store.clear()
    #expect(try await store.load() == nil)
    try await store.clear()  // clearing twice is fine
    // A cleared store keeps a record with no session (its write number goes on), and the lock.
    let cleared = try String(contentsOfFile: dir + "/session.json", encoding: .utf8)
    #expect(cleared == #"{"generation":3,"version":1}"#)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == [
        "session.json", "session.json.lock",
      ])
  }

  @Test(
    "a corrupt or foreign file is reported as corrupt, never a crash",
    arguments: ["", "{", "null", #"{"version":2,"session":{}}"#, "\u{0}\u{1}binary"])
  func corrupt(content: String) async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try content.write(toFile: dir + "/session.json", atomically: true, encoding: .utf8)
    await #expect {
      _ = try await FileSessionStore(path: dir + "/session.json").load()
    } throws: { error in
      if case .corrupt? = error as? SessionStoreError { true } else { false }
    }
  }

  @Test("a runtime on a corrupt file starts signed out, clears it and says so")
  func runtimeOnCorruptFile() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/session.json"
    try "{ not json".write(toFile: path, atomically: true, encoding: .utf8)
    let runtime = AuthRuntime(
      interpreter: TestInterpreter(), store: FileSessionStore(path: path), clock: ManualClock())
    var notes = await runtime.notifications().makeAsyncIterator()
    await runtime.start()
    await runtime.settled()
    #expect(await runtime.state == .signedOut)
    let note = await notes.next()
    if case .error(let error)? = note {
      #expect(error.code == "CORRUPT_SESSION")
    } else {
      Issue.record("expected an error notification, got \(String(describing: note))")
    }
    #expect(try await FileSessionStore(path: path).load() == nil, "the corrupt file was replaced")
  }

  @Test("a write that fails becomes a persistFailed notification; the user stays signed in")
  func writeFailure() async throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let interpreter = await heldRefreshInterpreter()
    await interpreter.release(.refreshToken)
    let runtime = AuthRuntime(
      interpreter: interpreter, store: FileSessionStore(path: dir + "/missing-dir/session.json"),
      clock: ManualClock())
    var notes = await runtime.notifications().makeAsyncIterator()
    await runtime.start()
    await runtime.settled()
    await interpreter.answerAlways(
      .signUpAnonymously,
      .signedIn(
        session: Session(
          uid: "anon-1", anonymous: true, idToken: "i", refreshToken: "r",
          expiresAt: Sessions.t0 + 3600)))
    await runtime.send(.signInAnonymouslyTapped)
    let note = await notes.next()
    if case .error(let error)? = note {
      #expect(error.code == "PERSIST_FAILED")
    } else {
      Issue.record("expected a write error, got \(String(describing: note))")
    }
    #expect(await runtime.state.name == "anonymous")
  }

  @Test("crash safety: a writer killed hundreds of times leaves the old or the new session")
  func crashSafety() async throws {
    let fixture = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("authflow-crash-fixture").path
    try #require(
      FileManager.default.isExecutableFile(atPath: fixture),
      "the fixture is built with the tests: \(fixture)")
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/session.json"
    let store = FileSessionStore(path: path)
    var seen: Set<String> = []
    let kills = 200
    for i in 0..<kills {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: fixture)
      process.arguments = [path]
      let pipe = Pipe()
      process.standardOutput = pipe
      try process.run()
      // Wait until it has written once, then let it run a moment before killing it.
      _ = pipe.fileHandleForReading.availableData
      usleep(UInt32(200 + (i * 7919) % 3000))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      let loaded = try await store.load()
      let uid = try #require(loaded?.uid, "after kill \(i) the file holds no session")
      #expect(uid == "user-a" || uid == "user-b")
      seen.insert(uid)
    }
    // Killed at different moments, it was caught with both sessions written.
    #expect(seen.count == 2)
    // Temporary files of killed writers may be left; the session file itself never suffers.
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter {
      $0 != "session.json"
    }
    #expect(
      leftovers.allSatisfy { $0.hasPrefix("session.json.tmp-") || $0 == "session.json.lock" })
  }

  @Test("the in-memory store counts writes")
  func memory() async {
    let store = InMemorySessionStore()
    await store.save(session)
    await store.clear()
    #expect(await store.writes == 2)
    #expect(await store.load() == nil)
  }
}

@Suite("AuthModel")
struct ModelTests {
  @Test("the observable model follows the runtime and reports errors")
  @MainActor
  func follows() async {
    let interpreter = await heldRefreshInterpreter()
    await interpreter.answerAlways(
      .signUpAnonymously, .requestFailed(error: AuthError(code: "NETWORK")))
    let runtime = AuthRuntime(
      interpreter: interpreter, store: InMemorySessionStore(), clock: ManualClock())
    let model = AuthModel(runtime: runtime)
    model.start()
    #expect(await eventually { @MainActor in model.state == .signedOut })
    #expect(!model.isBusy)
    model.signInAnonymously()
    #expect(await eventually { @MainActor in model.lastError?.code == "NETWORK" })
    model.dismissError()
    #expect(model.lastError == nil)
    model.stop()
  }
}
