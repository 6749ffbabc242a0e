import FlowRunKit
import Foundation

let output = await FlowRun.execute(
  Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
FileHandle.standardOutput.write(Data(output.stdout.utf8))
FileHandle.standardError.write(Data(output.stderr.utf8))
exit(output.code)
