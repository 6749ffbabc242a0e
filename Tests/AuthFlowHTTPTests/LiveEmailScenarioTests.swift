import AuthFlowCore
import AuthFlowHTTP
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

  @Test(
    "the phone (a guest merged into a number's owner) and SMS second-factor scenarios pass live with the project's test phone numbers; a number the project does not list gets a random code and the scenario fails"
  )
  func phoneScenariosLive() async throws {
    let standIn = try StandIn()
    let cfg = try Live.configFile()
    defer { try? FileManager.default.removeItem(atPath: cfg) }
    // What mfa-sms-live.json says the project has: an account with a verified email.
    let sam = try await Self.signUp(standIn, "sam@example.com", "a-long-password")
    try await standIn.admin("admin", ["localId": sam, "emailVerified": true])
    let files = ["phone-live", "mfa-sms-live"].map { Self.scenarios + "/\($0).json" }
    // Without the test numbers the codes are random: the right code in the file is wrong.
    let refused = await FlowRun.execute(
      ["--live", "--config", cfg, files[0]], environment: environment(standIn))
    #expect(refused.code == ExitCode.failure, "\(refused.stdout)\(refused.stderr)")
    #expect(refused.stdout.contains("INVALID_CODE"), "\(refused.stdout)")
    try await standIn.admin("reset", [:])
    let samAgain = try await Self.signUp(standIn, "sam@example.com", "a-long-password")
    try await standIn.admin("admin", ["localId": samAgain, "emailVerified": true])
    try await standIn.admin(
      "config",
      [
        "testPhoneNumbers": [
          "+15555550100": "246810", "+15555550111": "135791", "+15555550122": "224466",
        ]
      ])
    let out = await FlowRun.execute(
      ["--live", "--config", cfg] + files, environment: environment(standIn))
    #expect(out.code == 0, "\(out.stdout)\(out.stderr)")
    #expect(out.stderr.contains("phone-live: 12 requests live"), "\(out.stderr)")
    #expect(out.stderr.contains("mfa-sms-live: 10 requests live"), "\(out.stderr)")
    let users = try await standIn.users()
    let phones = Set(users.compactMap { $0["phoneNumber"] as? String })
    #expect(phones == ["+15555550100", "+15555550111"], "the owner and the upgraded guest")
    #expect(users.count == 3, "the merged guest's account was deleted: \(users.count) users")
    let samUser = try #require(users.first { $0["localId"] as? String == samAgain })
    #expect((samUser["mfaInfo"] as? [[String: Any]])?.count == 1, "\(samUser)")
  }

  /// A password account made on the stand-in as the app would (`accounts:signUp`); its uid.
  static func signUp(_ standIn: StandIn, _ email: String, _ password: String) async throws
    -> String
  {
    guard
      case .signedIn(let session) = await standIn.api().signUpWithPassword(
        email: email, password: password, linkTo: nil)
    else { throw AuthError(code: "STANDIN_ADMIN_FAILED", message: "signUp") }
    return session.uid
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
