// A server-side process with one AuthRuntime per user, sharing one interpreter. Built with the
// package (`swift build`), so it cannot rot; Docs/Embedding.md shows this file.
import AuthFlowCore
import AuthFlowHTTP
import AuthFlowRuntime
import Foundation

/// Each user's session is its own actor, so users never wait for each other.
public actor Sessions {
  private var runtimes: [String: AuthRuntime] = [:]
  private let interpreter: HTTPInterpreter
  private let directory: String

  /// Sessions stored as one file per user under `directory`.
  public init(interpreter: HTTPInterpreter, directory: String) {
    self.interpreter = interpreter
    self.directory = directory
  }

  /// The user's runtime, started (its stored session read) on first use.
  public func runtime(for user: String) async -> AuthRuntime {
    if let existing = runtimes[user] { return existing }
    let safeName = user.unicodeScalars.map {
      CharacterSet.alphanumerics.contains($0) ? String($0) : "_"
    }
    .joined()
    let runtime = AuthRuntime(
      interpreter: interpreter, store: FileSessionStore(path: "\(directory)/\(safeName).json"))
    runtimes[user] = runtime
    await runtime.start()
    return runtime
  }

  /// A valid ID token for the user's calls to your backend.
  public func token(for user: String) async throws -> String {
    try await runtime(for: user).idToken()
  }
}
