import AuthFlowCore

/// An interpreter for trying `AuthRuntime` in a test or a preview: it answers each request
/// kind from answers you queue, or from a closure, and records what it was asked.
///
/// ```swift
/// let interpreter = TestInterpreter()
/// await interpreter.answer(.signUpAnonymously, with: .signedIn(session: session))
/// let runtime = AuthRuntime(interpreter: interpreter, store: InMemorySessionStore())
/// ```
///
/// A request with nothing queued and no closure is answered
/// `requestFailed(NOT_SCRIPTED)`, naming the request, so a missing answer shows up as an error
/// notification rather than a request that never ends.
public actor TestInterpreter: AuthInterpreter {
  private var queued: [Effect.Kind: [RequestResult]] = [:]
  private var handlers: [Effect.Kind: @Sendable (Request) async -> RequestResult] = [:]
  private var held: [Effect.Kind: [CheckedContinuation<Void, Never>]] = [:]
  private var holding: Set<Effect.Kind> = []

  /// Every request performed, in order.
  public private(set) var requests: [Request] = []
  /// Every provider signed out of, in order.
  public private(set) var signedOut: [ProviderID] = []
  /// The providers also disconnected (their grant revoked) when signed out after a deletion.
  public private(set) var disconnected: [ProviderID] = []

  /// An interpreter with nothing queued.
  public init() {}

  /// Queues `results` for requests of `kind`, answered one per request in order.
  public func answer(_ kind: Effect.Kind, with results: RequestResult...) {
    queued[kind, default: []] += results
  }

  /// Answers every request of `kind` that finds nothing queued by calling `handler`.
  public func answer(
    _ kind: Effect.Kind, using handler: @escaping @Sendable (Request) async -> RequestResult
  ) {
    handlers[kind] = handler
  }

  /// Holds requests of `kind` unanswered until `release(_:)`: to see what the app shows while
  /// a request is in flight, or to make several callers wait for one refresh.
  public func hold(_ kind: Effect.Kind) { holding.insert(kind) }

  /// Lets the held requests of `kind` (and later ones) go on.
  public func release(_ kind: Effect.Kind) {
    holding.remove(kind)
    for c in held.removeValue(forKey: kind) ?? [] { c.resume() }
  }

  /// How many requests of `kind` were performed.
  public func count(_ kind: Effect.Kind) -> Int { requests.filter { $0.kind == kind }.count }

  public func perform(_ request: Request) async -> RequestResult {
    requests.append(request)
    let kind = request.kind
    if holding.contains(kind) {
      await withCheckedContinuation { held[kind, default: []].append($0) }
    }
    if var list = queued[kind], !list.isEmpty {
      let result = list.removeFirst()
      queued[kind] = list
      return result
    }
    if let handler = handlers[kind] { return await handler(request) }
    return .requestFailed(
      error: AuthError(code: "NOT_SCRIPTED", message: "no answer queued for \(kind.rawValue)"))
  }

  public func signOut(of provider: ProviderID, revoke: Bool) async {
    signedOut.append(provider)
    if revoke { disconnected.append(provider) }
  }
}
