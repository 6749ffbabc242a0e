import AuthFlowCore
import AuthFlowHTTP
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The servers the HTTP tests talk to, all on loopback.
enum Live {
  static let env = ProcessInfo.processInfo.environment
  /// The repository's `Scenarios/` folder.
  static let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scenarios")
    .path

  /// A configuration file for `flowrun --live` with a key the environment's overrides replace
  /// (so a test also checks that `AUTHFLOW_*` wins over the file); the caller removes it.
  static func configFile() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID()).json")
      .path
    try #"{"API_KEY": "from-file"}"#.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }
  /// True in CI, where the live tests are mandatory.
  static let isCI = env["CI"] == "true"
  /// nanoidp's issuer, set by `.ci/run` (e.g. http://127.0.0.1:9412).
  static let oidcIssuer = env["AUTHFLOW_OIDC_ISSUER"]
  /// The OAuth client registered in nanoidp.
  static let clientID =
    env["AUTHFLOW_OIDC_CLIENT_ID"] ?? "test-ios-client.apps.googleusercontent.com"
  /// Run the OIDC tests when nanoidp is there, and always in CI (where its absence fails).
  static let oidcEnabled = oidcIssuer != nil || isCI
  static let skipReason: Comment =
    "nanoidp is not running; to run these tests: eval \"$(.ci/start-oidc .ci/.work)\" && swift test --filter AuthFlowHTTPTests (CI=true makes them mandatory)"

  static func requireIssuer() throws -> String {
    guard let issuer = oidcIssuer else {
      Issue.record("CI=true but AUTHFLOW_OIDC_ISSUER is not set: .ci/run must start nanoidp")
      throw AuthError(code: "NO_OIDC_SERVER")
    }
    return issuer
  }
}

/// The Firebase stand-in (Support/firebase_standin.py), started on a free loopback port.
final class StandIn: @unchecked Sendable {
  let process = Process()
  let lifeline = Pipe()
  let port: Int
  var hostPort: String { "127.0.0.1:\(port)" }
  var endpoints: FirebaseEndpoints { .emulator(hostPort) }

