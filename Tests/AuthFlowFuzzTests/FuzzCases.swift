import AuthFlowCore
import AuthFlowHTTP
import AuthFlowScenarios
import AuthFlowVerification
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Answers requests from a list, in order (the last one again when it runs out).
final class CannedTransport: HTTPTransport, @unchecked Sendable {
  private let lock = NSLock()
  private var responses: [HTTPResponse]
  private var next = 0

  init(_ responses: [HTTPResponse]) { self.responses = responses }

  func send(_ request: HTTPRequest) async -> Result<HTTPResponse, AuthError> {
    lock.withLock {
      defer { next += 1 }
      return .success(responses[min(next, responses.count - 1)])
    }
  }
}

/// One operation of the HTTP interpreter against a list of (possibly hostile) answers.
struct ResponseCase: CustomStringConvertible {
  enum Operation: CaseIterable {
    case signUp, signInWithIdp, signInWithPassword, refresh, delete, passwordReset, discover
    case exchange, device
  }

  var operation: Operation
  var responses: [HTTPResponse]
  static let now = Instant(1_767_258_000)

  var description: String {
    "\(operation)\n"
      + responses.map {
        "HTTP \($0.status)\n" + String(decoding: $0.body.prefix(100_000), as: UTF8.self)
      }
      .joined(separator: "\n---\n")
  }

  static func jwt(_ claims: JSONValue) -> String {
    Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "."
      + Base64URL.encode(Array(claims.compactText.utf8)) + ".sig"
  }

  static func firebaseClaims(provider: String) -> JSONValue {
    .object([
      ("iss", .string("https://securetoken.google.com/p")), ("aud", .string("p")),
      ("user_id", .string("u1")), ("email", .string("a@example.com")),
      ("exp", .number(now.seconds + 3600)), ("iat", .number(now.seconds)),
      (
        "firebase",
        .object([
          ("sign_in_provider", .string(provider)),
          ("identities", .object([(provider, .array([.string("1")]))])),
        ])
      ),
    ])
  }

  static let googleClaims = JSONValue.object([
    ("iss", .string("https://accounts.google.com")), ("aud", .string("cid")),
    ("sub", .string("g-1")), ("email", .string("a@example.com")), ("nonce", .string("n-1")),
    ("exp", .number(now.seconds + 3600)), ("iat", .number(now.seconds)),
  ])

  /// The answers an operation expects, as a server would give them.
  static func bodies(_ op: Operation, _ g: inout Xoshiro256) -> [JSONValue] {
    var idClaims = firebaseClaims(provider: g.chance(0.5) ? "anonymous" : "google.com")
    if g.chance(0.3) { idClaims = Mutate.json(idClaims, &g) }
    let idToken = JSONValue.string(jwt(idClaims))
    let session = JSONValue.object([
      ("localId", .string("u1")), ("idToken", idToken), ("refreshToken", .string("rt-1")),
      ("expiresIn", .string("3600")), ("email", .string("a@example.com")),
      ("providerId", .string("google.com")),
    ])
    switch op {
    case .signUp, .signInWithPassword: return [session]
    case .signInWithIdp:
      let conflict = JSONValue.object([
        ("errorMessage", .string("FEDERATED_USER_ID_ALREADY_LINKED")),
        ("oauthIdToken", .string("g-2")), ("pendingToken", .string("p-1")),
        ("email", .string("a@example.com")), ("providerId", .string("apple.com")),
      ])
      return [g.chance(0.5) ? session : conflict]
    case .refresh:
      return [
        .object([
          ("access_token", idToken), ("id_token", idToken), ("expires_in", .string("3600")),
          ("token_type", .string("Bearer")), ("refresh_token", .string("rt-2")),
          ("user_id", .string("u1")),
        ])
      ]
    case .delete, .passwordReset: return [.object([("kind", .string("identitytoolkit#x"))])]
    case .discover:
      return [
        .object([
          ("issuer", .string("https://accounts.google.com")),
          ("authorization_endpoint", .string("https://accounts.google.com/o/oauth2/v2/auth")),
          ("token_endpoint", .string("https://oauth2.googleapis.com/token")),
          ("device_authorization_endpoint", .string("https://oauth2.googleapis.com/device/code")),
        ])
      ]
    case .exchange:
      var claims = googleClaims
      if g.chance(0.4) { claims = Mutate.json(claims, &g) }
      return [
        .object([
          ("access_token", .string("at")), ("id_token", .string(jwt(claims))),
          ("expires_in", .number(3599)),
        ])
      ]
    case .device:
      return [
        .object([
          ("device_code", .string("dc")), ("user_code", .string("UC-1")),
          ("verification_url", .string("https://www.google.com/device")),
          ("interval", .number(5)), ("expires_in", .number(1800)),
        ]),
        .object([("error", .string("authorization_pending"))]),
        .object([("access_token", .string("at")), ("id_token", .string(jwt(googleClaims)))]),
      ]
    }
  }

