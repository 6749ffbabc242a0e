import AuthFlowCore
import Foundation

/// The real interpreter: each provider's consent step, then Firebase over HTTP.
public struct HTTPInterpreter: AnsweringInterpreter {
  public var firebase: FirebaseAPI
  /// The consent step of each provider the app offers.
  public var consents: [ProviderID: any ProviderConsent]
  /// Where a provider's OAuth grant is revoked when its SDK session is disconnected after the
  /// account was deleted (Google's by default); the token revoked is the last one this
  /// interpreter received from that provider's consent step in this process.
  public var revocationEndpoints: [ProviderID: URL]
  let onSignOut: @Sendable (ProviderID, Bool) async -> Void
  let grants = Grants()

  /// An interpreter with a consent step per provider; `onSignOut` signs out of a provider's
  /// SDK (and disconnects it when its second argument is true: the account was deleted).
  public init(
    firebase: FirebaseAPI, consents: [ProviderID: any ProviderConsent],
    revocationEndpoints: [ProviderID: URL] = [
      .google: URL(string: "https://oauth2.googleapis.com/revoke")!
    ],
    onSignOut: @escaping @Sendable (ProviderID, Bool) async -> Void = { _, _ in }
  ) {
    self.firebase = firebase
    self.consents = consents
    self.revocationEndpoints = revocationEndpoints
    self.onSignOut = onSignOut
  }

  /// An interpreter that offers Google alone.
  public init(
    firebase: FirebaseAPI, consent: any ProviderConsent,
    onSignOut: @escaping @Sendable (ProviderID, Bool) async -> Void = { _, _ in }
  ) {
    self.init(firebase: firebase, consents: [.google: consent], onSignOut: onSignOut)
  }

  public func authorize(provider: ProviderID, intent: AuthorizationIntent, loginHint: String?)
    async -> AuthorizeAnswer
  {
    guard let consent = consents[provider] else {
      return .providerFailed(
        error: AuthError(
          code: "PROVIDER_NOT_CONFIGURED", message: "no consent step for \(provider)"))
    }
    let answer = await consent.authorize(provider: provider, intent: intent, loginHint: loginHint)
    if case .providerSucceeded(let c) = answer, let token = c.accessToken {
      await grants.keep(token, for: provider)
    }
    return answer
  }

  /// A consent step is the provider's; every other request is Firebase's (`FirebaseAPI`
  /// answers each as `AuthInterpreter` names it).
  public func respond(to request: Request, id: RequestID) async -> Answer {
    if case .authorize(let provider, let intent, let hint) = request {
      return .authorize(id, await authorize(provider: provider, intent: intent, loginHint: hint))
    }
    return await firebase.perform(request, id: id)
  }

  public func signOut(of provider: ProviderID, revoke: Bool) async {
    let token = await grants.take(provider)
    if revoke, let token, let endpoint = revocationEndpoints[provider] {
      // Best effort: the account is already deleted; a grant left behind is reported by the
      // provider's own account page, and revoking an already revoked token succeeds.
      var c = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)
      c?.queryItems = [URLQueryItem(name: "token", value: token)]
      if let url = c?.url {
        _ = await firebase.transport.send(
          HTTPRequest(
            method: "POST", url: url,
            headers: ["Content-Type": "application/x-www-form-urlencoded"],
            timeout: firebase.timeout))
      }
    }
    await onSignOut(provider, revoke)
  }
}

/// The last access token each provider's consent step gave, for revocation (memory only).
actor Grants {
  private var tokens: [ProviderID: String] = [:]
  func keep(_ token: String, for provider: ProviderID) { tokens[provider] = token }
  func take(_ provider: ProviderID) -> String? { tokens.removeValue(forKey: provider) }
}
