import AuthFlowCore
import AuthFlowHTTP
import AuthFlowRuntime
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

// One process of the multi-process tests: an AuthRuntime on a shared FileSessionStore, talking
// to the Firebase stand-in. It prints one line per thing that happened, and never a token (a
// token appears as its fingerprint).
//
//   authflow-peer --store <file> --firebase <host:port> [--tokens <n>] [--sign-out] [--watch]
//
// --tokens n   asks for n ID tokens, one after another, printing "token <fingerprint>" each
// --sign-out   signs out (consenting to drop an anonymous user's data), then "signed-out"
// --watch      prints "state <name>" on every change and exits once signed out
// --lease-duration s   the store's refresh lease duration (default 30)
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

var options: [String: String] = [:]
var flags: Set<String> = []
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
  if a == "--sign-out" || a == "--watch" {
    flags.insert(a)
  } else if let v = args.popFirst() {
    options[a] = v
  }
}
guard let path = options["--store"], let host = options["--firebase"] else {
  FileHandle.standardError.write(
    Data(
      "usage: authflow-peer --store <file> --firebase <host:port> [--tokens n] [--sign-out] [--watch]\n"
        .utf8))
  exit(64)
}
let firebase = FirebaseAPI(apiKey: "test-key", endpoints: .emulator(host), timeout: 20)
let runtime = AuthRuntime(
  interpreter: HTTPInterpreter(firebase: firebase, consents: [:]),
  store: FileSessionStore(
    path: path, leaseDuration: options["--lease-duration"].flatMap(Double.init) ?? 30))
await runtime.start()
say("ready \(await runtime.state.name)")

if let n = options["--tokens"].flatMap(Int.init) {
  for _ in 0..<n {
    do {
      say("token " + Secrets.fingerprint(try await runtime.idToken()))
    } catch let e as TokenUnavailable {
      say("no-token \(e.error.code)")
      exit(1)
    }
  }
}
if flags.contains("--sign-out") {
  await runtime.send(.signOutTapped(discardAnonymousData: true))
  await runtime.settled()
  say("signed-out")
}
if flags.contains("--watch") {
  for await state in await runtime.states() {
    say("state \(state.name)")
    if state.name == "signedOut" { break }
  }
}
exit(0)
