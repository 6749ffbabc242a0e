import Foundation

/// What a command produced: an exit code and the two output streams.
public struct CommandOutput: Sendable, Equatable {
  /// The process exit code.
  public var code: Int32
  /// Text for standard output.
  public var stdout: String
  /// Text for standard error.
  public var stderr: String

  /// Creates an output.
  public init(code: Int32, stdout: String = "", stderr: String = "") {
    self.code = code
    self.stdout = stdout
    self.stderr = stderr
  }
}

/// Exit codes, after BSD's sysexits.
public enum ExitCode {
  public static let success: Int32 = 0
  public static let failure: Int32 = 1
  public static let usage: Int32 = 64
  public static let dataError: Int32 = 65
  public static let noInput: Int32 = 66
}

/// A usage error: printed as `Error: …` plus the usage line, exit 64.
struct UsageError: Error {
  var message: String
}

/// A small argument parser: flags, options with values, and positional arguments.
struct Arguments {
  private(set) var flags: Set<String> = []
  private(set) var options: [String: String] = [:]
  private(set) var positional: [String] = []

  /// Parses `args`; `flagNames` take no value, `optionNames` take one.
  init(_ args: [String], flags flagNames: Set<String>, options optionNames: Set<String>) throws {
    var i = 0
    var onlyPositional = false
    while i < args.count {
      let arg = args[i]
      i += 1
      if onlyPositional || !arg.hasPrefix("-") || arg == "-" {
        positional.append(arg)
        continue
      }
      if arg == "--" {
        onlyPositional = true
        continue
      }
      var name = arg
      var inlineValue: String? = nil
      if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
        name = String(arg[..<eq])
        inlineValue = String(arg[arg.index(after: eq)...])
      }
      if flagNames.contains(name) {
        if inlineValue != nil { throw UsageError(message: "\(name) takes no value") }
        flags.insert(name)
      } else if optionNames.contains(name) {
        if let inlineValue {
          options[name] = inlineValue
        } else {
          guard i < args.count else { throw UsageError(message: "missing value for \(name)") }
          options[name] = args[i]
          i += 1
        }
      } else {
        let known = Array(flagNames.union(optionNames)).sorted()
        var message = "unknown option '\(arg)'"
        if let near = nearest(name, known) { message += "; did you mean '\(near)'?" }
        throw UsageError(message: message)
      }
    }
  }

  func has(_ flag: String) -> Bool { flags.contains(flag) }
}

/// The closest option name, for "did you mean".
func nearest(_ word: String, _ names: [String]) -> String? {
  var best: (String, Int)? = nil
  for name in names {
    let d = levenshtein(word, name)
    if d < (best?.1 ?? Int.max) { best = (name, d) }
  }
  guard let best, best.1 <= max(2, best.0.count / 3) else { return nil }
  return best.0
}

func levenshtein(_ a: String, _ b: String) -> Int {
  let a = Array(a)
  let b = Array(b)
  var row = Array(0...b.count)
  for i in 1...max(a.count, 1) where !a.isEmpty {
    var previous = row[0]
    row[0] = i
    for j in stride(from: 1, through: b.count, by: 1) {
      let saved = row[j]
      row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
      previous = saved
    }
  }
  return a.isEmpty ? b.count : row[b.count]
}
