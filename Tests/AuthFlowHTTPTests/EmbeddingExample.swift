// The SwiftUI example of Docs/Embedding.md, compiled here so it cannot rot: a test checks that
// the document shows this file as it is. The SwiftUI and GoogleSignIn parts are Apple-only.
import AuthFlowCore
import AuthFlowHTTP
import AuthFlowRuntime
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking  // URLRequest on Linux
#endif
#if canImport(SwiftUI)
  import SwiftUI
#endif

/// Builds the runtime an app holds for its lifetime.
func makeAuth(configuration: AuthConfiguration, presentGoogle: any ProviderConsent) -> AuthRuntime {
  let firebase = FirebaseAPI(apiKey: configuration.apiKey)  // honours FIREBASE_AUTH_EMULATOR_HOST
  let interpreter = HTTPInterpreter(firebase: firebase, consent: presentGoogle)
  let store = FileSessionStore(
    path: FileManager.default.temporaryDirectory.appendingPathComponent("session.json").path)
  // On Apple platforms prefer: KeychainSessionStore(service: "com.example.app.auth")
  return AuthRuntime(interpreter: interpreter, store: store)
}

/// What used to be a hand-written AuthenticationViewModel: now a thin layer over AuthModel.
@MainActor
final class AuthenticationViewModel {
  let model: AuthModel

  init(runtime: AuthRuntime) {
    model = AuthModel(runtime: runtime)
    model.start()
  }

  var title: String {
    switch model.state {
    case .starting, .restoring: "Loading…"
    case .signedOut: "Welcome"
    case .anonymous: "Guest"
    case .migrationRequired: "This Google account already has data"
    case .accountExistsWithDifferentCredential(let link, _):
      "\(link.email ?? "This email") has an account: sign in to it to add \(link.credential.provider)"
    case .firebaseAuthenticated(let user): user.session.email ?? "Signed in"
    default: "Signing in…"
    }
  }

  /// A sign-in waiting for its second factor: one line per factor the account has.
  var secondFactorChoices: [String] {
    guard let prompt = model.secondFactor else { return [] }
    return prompt.factors.map { factor in
      switch factor.kind {
      case .totp: "Code from \(factor.displayName ?? "your authenticator app")"
      case .phone: "Text a code to \(factor.phoneHint ?? "your phone")"
      }
    }
  }

  /// Goes on with the second factor: a phone factor is texted first (with the app's proof: a
  /// reCAPTCHA token, or the iOS silent push's), then the code the user typed finishes it.
  func continueSecondFactor(_ factor: SecondFactor, code: String?, proof: AppVerification?) {
    guard let prompt = model.secondFactor else { return }
    if factor.kind == .phone, prompt.codeSentTo != factor.id {
      model.sendSecondFactorCode(factor.id, appVerification: proof)
    } else if let code {
      model.submitSecondFactorCode(code, for: factor.id)
    }
  }

  /// While an authenticator app is being enrolled: the text of the QR code to show (the
  /// secret is in it: show it, never log it).
  var totpQRCodeText: String? {
    guard let secret = model.totpSecret else { return nil }
    return secret.uri(account: model.session?.email ?? "account", issuer: "Example App")
  }

  /// Calls an API with a fresh ID token (concurrent callers share one refresh).
  func authorizedRequest(_ url: URL) async throws -> URLRequest {
    var request = URLRequest(url: url)
    request.setValue("Bearer \(try await model.idToken())", forHTTPHeaderField: "Authorization")
    return request
  }
}

#if canImport(SwiftUI)
  /// Apple-only: the view switches on the machine's state.
  struct ContentView: View {
    let viewModel: AuthenticationViewModel
    @State private var code = ""

    var body: some View {
      let model = viewModel.model
      VStack(spacing: 16) {
        Text(viewModel.title).font(.title)
        switch model.state {
        case .signedOut:
          Button("Continue as guest") { model.signInAnonymously() }
          Button("Sign in with Google") { model.signInWithGoogle() }
        case .anonymous:
          Button("Save your progress with Google") { model.signInWithGoogle() }
          Button("Sign out and lose guest data") { model.signOut(discardAnonymousData: true) }
        case .migrationRequired:
          Button("Move my guest data there") { model.decideMigration(.merge) }
          Button("Switch and drop guest data") { model.decideMigration(.switchWithoutData) }
          Button("Stay a guest") { model.decideMigration(.stayAnonymous) }
        case .secondFactorRequired:
          ForEach(viewModel.secondFactorChoices, id: \.self) { Text($0) }
          Button("Cancel") { model.cancel() }
        case .enrollingTotp:
          if let text = viewModel.totpQRCodeText { Text(text).textSelection(.enabled) }
          TextField("The code your authenticator app shows", text: $code)
          Button("Add it") { model.submitTotpEnrollmentCode(code) }
          Button("Cancel") { model.cancel() }
        case .enrollingPhone:
          TextField("The code texted to \(model.phoneBeingEnrolled ?? "")", text: $code)
          Button("Add it") { model.submitPhoneEnrollmentCode(code) }
          Button("Cancel") { model.cancel() }
        case .firebaseAuthenticated:
          Button("Add an authenticator app") { model.enrollTotp() }
          Button("Sign out") { model.signOut() }
          Button("Delete account", role: .destructive) { model.deleteAccount() }
        default:
          ProgressView()
          Button("Cancel") { model.cancel() }
        }
        if let error = model.lastError {
          Text(error.code).foregroundStyle(.red).onTapGesture { model.dismissError() }
        }
      }
    }
  }
#endif
