// Sign in with Apple's native sheet, for apps on Apple platforms.
//
// Built only where AuthenticationServices exists (iOS, macOS, tvOS, visionOS); on Linux, where
// the project's CI runs, this file compiles to nothing, so it is not exercised by the tests here
// (Docs/Providers.md, "What is tested where").

#if canImport(AuthenticationServices)
  import AuthenticationServices
  import AuthFlowCore
  import Foundation

  /// The consent step for `apple.com` through `ASAuthorizationController`: a fresh raw nonce for
  /// every attempt, its lowercase SHA-256 hex in the request to Apple, and the raw value in the
  /// credential for Firebase; the identity token, the single-use authorization code (for
  /// `accounts:revokeToken` when the account is deleted), the email and, on the first
  /// authorization only, the user's name.
  ///
  /// ```swift
  /// let apple = AppleSignInConsent { view.window! }
  /// let interpreter = HTTPInterpreter(
  ///   firebase: FirebaseAPI(apiKey: key), consents: [.google: google, .apple: apple])
  /// ```
  @available(iOS 13.0, macOS 10.15, tvOS 13.0, *)
  public struct AppleSignInConsent: ProviderConsent {
    let anchor: @MainActor @Sendable () -> ASPresentationAnchor
    /// What the app asks Apple for (name and email by default).
    public var scopes: [ASAuthorization.Scope]

    /// A consent that presents Apple's sheet over the window `anchor` returns.
    public init(
      scopes: [ASAuthorization.Scope] = [.fullName, .email],
      presentationAnchor anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor
    ) {
      self.scopes = scopes
      self.anchor = anchor
    }

    public func authorize(provider: ProviderID, intent: AuthorizationIntent, loginHint: String?)
      async -> AuthorizeAnswer
    {
      guard provider == .apple else {
        return .providerFailed(
          error: AuthError(
            code: "UNSUPPORTED_PROVIDER", message: "AppleSignInConsent signs in with apple.com only"
          ))
      }
      let rawNonce = randomToken()
      let scopes = self.scopes
      let anchor = self.anchor
      return await withCheckedContinuation { continuation in
        Task { @MainActor in
          let run = AppleAuthorizationRun(
            rawNonce: rawNonce, anchor: anchor(), continuation: continuation)
          run.start(scopes: scopes)
        }
      }
    }
  }

  /// One presentation of Apple's sheet: keeps itself alive until the controller answers.
  @available(iOS 13.0, macOS 10.15, tvOS 13.0, *)
  @MainActor
  final class AppleAuthorizationRun: NSObject {
    let rawNonce: String
    let anchor: ASPresentationAnchor
    var continuation: CheckedContinuation<AuthorizeAnswer, Never>?
    var controller: ASAuthorizationController?
    var keepAlive: AppleAuthorizationRun?

    init(
      rawNonce: String, anchor: ASPresentationAnchor,
      continuation: CheckedContinuation<AuthorizeAnswer, Never>
    ) {
      self.rawNonce = rawNonce
      self.anchor = anchor
      self.continuation = continuation
    }

    func start(scopes: [ASAuthorization.Scope]) {
      let request = ASAuthorizationAppleIDProvider().createRequest()
      request.requestedScopes = scopes
      request.nonce = ProviderTraits.NonceRule.hashed.parameter(for: rawNonce)
      let controller = ASAuthorizationController(authorizationRequests: [request])
      controller.delegate = self
      controller.presentationContextProvider = self
      self.controller = controller
      keepAlive = self
      controller.performRequests()
    }

    func finish(_ result: AuthorizeAnswer) {
      continuation?.resume(returning: result)
      continuation = nil
      controller = nil
      keepAlive = nil
    }
  }

  @available(iOS 13.0, macOS 10.15, tvOS 13.0, *)
  extension AppleAuthorizationRun: @preconcurrency ASAuthorizationControllerDelegate {
    func authorizationController(
      controller: ASAuthorizationController,
      didCompleteWithAuthorization authorization: ASAuthorization
    ) {
      guard let apple = authorization.credential as? ASAuthorizationAppleIDCredential,
        let tokenData = apple.identityToken,
        let idToken = String(data: tokenData, encoding: .utf8)
      else {
        return finish(
          .providerFailed(
            error: AuthError(code: "UNEXPECTED_RESPONSE", message: "Apple gave no identity token")))
      }
      let code = apple.authorizationCode.flatMap { String(data: $0, encoding: .utf8) }
      finish(
        .providerSucceeded(
          credential: IdPCredential(
            provider: .apple, idToken: idToken, rawNonce: rawNonce, authorizationCode: code,
            email: apple.email, givenName: apple.fullName?.givenName,
            familyName: apple.fullName?.familyName)))
    }

    func authorizationController(
      controller: ASAuthorizationController, didCompleteWithError error: any Error
    ) {
      if let e = error as? ASAuthorizationError, e.code == .canceled {
        return finish(.providerCancelled)
      }
      finish(
        .providerFailed(
          error: AuthError(code: "APPLE_AUTHORIZATION_FAILED", message: error.localizedDescription)
        ))
    }
  }

  @available(iOS 13.0, macOS 10.15, tvOS 13.0, *)
  extension AppleAuthorizationRun:
    @preconcurrency ASAuthorizationControllerPresentationContextProviding
  {
    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor {
      anchor
    }
  }
#endif
