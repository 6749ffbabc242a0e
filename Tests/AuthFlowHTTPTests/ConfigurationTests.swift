import AuthFlowCore
import AuthFlowHTTP
import Foundation
import Testing

@Suite("Configuration")
struct ConfigurationTests {
  func write(_ text: String, ext: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("cfg-\(UUID()).\(ext)")
      .path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test("GoogleService-Info.plist is read; the environment overrides it")
  func plist() throws {
    let path = try write(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0"><dict>
        <key>API_KEY</key><string>AIza-test</string>
        <key>CLIENT_ID</key><string>123-abc.apps.googleusercontent.com</string>
        <key>REVERSED_CLIENT_ID</key><string>com.googleusercontent.apps.123-abc</string>
        <key>PROJECT_ID</key><string>demo-app</string>
      </dict></plist>
      """, ext: "plist")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let c = try AuthConfiguration.load(path: path, environment: [:])
    #expect(c.apiKey == "AIza-test" && c.projectID == "demo-app")
    #expect(c.reversedClientID == "com.googleusercontent.apps.123-abc")
    let o = try AuthConfiguration.load(path: path, environment: ["AUTHFLOW_API_KEY": "other"])
    #expect(o.apiKey == "other")
  }

  @Test("PROVIDERS lists Apple and oidc.* providers, each with its client id and issuer")
  func providers() throws {
    let path = try write(
      #"{"API_KEY": "k", "CLIENT_ID": "g", "PROVIDERS": "apple.com, oidc.acme", "#
        + #""APPLE_COM_CLIENT_ID": "com.example.app", "APPLE_COM_ISSUER": "https://appleid.apple.com", "#
        + #""OIDC_ACME_CLIENT_ID": "acme-app", "OIDC_ACME_ISSUER": "https://id.acme.example"}"#,
      ext: "json")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let c = try AuthConfiguration.load(path: path, environment: [:])
    #expect(
      c.providers == [
        ProviderSettings(
          id: .apple, clientID: "com.example.app", issuer: "https://appleid.apple.com"),
        ProviderSettings(
          id: ProviderID("oidc.acme"), clientID: "acme-app", issuer: "https://id.acme.example"),
      ])
    // The environment adds and overrides.
    let e = try AuthConfiguration.load(
      path: path,
      environment: [
        "AUTHFLOW_PROVIDERS": "oidc.acme", "AUTHFLOW_OIDC_ACME_ISSUER": "http://127.0.0.1:9",
      ])
    #expect(e.providers.map(\.issuer) == ["http://127.0.0.1:9"])
    func problem(_ env: [String: String]) -> String {
      do {
        _ = try AuthConfiguration.load(path: path, environment: env)
        return "no error"
      } catch { return error.message ?? error.code }
    }
    // Any provider is listed by its traits; one without an OpenID issuer needs none.
    #expect(problem(["AUTHFLOW_PROVIDERS": "github.com"]) == "no error")
    #expect(
      problem([
        "AUTHFLOW_PROVIDERS": "microsoft.com", "AUTHFLOW_MICROSOFT_COM_CREDENTIAL": "oauth2",
      ])
      .contains("MICROSOFT_COM_CREDENTIAL is oauth2; one of idToken, accessToken, oauth1"))
    #expect(problem(["AUTHFLOW_PROVIDERS": "nodot"]).contains("with a dot"))
    let ms = try AuthConfiguration.load(
      path: path,
      environment: [
        "AUTHFLOW_PROVIDERS": "microsoft.com, twitter.com",
        "AUTHFLOW_MICROSOFT_COM_CREDENTIAL": "authorizationCode",
        "AUTHFLOW_TWITTER_COM_CREDENTIAL": "oauth1", "AUTHFLOW_TWITTER_COM_NONCE": "none",
        "AUTHFLOW_TWITTER_COM_AFTER_LINK_CONFLICT": "signInWithUpdatedCredential",
      ])
    #expect(ms.providers.map(\.traits.credential) == [.authorizationCode, .oauth1])
    #expect(ms.providers[1].traits.nonce == .none && !ms.providers[1].usesOpenIDConsent)
    #expect(problem(["AUTHFLOW_PROVIDERS": "oidc.other"]).contains("OIDC_OTHER_CLIENT_ID and"))
    #expect(
      problem(["AUTHFLOW_OIDC_ACME_ISSUER": "ftp://x"]).contains("OIDC_ACME_ISSUER is not an http"))
    // The client reads the nonce rule from the provider's traits, never from its id.
    #expect(OIDCClient(clientID: "c", providerID: .apple).nonce == .hashed)
    #expect(OIDCClient(clientID: "c", providerID: "oidc.unlisted").nonce == .hashed)
    #expect(OIDCClient(clientID: "c", providerID: .google).nonce == .none)
    #expect(
      OIDCClient(clientID: "c", providerID: .google, traits: ProviderTraits(nonce: .hashed)).nonce
        == .hashed)
    #expect(
      ProviderTraits.NonceRule.hashed.parameter(for: "abc")
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(ProviderTraits.NonceRule.none.parameter(for: "abc") == nil)
  }

  @Test("JSON works too; what is missing is named")
  func missing() throws {
    let path = try write(#"{"API_KEY": "k"}"#, ext: "json")
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(throws: AuthError.self) { try AuthConfiguration.load(path: path, environment: [:]) }
    do {
      _ = try AuthConfiguration.load(path: path, environment: [:])
    } catch {
      #expect(error.message?.contains("lack CLIENT_ID") == true)
      #expect(error.message?.contains(path) == true)
    }
    #expect(throws: AuthError.self) {
      try AuthConfiguration.load(path: "/nonexistent.plist", environment: [:])
    }
  }
}

@Suite("Docs")
struct EmbeddingDocTests {
  @Test("Docs/Embedding.md shows the compiled example exactly")
  func exampleInDocs() throws {
    let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    let example = try String(
      contentsOf: here.appendingPathComponent("EmbeddingExample.swift"), encoding: .utf8)
    let doc = try String(
      contentsOf: here.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Docs/Embedding.md"), encoding: .utf8)
    let begin = try #require(doc.range(of: "<!-- example: begin -->\n```swift\n"))
    let end = try #require(doc.range(of: "```\n<!-- example: end -->"))
    #expect(String(doc[begin.upperBound..<end.lowerBound]) == example)
  }
}