  static let errorBody = JSONValue.object([
    (
      "error",
      .object([
        ("code", .number(400)), ("message", .string("TOKEN_EXPIRED : the token has expired")),
      ])
    )
  ])

  static func make(_ g: inout Xoshiro256) -> ResponseCase {
    let op = g.pick(Operation.allCases)
    let responses = bodies(op, &g).map { body -> HTTPResponse in
      var status = 200
      var json = body
      if g.chance(0.15) {
        status = g.pick([400, 401, 403, 404, 429, 500, 503])
        json = errorBody
      }
      if g.chance(0.1) { status = g.pick([0, 100, 204, 301, 302, 418, 599, 999, -1]) }
      var bytes: [UInt8]
      switch g.below(20) {
      case 0:
        // A huge body, or one nested deeper than any parser's stack.
        bytes =
          g.chance(0.5)
          ? Array(repeating: UInt8(ascii: "a"), count: 2_000_000)
          : Array(repeating: UInt8(ascii: "["), count: 200_000)
      case 1...4:
        bytes = Mutate.bytes(Array(json.compactText.utf8), &g)
      case 5...12:
        bytes = Array(Mutate.json(json, &g).compactText.utf8)
      default:
        bytes = Array(json.compactText.utf8)
      }
      return HTTPResponse(
        status: status, headers: ["Content-Type": "application/json"], body: Data(bytes))
    }
    return ResponseCase(operation: op, responses: responses)
  }

  /// Runs the operation; any result is fine as long as nothing traps and the machine, given
  /// the result, keeps every invariant.
  func check() async -> String? {
    let transport = CannedTransport(responses)
    let clock: @Sendable () -> Instant = { ResponseCase.now }
    let api = FirebaseAPI(
      apiKey: "k", endpoints: .emulator("127.0.0.1:9"), timeout: 5, transport: transport,
      clock: clock)
    let client = GoogleClient(clientID: "cid", transport: transport, clock: clock)
    switch operation {
    case .signUp: return Self.signIn(.signUpAnonymously(2, await api.signUpAnonymously()))
    case .signInWithPassword:
      return Self.signIn(
        .signInWithPassword(
          3, await api.signInWithPassword(email: "a@example.com", password: "pw")),
        after: .signInWithEmail(email: "a@example.com", password: "pw"))
    case .signInWithIdp:
      let credential = IdPCredential(
        provider: .apple, idToken: "a-1", rawNonce: "n-1", givenName: "Ana", familyName: "Lima")
      let answer = await api.signInWithIdp(credential: credential, linkTo: "id-x")
      var m = AuthMachine()
      return MachineCheck.feed(
        &m,
        [
          .intent(.appLaunched), .answer(.loadSession(1, .sessionLoaded(session: nil))),
          .intent(.signInWithProviderTapped(provider: .apple)),
          .answer(.authorize(2, .providerSucceeded(credential: credential))),
          .answer(.signInWithIdp(3, answer)),
        ], now: Self.now)
    case .refresh:
      var m = AuthMachine()
      let session = Session(
        uid: "u1", anonymous: false, idToken: "id-0", refreshToken: "rt-0",
        expiresAt: Self.now + 3600)
      let result = await api.refreshToken("rt-0")
      return MachineCheck.feed(
        &m,
        [
          .intent(.appLaunched), .answer(.loadSession(1, .sessionLoaded(session: session))),
          .intent(.idTokenRequested(requestId: 1, forceRefresh: true)),
          .answer(.refreshToken(2, result)),
        ], now: Self.now)
    case .delete: _ = await api.deleteAccount(idToken: "id-0")
    case .passwordReset: _ = await api.sendPasswordReset(email: "a@example.com")
    case .discover:
      _ = await OIDCProvider.discover(issuer: "https://accounts.google.com", transport: transport)
    case .exchange:
      if case .success(let c) = await client.exchange(
        code: "c", redirectURI: "http://127.0.0.1:1/cb", pkce: PKCE(), rawNonce: "n-1")
      {
        return Self.consent(.providerSucceeded(credential: c))
      }
    case .device:
      let consent = DeviceConsent(client: client, present: { _, _ in }, sleep: { _ in })
      return Self.consent(
        await consent.authorize(provider: .google, intent: .signIn, loginHint: nil))
    }
    return nil
  }

