import AuthFlowCore

/// An interpreter for trying `AuthRuntime` in a test or a preview: it answers each request
/// kind from answers you queue, or from a closure, and records what it was asked.
///
/// ```swift
/// let interpreter = TestInterpreter()
/// await interpreter.answer(.signUpAnonymously, with: .signedIn(session: session))
/// await interpreter.answer(.refreshToken, with: .requestFailed(error: AuthError(code: "NETWORK")))
/// let runtime = AuthRuntime(interpreter: interpreter, store: InMemorySessionStore())
/// ```
///
/// Each request kind is a `Queue` (a `RequestSlot`: `.signUpAnonymously`, `.authorize`,
/// `.refreshToken`, … one per `RequestKind` but `loadSession`) that takes only its own answer
/// type, so an answer of the wrong shape does not compile. A request with nothing queued and no
/// closure is answered `requestFailed(NOT_SCRIPTED)` (`providerFailed` for a consent step),
/// naming the request, so a missing answer shows up as an error notification rather than a
/// request that never ends. It answers every request in one place (`AnsweringInterpreter`), so
/// a new request kind needs nothing here.
public actor TestInterpreter: AnsweringInterpreter {
  /// A request kind and the type of answer it takes.
  public typealias Queue<Outcome: RequestOutcome> = RequestSlot<Outcome>

  private var queued: [RequestKind: [@Sendable (RequestID) -> Answer]] = [:]
  private var handlers: [RequestKind: @Sendable (Request, RequestID) async -> Answer] = [:]
  private var held: [RequestKind: [CheckedContinuation<Void, Never>]] = [:]
  private var holding: Set<RequestKind> = []

  /// Every request performed, in order.
  public private(set) var requests: [Request] = []
  /// Every provider signed out of, in order.
  public private(set) var signedOut: [ProviderID] = []
  /// The providers also disconnected (their grant revoked) when signed out after a deletion.
  public private(set) var disconnected: [ProviderID] = []

  /// An interpreter with nothing queued.
  public init() {}

  /// Queues `answers` for requests of `queue`'s kind, one per request in order.
  public func answer<A>(_ queue: Queue<A>, with answers: A...) {
    queued[queue.kind, default: []] += answers.map { a in { queue.answer($0, a) } }
  }

  /// Answers every request of `queue`'s kind that finds nothing queued by calling `handler`.
  public func answer<A>(_ queue: Queue<A>, using handler: @escaping @Sendable (Request) async -> A)
  {
    handlers[queue.kind] = { request, id in queue.answer(id, await handler(request)) }
  }

  /// Holds requests of `kind` unanswered until `release(_:)`: to see what the app shows while
  /// a request is in flight, or to make several callers wait for one refresh.
  public func hold(_ kind: RequestKind) { holding.insert(kind) }

  /// Lets the held requests of `kind` (and later ones) go on.
  public func release(_ kind: RequestKind) {
    holding.remove(kind)
    for c in held.removeValue(forKey: kind) ?? [] { c.resume() }
  }

  /// How many requests of `kind` were performed.
  public func count(_ kind: RequestKind) -> Int { requests.filter { $0.kind == kind }.count }

  /// The next answer for `request`: queued, from the handler, or `NOT_SCRIPTED`.
  public func respond(to request: Request, id: RequestID) async -> Answer {
    requests.append(request)
    let kind = request.kind
    if holding.contains(kind) {
      await withCheckedContinuation { held[kind, default: []].append($0) }
    }
    if var list = queued[kind], !list.isEmpty {
      let first = list.removeFirst()
      queued[kind] = list
      return first(id)
    }
    if let handler = handlers[kind] { return await handler(request, id) }
    return Answer.failed(
      kind, id, AuthError(code: "NOT_SCRIPTED", message: "no answer queued for \(kind.rawValue)"))
  }

  public func signOut(of provider: ProviderID, revoke: Bool) async {
    signedOut.append(provider)
    if revoke { disconnected.append(provider) }
  }
}
