// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "AuthFlow",
  platforms: [.macOS(.v13), .iOS(.v16)],
  products: [
    .library(name: "AuthFlowHTTP", targets: ["AuthFlowHTTP"]),
    .library(name: "AuthFlowRuntime", targets: ["AuthFlowRuntime"]),
    .library(name: "AuthFlowVerification", targets: ["AuthFlowVerification"]),
    .library(name: "AuthFlowCore", targets: ["AuthFlowCore"]),
    .library(name: "AuthFlowScenarios", targets: ["AuthFlowScenarios"]),
    .executable(name: "flowrun", targets: ["flowrun"]),
    .executable(name: "flowbench", targets: ["flowbench"]),
  ],
  targets: [
    // The pure state machine: no Foundation, no I/O, no clock.
    .target(name: "AuthFlowCore"),
    // Scenario files, the scripted interpreter and the runner.
    .target(name: "AuthFlowScenarios", dependencies: ["AuthFlowCore"]),
    // What apps embed: the runtime actor, session stores, the observable model.
    .target(name: "AuthFlowRuntime", dependencies: ["AuthFlowCore"]),
    // The real interpreter: Google OAuth (PKCE, loopback, device flow) and Firebase over HTTP.
    .target(name: "AuthFlowHTTP", dependencies: ["AuthFlowCore"]),
    // Invariant checking at scale: generators, shrinking, the model checker.
    .target(name: "AuthFlowVerification", dependencies: ["AuthFlowCore", "AuthFlowScenarios"]),
    // The commands behind `flowrun`, as a library so tests can call them.
    .target(
      name: "FlowRunKit",
      dependencies: ["AuthFlowScenarios", "AuthFlowCore", "AuthFlowVerification", "AuthFlowHTTP"]
    ),
    // Counts heap allocations for the benchmarks (glibc only; linked into flowbench alone).
    .target(name: "MallocCounter"),
    // Benchmarks: the cost of a transition, a replay, a model check.
    .executableTarget(
      name: "flowbench",
      dependencies: [
        "AuthFlowCore", "AuthFlowScenarios", "AuthFlowVerification", "AuthFlowRuntime",
        "MallocCounter",
      ]),
    // The thin command-line front end.
    .executableTarget(name: "flowrun", dependencies: ["FlowRunKit"]),
    // The examples Docs/Embedding.md shows, built with everything else so they cannot rot.
    .executableTarget(
      name: "ExampleCommandLineTool",
      dependencies: ["AuthFlowCore", "AuthFlowHTTP", "AuthFlowRuntime"],
      path: "Examples/CommandLineTool"),
    .target(
      name: "ExampleSharedSession",
      dependencies: ["AuthFlowCore", "AuthFlowHTTP", "AuthFlowRuntime"],
      path: "Examples/SharedSession"),
    .target(
      name: "ExampleServerSessions",
      dependencies: ["AuthFlowCore", "AuthFlowHTTP", "AuthFlowRuntime"],
      path: "Examples/ServerSessions"),
    .testTarget(name: "AuthFlowCoreTests", dependencies: ["AuthFlowCore"]),
    // One process of the multi-process tests: a runtime on a shared session file.
    .executableTarget(
      name: "authflow-peer", dependencies: ["AuthFlowRuntime", "AuthFlowHTTP", "AuthFlowCore"],
      path: "Tests/Fixtures/SharedSessionPeer"),
    .testTarget(
      name: "AuthFlowHTTPTests",
      dependencies: [
        "AuthFlowHTTP", "AuthFlowCore", "AuthFlowRuntime", "AuthFlowScenarios", "FlowRunKit",
        "authflow-peer",
      ],
      exclude: ["Support"]),
    // Writes sessions in a loop until killed: the crash-safety test's victim.
    .executableTarget(
      name: "authflow-crash-fixture", dependencies: ["AuthFlowRuntime", "AuthFlowCore"],
      path: "Tests/Fixtures/CrashFixture"),
    .testTarget(
      name: "AuthFlowRuntimeTests",
      dependencies: ["AuthFlowRuntime", "AuthFlowCore", "authflow-crash-fixture"]),
    .testTarget(
      name: "AuthFlowVerificationTests",
      dependencies: ["AuthFlowVerification", "AuthFlowCore", "AuthFlowScenarios", "FlowRunKit"]
    ),
    // Seeded fuzzers, one per input boundary (Docs/Reliability.md).
    .testTarget(
      name: "AuthFlowFuzzTests",
      dependencies: [
        "AuthFlowCore", "AuthFlowScenarios", "AuthFlowVerification", "AuthFlowHTTP",
        "AuthFlowRuntime",
      ]),
    .testTarget(
      name: "AuthFlowScenariosTests",
      dependencies: ["AuthFlowScenarios", "AuthFlowCore", "FlowRunKit"],
      exclude: ["Broken", "Failing"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
