import FlowRunKit
import Foundation

let output = await FlowRun.execute(
  Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
// Errors first: a file that could not be read is said before the summary that counts it.
FileHandle.standardError.write(Data(output.stderr.utf8))
FileHandle.standardOutput.write(Data(output.stdout.utf8))
exit(output.code)
