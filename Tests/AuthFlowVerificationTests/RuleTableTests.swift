import AuthFlowCore
import Foundation
import Testing

/// Docs/Verification.md's "Every rule, and what checks it" stays in step with the docs' rule
/// markers, the invariants, the scenarios and the tests.
@Suite("The rule table")
struct RuleTableTests {
  static func read(_ path: String) throws -> String {
    try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
  }

  /// The `<!-- rule: ID -->` markers of a document.
  static func markers(_ text: String) -> [String] {
    text.components(separatedBy: "<!-- rule: ").dropFirst().map {
      String($0.prefix { $0 != " " })
    }
  }

  /// The table's rows: (id, document, checked-by cell).
  static func rows() throws -> [(id: String, doc: String, checks: String)] {
    let doc = try read("Docs/Verification.md")
    let start = try #require(doc.range(of: "<!-- rule table: begin -->"))
    let end = try #require(doc.range(of: "<!-- rule table: end -->"))
    return doc[start.upperBound..<end.lowerBound].split(separator: "\n").dropFirst(2).compactMap {
      let cells = $0.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard cells.count >= 5 else { return nil }
      return (cells[1], cells[2], cells[4])
    }
  }

  /// The backticked names of a cell.
  static func names(_ cell: String) -> [String] {
    cell.components(separatedBy: "`").enumerated().compactMap {
      $0.offset % 2 == 1 ? $0.element : nil
    }
  }

  @Test("every rule marked in the three docs has one row, and every row a marker")
  func markersAndRows() throws {
    let rows = try Self.rows()
    #expect(rows.count >= 40)
    var marked: [String: String] = [:]
    for doc in ["StateMachine.md", "Providers.md", "Reliability.md"] {
      for id in Self.markers(try Self.read("Docs/" + doc)) {
        #expect(marked[id] == nil, "\(id) is marked twice")
        marked[id] = doc
      }
    }
    #expect(Set(rows.map(\.id)).count == rows.count, "a rule has two rows")
    for row in rows {
      #expect(marked[row.id] == row.doc, "\(row.id): marked in \(marked[row.id] ?? "no doc")")
    }
    for (id, doc) in marked {
      #expect(rows.contains { $0.id == id }, "\(id) (\(doc)) has no row in the table")
    }
  }

  @Test("every name a row gives is an invariant, a scenario or a test that exists")
  func namesResolve() throws {
    let invariants = Set(Invariant.allCases.map(\.rawValue))
    for row in try Self.rows() {
      let names = Self.names(row.checks)
      #expect(!names.isEmpty || row.checks.hasPrefix("reason:"), "\(row.id) names no check")
      for name in names where !name.contains(" ") {
        if name.hasPrefix("Scenarios/") || name.hasPrefix("Tests/") {
          #expect(
            FileManager.default.fileExists(
              atPath: repositoryRoot.appendingPathComponent(name).path),
            "\(row.id): \(name) does not exist")
        } else {
          #expect(invariants.contains(name), "\(row.id): \(name) is not an invariant")
        }
      }
    }
  }

  @Test("every invariant is named by some rule")
  func everyInvariantHasARule() throws {
    let named = Set(try Self.rows().flatMap { Self.names($0.checks) })
    for invariant in Invariant.allCases {
      #expect(named.contains(invariant.rawValue), "no rule names \(invariant.rawValue)")
    }
  }
}
