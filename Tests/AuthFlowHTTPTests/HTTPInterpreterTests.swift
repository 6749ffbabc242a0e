import AuthFlowCore
import Foundation
import Testing

@testable import AuthFlowHTTP

/// Records each request and answers every one with the same response.
final class RecordingTransport: HTTPTransport, @unchecked Sendable {
  private let lock = NSLock()
  private var seen: [HTTPRequest] = []
  let response: HTTPResponse
  var requests: [HTTPRequest] { lock.withLock { seen } }

  init(_ response: HTTPResponse) { self.response = response }

  func send(_ request: HTTPRequest) async -> Result<HTTPResponse, AuthError> {
    lock.withLock { seen.append(request) }
    return .success(response)
  }
}

@Suite("HTTPInterpreter: a consent step is the provider's, every other request Firebase's")
struct HTTPInterpreterTests {
  static let refreshed = HTTPResponse(
    status: 200, headers: ["Content-Type": "application/json"],
    body: Data(#"{"id_token":"i","refresh_token":"r2","expires_in":"3600","user_id":"u"}"#.utf8))

  @Test("a Firebase request goes to FirebaseAPI's call, tagged with its id")
  func firebaseRequest() async {
    let transport = RecordingTransport(Self.refreshed)
    let interpreter = HTTPInterpreter(
      firebase: FirebaseAPI(apiKey: "k", endpoints: .production, transport: transport),
      consents: [:])
    let answer = await interpreter.perform(.refreshToken(refreshToken: "r1"), id: RequestID(7))
    guard case .refreshToken(let id, .tokenRefreshed(let tokens)) = answer else {
      Issue.record("expected a refresh, got \(answer.outcomeName)")
      return
    }
    #expect(id == RequestID(7))
    #expect(tokens.refreshToken == "r2")
    #expect(transport.requests.count == 1)
    #expect(transport.requests.first?.url.host == "securetoken.googleapis.com")
  }

  @Test("a consent step with no consent for its provider fails, and nothing is sent")
  func consentMissing() async {
    let transport = RecordingTransport(Self.refreshed)
    let firebase = FirebaseAPI(apiKey: "k", endpoints: .production, transport: transport)
    for interpreter in [
      HTTPInterpreter(firebase: firebase, consents: [:]) as any AuthInterpreter, firebase,
    ] {
      let answer = await interpreter.perform(
        .authorize(provider: .apple, intent: .signIn, loginHint: nil), id: RequestID(3))
      #expect(answer.kind == .authorize)
      #expect(answer.error?.code == "PROVIDER_NOT_CONFIGURED")
    }
    #expect(transport.requests.isEmpty)
  }
}
