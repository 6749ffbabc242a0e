/// Runs the machine's request effects against the world: the scripted interpreter answers from a
/// scenario, the HTTP one talks to Google and Firebase, and an app can supply its own (say, the
/// GoogleSignIn SDK for the consent step). Storage and timers are the runtime's job, not this.
public protocol AuthInterpreter: Sendable {
  /// Performs one request effect (one with a `requestId`) and returns its result. Failures are
  /// results too (`requestFailed`, `providerFailed`), never thrown, so every request is answered.
  func perform(_ effect: Effect) async -> RequestResult

  /// Signs out of the identity provider's SDK (the `signOutProvider` effect).
  func signOutProvider() async
}

extension AuthInterpreter {
  /// By default there is no provider SDK to sign out of.
  public func signOutProvider() async {}
}
