import Foundation

/// Locations in the repository, found from this file so tests run from any directory.
enum Paths {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let scenarios = root.appendingPathComponent("Scenarios").path
  static let broken = root.appendingPathComponent("Tests/AuthFlowScenariosTests/Broken").path
  static let docs = root.appendingPathComponent("Docs").path

  static func read(_ path: String) -> String {
    (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
  }
}
