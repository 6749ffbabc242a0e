import Foundation
import Testing

@testable import AuthFlowCore

/// Docs/StateMachine.md's table of error classes is what apps read to know which failures sign
/// a user out; `ErrorKind.classify` is what the machine does. The two are held together here.
@Suite("The error classes in Docs/StateMachine.md")
struct ErrorClassTableTests {
  /// Each row of the table: its class and the codes it lists (upper-case words and `HTTP_5xx`
  /// only, so the last row's "everything else (wrong password, EMAIL_EXISTS, …)" gives its
  /// examples).
  func rows() throws -> [(kind: ErrorKind, codes: [String])] {
    let doc = try String(
      contentsOf: repositoryRoot.appendingPathComponent("Docs/StateMachine.md"), encoding: .utf8)
    let lines = doc.components(separatedBy: "\n")
    let header = try #require(lines.firstIndex { $0.hasPrefix("| class | codes |") })
    var rows: [(ErrorKind, [String])] = []
    for line in lines[(header + 2)...] {
      guard line.hasPrefix("|") else { break }
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      let name = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
      let kind = try #require(ErrorKind(rawValue: name), "unknown class \(name)")
      let codes = cells[2].components(separatedBy: CharacterSet(charactersIn: " ,()…"))
        .filter {
          $0 == "HTTP_5xx"
            || (!$0.isEmpty && $0.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "_" })
        }
      rows.append((kind, codes))
    }
    return rows
  }

  @Test("every code the table lists has the class of its row")
  func listedCodesClassify() throws {
    let rows = try rows()
    #expect(Set(rows.map(\.kind)) == Set(ErrorKind.allCases))
    for (kind, codes) in rows {
      #expect(!codes.isEmpty)
      for code in codes {
        // `HTTP_5xx` stands for every 5xx status.
        let probes = code == "HTTP_5xx" ? ["HTTP_500", "HTTP_503", "HTTP_599"] : [code]
        for probe in probes { #expect(ErrorKind.classify(probe) == kind, "\(probe)") }
      }
    }
  }

  @Test("every code the machine gives a class of its own is in that class's row")
  func classifiedCodesListed() throws {
    let rows = try rows()
    for entry in ErrorKind.codes {
      let row = rows.first { $0.kind == entry.kind }
      #expect(row?.codes.contains(entry.code) == true, "\(entry.code) missing from \(entry.kind)")
    }
  }
}
