import Foundation
import Testing

/// The Firebase stand-in against its conformance suite (Support/conformance.py): facts from the
/// Auth emulator's own tests and the wire references, each case naming its source. The stand-in
/// is the oracle of every live test, so its strictness is tested like code.
@Suite("The Firebase stand-in passes its conformance suite")
struct ConformanceTests {
  @Test("every conformance case passes against the stand-in")
  func suite() async throws {
    let standIn = try StandIn()
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Support/conformance.py").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script, "--base", "http://\(standIn.hostPort)"]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = out
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let summary = text.split(separator: "\n").last.map(String.init) ?? ""
    #expect(process.terminationStatus == 0, "\(text)")
    #expect(summary.contains(" 0 failed"), "\(summary)")
    // A suite that ran nothing would pass: it must have run its cases.
    let count = Int(summary.split(separator: " ").first ?? "") ?? 0
    #expect(count >= 100, "\(summary)")
    print("conformance: \(summary)")
  }
}
