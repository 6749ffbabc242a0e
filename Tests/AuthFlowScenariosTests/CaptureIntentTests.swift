import AuthFlowScenarios
import Testing

/// Captures in a `send` (what lets a live run name what the server made up, such as a second
/// factor's enrolment id) are put in when the step runs.
@Suite("captures in intents")
struct CaptureIntentTests {
  /// A signed-in user whose email an expectation captures; the steps after it send `sends`.
  func scenario(_ sends: String, expect: String) -> String {
    #"""
    {
      "name": "capture-intent",
      "clock": "2026-01-01T09:00:00Z",
      "script": {
        "loadSession": [{ "sessionLoaded": { "session": { "uid": "u-1", "providers": ["password"],
          "email": "kim@example.com", "idToken": "id-1", "refreshToken": "rt-1", "expiresIn": 3600 } } }],
        "sendPasswordReset": [{ "passwordResetSent": {} }]
      },
      "steps": [
        { "send": "appLaunched", "expect": { "session": { "email": "$mail" } } },
        { "send": "signOutTapped", "expect": { "state": "signedOut" } },
        { "send": \#(sends), "expect": { "effectsInclude": [\#(expect)] } }
      ]
    }
    """#
  }

  func run(_ text: String, strict: Bool = false) throws -> ScenarioReport {
    ScenarioRunner.run(try Scenario.parse(text, file: "capture-intent.json"), strict: strict)
  }

  @Test("a bound capture is replaced by its value")
  func bound() throws {
    let report = try run(
      scenario(
        #"{ "sendPasswordReset": { "email": "$mail" } }"#,
        expect: #"{ "sendPasswordReset": { "email": "kim@example.com" } }"#), strict: true)
    #expect(report.failure == nil, "\(String(describing: report.failure))")
  }

  @Test("the value sent is the capture's, not the name: expecting the name fails")
  func notTheName() throws {
    let report = try run(
      scenario(
        #"{ "sendPasswordReset": { "email": "$mail" } }"#,
        expect: #"{ "sendPasswordReset": { "email": "$$mail" } }"#))
    #expect(report.failure != nil)
  }

  @Test("an unbound name is sent as written: a warning, a failure under strict rules")
  func unbound() throws {
    let text = scenario(
      #"{ "sendPasswordReset": { "email": "$other" } }"#,
      expect: #"{ "sendPasswordReset": { "email": "$$other" } }"#)
    let lenient = try run(text)
    #expect(lenient.failure == nil, "\(String(describing: lenient.failure))")
    #expect(lenient.warnings.contains { $0.contains("$other in the intent is bound by no") })
    let strict = try run(text, strict: true)
    #expect(strict.failure?.problems.contains { $0.contains("$other") } == true)
  }

  @Test("\"$$x\" beside a capture is the literal \"$x\"")
  func escaped() throws {
    let text = #"""
      {
        "name": "capture-escape",
        "clock": "2026-01-01T09:00:00Z",
        "script": {
          "loadSession": [{ "sessionLoaded": { "session": { "uid": "u-1", "providers": ["password"],
            "email": "kim@example.com", "idToken": "id-1", "refreshToken": "rt-1", "expiresIn": 3600 } } }],
          "signInWithPassword": [{ "requestFailed": { "error": { "code": "INVALID_LOGIN_CREDENTIALS" } } }]
        },
        "steps": [
          { "send": "appLaunched", "expect": { "session": { "email": "$mail" } } },
          { "send": "signOutTapped" },
          { "send": { "signInWithEmail": { "email": "$mail", "password": "$$pw" } },
            "expect": { "effects": [{ "signInWithPassword": { "email": "kim@example.com", "password": "$$pw" } }, "notify"] } }
        ]
      }
      """#
    let report = try run(text, strict: true)
    #expect(report.failure == nil, "\(String(describing: report.failure))")
  }

  @Test("an intent with captures is still checked when the file is loaded")
  func checkedAtLoad() {
    #expect(throws: ScenarioError.self) {
      try Scenario.parse(
        scenario(#"{ "sendPasswordReset": { "mail": "$mail" } }"#, expect: #""notify""#),
        file: "capture-intent.json")
    }
  }
}
