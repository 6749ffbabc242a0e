import Foundation
import Testing

@testable import FlowRunKit

/// The email scenarios that run live need the Firebase stand-in alone: an identity provider's
/// configuration is read only when a scenario first asks that provider.
@Suite("flowrun --live: email scenarios against the stand-in, no identity provider", .serialized)
struct LiveEmailScenarioTests {
  static let scenarios = Live.scenarios

  /// An issuer nobody answers at (the discard port on loopback): reading it fails at once.
  func environment(_ standIn: StandIn) -> [String: String] {
    [
      "FIREBASE_AUTH_EMULATOR_HOST": standIn.hostPort, "AUTHFLOW_API_KEY": "test-key",
      "AUTHFLOW_CLIENT_ID": "test-ios-client.apps.googleusercontent.com",
      "AUTHFLOW_OIDC_ISSUER": "http://127.0.0.1:9",
    ]
  }

  @Test("the email and password scenarios pass live; the stand-in holds the accounts they made")
  func emailScenariosLive() async throws {
    let standIn = try StandIn()
    let cfg = try Live.configFile()
    defer { try? FileManager.default.removeItem(atPath: cfg) }
    let files = ["email-password-live", "password-change-live", "email-guest-upgrade-live"]
    let out = await FlowRun.execute(
      ["--live", "--config", cfg] + files.map { Self.scenarios + "/\($0).json" },
      environment: environment(standIn))
    #expect(out.code == 0, "\(out.stdout)\(out.stderr)")
    for file in files { #expect(out.stderr.contains("\(file): 8 requests live"), "\(out.stderr)") }
    #expect(!out.stderr.contains("OpenID configuration"), "no provider was asked")
    let emails = Set(try await standIn.users().compactMap { $0["email"] as? String })
    #expect(
      emails == ["erin@example.com", "pat@example.com", "owner@example.com", "gwen@example.com"])
  }

  @Test("a scenario that asks a provider whose configuration cannot be read fails, and says why")
  func unreadableIssuer() async throws {
    let standIn = try StandIn()
    let cfg = try Live.configFile()
    defer { try? FileManager.default.removeItem(atPath: cfg) }
    let out = await FlowRun.execute(
      ["--live", "--config", cfg, Self.scenarios + "/anonymous-upgrade.json"],
      environment: environment(standIn))
    #expect(out.code == ExitCode.failure, "\(out.stdout)\(out.stderr)")
    #expect(
      out.stderr.contains("Error: cannot read the OpenID configuration of http://127.0.0.1:9"),
      "\(out.stderr)")
  }
}
