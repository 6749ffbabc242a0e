import AuthFlowCore
import Foundation
import Testing

/// What Docs/Architecture.md promises about the reducer's shape, read from the sources.
@Suite("The reducer's shape")
struct SourceShapeTests {
  @Test("no reducer file has a default: case (a new phase, intent or answer is a compile error)")
  func noDefaultInTheReducer() throws {
    let dir = Paths.root.appendingPathComponent("Sources/AuthFlowCore")
    let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
      .filter { $0.hasPrefix("Reducer") && $0.hasSuffix(".swift") }
      .sorted()
    #expect(files.count >= 4, "the reducer's files were not found in \(dir.path): \(files)")
    var found: [String] = []
    for file in files {
      let text = Paths.read(dir.appendingPathComponent(file).path)
      for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
      where line.trimmingCharacters(in: .whitespaces).hasPrefix("default:") {
        found.append("\(file):\(n + 1)")
      }
    }
    #expect(found.isEmpty, "default: in the reducer at \(found.joined(separator: ", "))")
  }

  @Test("a phase and an effect are smaller than their largest payloads, which are held indirectly")
  func largeCasesIndirect() {
    // A Swift enum is as large as its largest inline case: these hold only while the
    // second-factor step and a request stay `indirect`.
    #expect(MemoryLayout<Phase>.size < MemoryLayout<SecondFactorStep>.size)
    #expect(MemoryLayout<Effect>.size < MemoryLayout<Request>.size)
  }
}
