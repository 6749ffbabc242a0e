import AuthFlowScenarios
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
  public static let cantCreate: Int32 = 73
}

/// A usage error: printed as `Error: …` plus the usage of the subcommand it is about (the
/// program's when none was named), exit 64.
struct UsageError: Error {
  var message: String
  /// The name of the subcommand whose arguments were wrong, once known.
  var command: String?

  init(message: String, command: String? = nil) {
    self.message = message
    self.command = command
  }
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
        if let near = Suggest.nearest(name, among: known) { message += "; did you mean '\(near)'?" }
        throw UsageError(message: message)
      }
    }
  }

  func has(_ flag: String) -> Bool { flags.contains(flag) }
}