  init() throws {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Support/firebase_standin.py").path
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script, "--port", "0", "--exit-with-stdin"]
    let pipe = Pipe()
    process.standardOutput = pipe
    // The stand-in exits when this pipe closes, so it never outlives the tests.
    process.standardInput = lifeline
    try process.run()
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
      let chunk = pipe.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      line += chunk
    }
    let text = String(decoding: line, as: UTF8.self)
    guard text.hasPrefix("READY "),
      let p = Int(text.dropFirst(6).trimmingCharacters(in: .whitespacesAndNewlines))
    else {
      process.terminate()
      throw AuthError(code: "STANDIN_FAILED", message: "the stand-in said: \(text)")
    }
    port = p
  }

  deinit {
    // SIGKILL: a child started from a Swift process may inherit a mask that blocks SIGTERM.
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  func api(timeout: Double = 5) -> FirebaseAPI {
    FirebaseAPI(apiKey: "test-key", endpoints: endpoints, timeout: timeout)
  }

  /// Queues one faulty answer for the next request of `op`.
  func fault(_ op: String, _ fields: [String: Any]) async throws {
    var body = fields
    body["op"] = op
    try await admin("faults", body)
  }

  /// The stand-in's state: users, Apple revocations, Google revocations.
  func snapshot() async throws -> [String: Any] {
    try await get("users")
  }

  /// `GET /_standin/<path>`: the stand-in's JSON object.
  func get(_ path: String) async throws -> [String: Any] {
    let url = URL(string: "http://\(hostPort)/_standin/\(path)")!
    guard case .success(let r) = await URLSessionTransport().send(HTTPRequest(url: url)),
      let json = try JSONSerialization.jsonObject(with: r.body) as? [String: Any]
    else { throw AuthError(code: "STANDIN_ADMIN_FAILED", message: path) }
    return json
  }

  /// `GET /_standin/<name>`: the list the stand-in keeps under `name` (codes mailed or texted,
  /// pushes sent).
  func list(_ name: String) async throws -> [[String: Any]] {
    guard let entries = try await get(name)[name] as? [[String: Any]] else {
      throw AuthError(code: "STANDIN_ADMIN_FAILED", message: name)
    }
    return entries
  }

  /// The mail nobody receives: every unspent email-action code.
  func oobCodes() async throws -> [[String: Any]] {
    try await list("oobCodes")
  }

  func users() async throws -> [[String: Any]] {
    try await snapshot()["users"] as? [[String: Any]] ?? []
  }

  func revoked() async throws -> [[String: Any]] {
    try await snapshot()["revoked"] as? [[String: Any]] ?? []
  }

  /// A custom token the app's backend would mint for `uid` (with session-scoped `claims`).
  func customToken(uid: String, claims: [String: Any]? = nil) async throws -> String {
    let url = URL(string: "http://\(hostPort)/_standin/customToken")!
    var body: [String: Any] = ["uid": uid]
    if let claims { body["claims"] = claims }
    let data = try JSONSerialization.data(withJSONObject: body)
    guard
      case .success(let r) = await URLSessionTransport().send(
        HTTPRequest(method: "POST", url: url, body: data)),
      let json = try JSONSerialization.jsonObject(with: r.body) as? [String: Any],
      let token = json["token"] as? String
    else { throw AuthError(code: "STANDIN_ADMIN_FAILED", message: "customToken") }
    return token
  }

  func admin(_ path: String, _ body: [String: Any]) async throws {
    let url = URL(string: "http://\(hostPort)/_standin/\(path)")!
    let data = try JSONSerialization.data(withJSONObject: body)
    let response = await URLSessionTransport().send(
      HTTPRequest(method: "POST", url: url, body: data))
    guard case .success(let r) = response, r.status == 200 else {
      throw AuthError(code: "STANDIN_ADMIN_FAILED", message: path)
    }
  }
}

/// A "browser" that approves the consent as a nanoidp persona: it follows the authorization
/// URL without rendering anything, and delivers the redirect to the loopback receiver.
func personaBrowser(_ user: String, tamper: (@Sendable (String) -> String)? = nil)
  -> @Sendable (URL) async -> Void
{
  { url in
    var c = URLComponents(url: url, resolvingAgainstBaseURL: false)!
    var items = (c.queryItems ?? []).filter { $0.name != "login_hint" }
    items.append(URLQueryItem(name: "login_hint", value: "persona-auto-login:\(user)"))
    items.append(
      URLQueryItem(name: "claims", value: #"{"id_token":{"email":null,"email_verified":null}}"#))
    c.queryItems = items
    let transport = URLSessionTransport()
    guard case .success(let r) = await transport.send(HTTPRequest(url: c.url!)),
      var location = r.header("Location")
    else { return }
    if let tamper { location = tamper(location) }
    _ = await transport.send(HTTPRequest(url: URL(string: location)!))
  }
}

/// A Google client for nanoidp, discovered from its issuer.
func nanoidpClient(issuer: String) async throws -> GoogleClient {
  let provider = try await OIDCProvider.discover(issuer: issuer).get()
  return GoogleClient(clientID: Live.clientID, provider: provider)
}

/// The answers that can carry a session (a sign-up, a password or IdP sign-in).
protocol SignsIn: Sendable { var session: Session? { get } }

extension SessionAnswer: SignsIn {
  var session: Session? {
    if case .signedIn(let s) = self { return s }
    return nil
  }
}

extension FirstFactorAnswer: SignsIn {
  var session: Session? {
    if case .signedIn(let s) = self { return s }
    return nil
  }
}

extension SignInAnswer: SignsIn {
  var session: Session? {
    if case .signedIn(let s) = self { return s }
    return nil
  }
}

extension IdPAnswer: SignsIn {
  var session: Session? {
    if case .signedIn(let s) = self { return s }
    return nil
  }
}
