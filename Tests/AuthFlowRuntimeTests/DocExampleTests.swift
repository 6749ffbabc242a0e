import AuthFlowCore
import AuthFlowRuntime
import Foundation
import Testing

@Suite("The examples in README.md and Docs/Embedding.md")
struct DocExampleTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The text between `<!-- name: begin -->` and `<!-- name: end -->` in a Markdown file.
  static func block(_ name: String, in file: String) throws -> String {
    let doc = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
    guard let begin = doc.range(of: "<!-- \(name): begin -->\n```swift\n"),
      let end = doc.range(of: "```\n<!-- \(name): end -->")
    else { return "(no \(name) block in \(file))" }
    return String(doc[begin.upperBound..<end.lowerBound])
  }

  static func source(_ file: String) throws -> String {
    try String(
      contentsOf: root.appendingPathComponent("Tests/AuthFlowRuntimeTests/" + file), encoding: .utf8
    )
  }

  @Test("README.md shows the compiled hand-driven example exactly")
  func readme() throws {
    #expect(try Self.block("readme-example", in: "README.md") == Self.source("ReadmeExample.swift"))
  }

  @Test("Docs/Embedding.md shows the compiled runtime test exactly")
  func tryTheRuntime() throws {
    let file = try Self.source("TryTheRuntimeExample.swift")
    #expect(try Self.block("runtime-test-example", in: "Docs/Embedding.md") == file)
  }

  @Test("Docs/EmailAndAccount.md shows the compiled email-link example exactly")
  func emailLinkRelaunch() throws {
    let file = try Self.source("EmailLinkRelaunchExample.swift")
    #expect(try Self.block("email-link-relaunch", in: "Docs/EmailAndAccount.md") == file)
  }

  @Test("Docs/SecondFactors.md shows the compiled iOS push example exactly")
  func iosPush() throws {
    let file = try Self.source("IOSPushVerificationExample.swift")
    #expect(try Self.block("ios-push-verification", in: "Docs/SecondFactors.md") == file)
  }

  @Test("the iOS push example texts the code with the push's proof, and leaves other pushes alone")
  @MainActor
  func iosPushWorks() async {
    let interpreter = TestInterpreter()
    await interpreter.answer(.sendVerificationCode) { _ in .verificationCodeSent(sessionInfo: "s") }
    let model = AuthModel(
      runtime: AuthRuntime(interpreter: interpreter, store: InMemorySessionStore()))
    model.start()
    #expect(await eventually { @MainActor in model.state == .signedOut })
    let verification = PhoneVerification(model: model)
    verification.receipt = "receipt-1"
    verification.phoneNumber = "+15555550100"
    #expect(!verification.handle(push: ["aps": ["alert": "hello"]]))
    #expect(
      !verification.handle(
        push: ["com.google.firebase.auth": ["receipt": "receipt-0", "secret": "old"]]))
    #expect(
      verification.handle(
        push: ["com.google.firebase.auth": #"{"receipt":"receipt-1","secret":"secret-1"}"#]))
    #expect(await eventually { @MainActor in model.state.name == "awaitingPhoneCode" })
    let sent = await interpreter.requests.filter { $0.kind == .sendVerificationCode }
    #expect(
      sent == [
        .sendVerificationCode(
          phoneNumber: "+15555550100",
          appVerification: .iosApp(receipt: "receipt-1", secret: "secret-1"))
      ])
    model.stop()
  }

  @Test("Docs/Embedding.md shows the compiled command-line and server examples exactly")
  func examples() throws {
    func example(_ path: String) throws -> String {
      try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
    }
    #expect(
      try Self.block("cli-example", in: "Docs/Embedding.md")
        == example("Examples/CommandLineTool/main.swift"))
    #expect(
      try Self.block("server-example", in: "Docs/Embedding.md")
        == example("Examples/ServerSessions/Sessions.swift"))
    #expect(
      try Self.block("shared-example", in: "Docs/Embedding.md")
        == example("Examples/SharedSession/SharedSession.swift"))
  }

  @Test("the hand-driven example signs in anonymously and hands out the token")
  @MainActor
  func driverWorks() async throws {
    let interpreter = TestInterpreter()
    let now = Date().timeIntervalSince1970
    await interpreter.answer(
      .signUpAnonymously,
      with: .signedIn(
        session: Session(
          uid: "anon-1", anonymous: true, idToken: "id-1", refreshToken: "rt-1",
          expiresAt: Instant(now + 3600))))
    let driver = SignInDriver(interpreter: interpreter)
    driver.launch()
    await driver.settled()
    #expect(driver.state == .signedOut)
    driver.send(.intent(.signInAnonymouslyTapped))
    await driver.settled()
    #expect(driver.state.name == "anonymous")
    var token: TokenResult?
    driver.idToken { token = $0 }
    #expect(token == .token(idToken: "id-1"))
  }

  @Test("Docs/Embedding.md: several queued answers are given in order, one per request")
  func queuedInOrder() async {
    let interpreter = TestInterpreter()
    await interpreter.answer(
      .refreshToken,
      with: .requestFailed(error: AuthError(code: "NETWORK")),  // the first refresh fails
      .tokenRefreshed(
        Tokens(idToken: "id-2", refreshToken: "rt-2", expiresAt: Instant(1_767_265_200))))
    let first = await interpreter.refreshToken("rt-1")
    let second = await interpreter.refreshToken("rt-1")
    #expect(first == .requestFailed(error: AuthError(code: "NETWORK")))
    #expect(
      second
        == .tokenRefreshed(
          Tokens(idToken: "id-2", refreshToken: "rt-2", expiresAt: Instant(1_767_265_200))))
  }
}
