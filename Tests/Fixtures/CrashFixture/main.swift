import AuthFlowCore
import AuthFlowRuntime
import Foundation

// Writes two alternating sessions to the file named on the command line, forever, printing
// "ready" after the first write. The crash-safety test kills it at random moments.
guard CommandLine.arguments.count == 2 else {
  FileHandle.standardError.write(Data("usage: authflow-crash-fixture <session-file>\n".utf8))
  exit(64)
}
let store = FileSessionStore(path: CommandLine.arguments[1])
let padding = String(repeating: "x", count: 4096)
let sessions = ["user-a", "user-b"].map { uid in
  Session(
    uid: uid, anonymous: false, providers: ["google.com"], email: "\(uid)@example.com",
    idToken: "id-\(uid)-\(padding)", refreshToken: "rt-\(uid)", expiresAt: Instant(1_767_261_600))
}
var n = 0
while true {
  try await store.save(sessions[n % 2])
  if n == 0 {
    FileHandle.standardOutput.write(Data("ready\n".utf8))
  }
  n += 1
}
