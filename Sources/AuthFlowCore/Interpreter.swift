/// Performs the machine's requests against the world: the scripted interpreter answers from a
/// scenario, the HTTP one talks to the providers and Firebase, and an app can supply its own
/// (say, the GoogleSignIn SDK for Google's consent step). Storage and timers are the runtime's
/// job, not this.
public protocol AuthInterpreter: Sendable {
  /// Performs one request and returns its result. Failures are results too (`requestFailed`,
  /// `providerFailed`), never thrown, so every request is answered.
  func perform(_ request: Request) async -> RequestResult

  /// Signs out of a provider's SDK (the `signOutProvider` effect); with `revoke` (the account
  /// was deleted) also disconnects, revoking the grant the SDK holds (GoogleSignIn's
  /// `disconnect`).
  func signOut(of provider: ProviderID, revoke: Bool) async
}

extension AuthInterpreter {
  /// By default there is no provider SDK to sign out of.
  public func signOut(of provider: ProviderID, revoke: Bool) async {}
}