  /// A machine given `answer` for the sign-in `intent` starts (an anonymous one by default)
  /// keeps its invariants.
  static func signIn(_ answer: Answer, after intent: Intent = .signInAnonymouslyTapped) -> String? {
    var m = AuthMachine()
    return MachineCheck.feed(
      &m,
      [
        .intent(.appLaunched), .answer(.loadSession(1, .sessionLoaded(session: nil))),
        .intent(intent), .answer(answer.with(id: 2)),
      ], now: now)
  }

  /// A machine answered with `answer` for Google's consent step keeps its invariants.
  static func consent(_ answer: AuthorizeAnswer) -> String? {
    var m = AuthMachine()
    return MachineCheck.feed(
      &m,
      [
        .intent(.appLaunched), .answer(.loadSession(1, .sessionLoaded(session: nil))),
        .intent(.signInWithGoogleTapped), .answer(.authorize(2, answer)),
      ], now: now)
  }
}

/// Junk connections to the loopback receiver, then the real redirect.
struct LoopbackCase: CustomStringConvertible {
  enum Junk {
    case bytes([UInt8])
    case silent
    case partial([UInt8])
    case closeAtOnce
  }

  var junk: [Junk]
  var code: String

  var description: String {
    junk.map { j -> String in
      switch j {
      case .bytes(let b): "bytes: " + String(decoding: b, as: UTF8.self)
      case .silent: "silent"
      case .partial(let b): "partial: " + String(decoding: b, as: UTF8.self)
      case .closeAtOnce: "close at once"
      }
    }.joined(separator: "\n") + "\nthen GET /callback?code=\(code)"
  }

  static let templates = [
    "GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    "POST /callback?code=x HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc",
    "HEAD / HTTP/1.0\r\n\r\n", "GET /other?x=1 HTTP/1.1\r\n\r\n", "GET\r\n\r\n",
    "GET /callback\r\n\r\n", "\r\n\r\n", "GET http://evil/ HTTP/1.1\r\n\r\n",
    "GET /c HTTP/1.1\r\n"
      + String(repeating: "X-Long: " + String(repeating: "a", count: 1000) + "\r\n", count: 20)
      + "\r\n",
  ]

  static func make(_ g: inout Xoshiro256) -> LoopbackCase {
    let junk = (0..<(1 + g.below(6))).map { _ -> Junk in
      let template = Array(g.pick(templates).utf8)
      switch g.below(5) {
      case 0: return .silent
      case 1: return .closeAtOnce
      case 2: return .partial(Array(template.prefix(g.below(max(1, template.count)))))
      default: return .bytes(g.chance(0.5) ? template : Mutate.bytes(template, &g))
      }
    }
    return LoopbackCase(junk: junk, code: "c\(g.below(1_000_000))")
  }

  static func dial(port: UInt16) -> Int32 {
    #if canImport(Glibc)
      let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let s = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    return s
  }

  static func transmit(_ fd: Int32, _ bytes: [UInt8]) {
    #if canImport(Glibc)
      let flags = Int32(MSG_NOSIGNAL)
    #else
      let flags: Int32 = 0
    #endif
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, flags) }
  }

  func check() async -> String? {
    let receiver: LoopbackReceiver
    do {
      receiver = try LoopbackReceiver()
    } catch {
      return "cannot listen: \(error)"
    }
    async let redirect = receiver.waitForRedirect(timeout: 15)
    var open: [Int32] = []
    for j in junk {
      let fd = Self.dial(port: receiver.port)
      switch j {
      case .bytes(let b): Self.transmit(fd, b)
      case .partial(let b): Self.transmit(fd, b)
      case .silent: break
      case .closeAtOnce: break
      }
      if case .closeAtOnce = j { close(fd) } else { open.append(fd) }
    }
    let real = Self.dial(port: receiver.port)
    Self.transmit(
      real, Array("GET /callback?code=\(code)&state=s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
    let result = await redirect
    close(real)
    for fd in open { close(fd) }
    switch result {
    case .success(let params) where params["code"] == code: return nil
    case .success(let params): return "the redirect was taken from another request: \(params)"
    case .failure(let e): return "the real redirect was not accepted: \(e)"
    }
  }
}
