import AuthFlowCore

/// Answers request effects from a scenario's `script`, each effect name's entries in order.
public struct ScriptedInterpreter: Sendable {
  private var queues: [String: [ScriptEntry]]
  private var used: [String: Int] = [:]

  /// An interpreter that answers from `script`.
  public init(script: [String: [ScriptEntry]]) { self.queues = script }

  /// The next entry for this effect's name; `nil` when none is left (the request stays pending).
  public mutating func next(for effect: Effect) -> ScriptEntry? {
    let name = effect.name
    guard let queue = queues[name] else { return nil }
    let n = used[name, default: 0]
    guard n < queue.count else { return nil }
    used[name] = n + 1
    return queue[n]
  }

  /// The script entries never handed out, as `name[index]`, in the script's order of names.
  public var unusedEntries: [String] {
    queues.keys.sorted().flatMap { name in
      let n = used[name, default: 0]
      return (queues[name] ?? []).indices.dropFirst(n).map { "\(name)[\($0)]" }
    }
  }
}
