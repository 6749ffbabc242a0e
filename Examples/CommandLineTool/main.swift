// A command-line tool that signs its user in with Google through the system browser and a
// loopback redirect, keeps the session in a file, and prints a bearer token. Built with the
// package (`swift build`), so it cannot rot; Docs/Embedding.md shows this file.
import AuthFlowCore
import AuthFlowHTTP
import AuthFlowRuntime
import Foundation

@main
struct CommandLineTool {
  static func main() async throws {
    // API_KEY and CLIENT_ID (and CLIENT_SECRET for a desktop client) from a file or AUTHFLOW_*.
    let config = try AuthConfiguration.load(path: CommandLine.arguments.dropFirst().first)
    let provider = try await OIDCProvider.discover(issuer: config.issuer).get()
    let google = GoogleClient(
      clientID: config.clientID, clientSecret: config.clientSecret, provider: provider)
    let consent = LoopbackConsent(client: google) { url in
      print("Sign in with Google in your browser; if it does not open, visit:\n\(url)")
      #if os(macOS)
        _ = try? Process.run(URL(fileURLWithPath: "/usr/bin/open"), arguments: [url.absoluteString])
      #else
        _ = try? Process.run(
          URL(fileURLWithPath: "/usr/bin/xdg-open"), arguments: [url.absoluteString])
      #endif
    }
    let auth = AuthRuntime(
      interpreter: HTTPInterpreter(firebase: FirebaseAPI(apiKey: config.apiKey), consent: consent),
      store: FileSessionStore(path: NSHomeDirectory() + "/.mytool-session.json"))
    await auth.start()
    if await auth.state == .signedOut {
      await auth.send(.signInWithGoogleTapped)
      await auth.settled()
    }
    let token = try await auth.idToken()
    print("Signed in; the ID token starts \(token.prefix(12))…")
  }
}
