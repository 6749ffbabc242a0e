import AuthFlowCore
import AuthFlowHTTP
import AuthFlowRuntime
import Foundation

/// The app and each of its extensions build their runtime the same way, on one session file in
/// the app group's container (on Apple platforms
/// `FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.app")`).
/// Each process then sees the others' sign-ins, refreshes and sign-outs, and a token refresh
/// happens once for all of them.
public func makeSharedAuth(
  container: URL, apiKey: String, consents: [ProviderID: any ProviderConsent]
)
  -> AuthRuntime
{
  let store = FileSessionStore(path: container.appendingPathComponent("auth-session.json").path)
  let interpreter = HTTPInterpreter(firebase: FirebaseAPI(apiKey: apiKey), consents: consents)
  return AuthRuntime(interpreter: interpreter, store: store)
}

/// A widget (or a share extension) shows no consent step: it only reads the user the app signed
/// in, and asks for ID tokens like the app does.
public func widgetToken(container: URL, apiKey: String) async -> String? {
  let auth = makeSharedAuth(container: container, apiKey: apiKey, consents: [:])
  await auth.start()
  guard auth.isSignedIn(await auth.state) else { return nil }
  return try? await auth.idToken()
}

extension AuthRuntime {
  /// Whether someone (anonymous or not) is signed in.
  nonisolated func isSignedIn(_ state: AuthState) -> Bool { state.session != nil }
}
