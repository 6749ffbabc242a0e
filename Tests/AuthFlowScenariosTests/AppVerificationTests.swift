import AuthFlowCore
import AuthFlowScenarios
import Foundation
import Testing

/// The app's proof that a text is asked for by the app: a reCAPTCHA token (a string, as every
/// earlier file writes it), iOS's receipt and secret, or a reCAPTCHA Enterprise token.
@Suite("app verification")
struct AppVerificationTests {
  func scenario(proof: String, expected: String) -> String {
    #"""
    {
      "name": "app-proof",
      "script": { "loadSession": [{ "sessionLoaded": { "session": null } }],
        "sendVerificationCode": [{ "verificationCodeSent": { "sessionInfo": "s-1" } }] },
      "steps": [
        { "send": "appLaunched", "expect": { "state": "signedOut" } },
        { "send": { "sendPhoneCode": { "phoneNumber": "+15555550100", "appVerification": \#(proof) } },
          "expect": { "effectsInclude": [{ "sendVerificationCode": { "phoneNumber": "+15555550100",
            "appVerification": \#(expected) } }], "state": "awaitingPhoneCode" } }
      ]
    }
    """#
  }

  func run(_ text: String) throws -> ScenarioReport {
    ScenarioRunner.run(try Scenario.parse(text, file: "app-proof.json"), strict: true)
  }

  @Test(
    "each kind is sent as given, and an expectation tells the kinds apart",
    arguments: [
      #""rc-token""#, #"{ "recaptchaToken": "rc-token" }"#,
      #"{ "iosReceipt": "r-1", "iosSecret": "s-1" }"#, #"{ "captchaResponse": "ent-1" }"#,
    ])
  func kinds(proof: String) throws {
    let report = try run(scenario(proof: proof, expected: proof))
    #expect(report.failure == nil, "\(String(describing: report.failure))")
    // A reCAPTCHA token written either way is the same proof; another kind is not.
    let other =
      proof.contains("iosReceipt")
      ? #"{ "captchaResponse": "ent-1" }"# : #"{ "iosReceipt": "r-1", "iosSecret": "s-1" }"#
    #expect(try run(scenario(proof: proof, expected: other)).failure != nil)
  }

  @Test(
    "a proof of no kind, of two kinds, or half of one is a clear error at load",
    arguments: [
      (#"{}"#, "no proof"), (#"{ "iosReceipt": "r" }"#, "iosReceipt and iosSecret go together"),
      (#"{ "recaptchaToken": "a", "captchaResponse": "b" }"#, "one kind of proof only"),
      (#"{ "iosSecret": "" , "iosReceipt": "r" }"#, "iosSecret is empty"),
      (#"{ "iosToken": "r" }"#, "unknown field \"iosToken\""),
      (#"{ "iosReceipt": 1, "iosSecret": "s" }"#, "expected a string"),
      (#"7"#, "expected a reCAPTCHA token (a string) or an object"),
    ])
  func refused(proof: String, message: String) {
    do {
      _ = try Scenario.parse(scenario(proof: proof, expected: #""x""#), file: "app-proof.json")
      Issue.record("\(proof) was accepted")
    } catch {
      let text = "\(error)"
      #expect(text.contains(message), "\(text)")
      #expect(text.contains("appVerification"), "the error names the field: \(text)")
    }
  }

  @Test(
    "JSON: a reCAPTCHA token is a string as before; the other kinds are objects; secrets never print"
  )
  func codable() throws {
    let proofs: [AppVerification] = [
      "rc", .iosApp(receipt: "r-1", secret: "s-1"), .recaptchaEnterprise(token: "e-1"),
    ]
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let texts = try proofs.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
    #expect(
      texts == [
        #""rc""#, #"{"iosReceipt":"r-1","iosSecret":"s-1"}"#, #"{"captchaResponse":"e-1"}"#,
      ])
    for (proof, text) in zip(proofs, texts) {
      #expect(try JSONDecoder().decode(AppVerification.self, from: Data(text.utf8)) == proof)
    }
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(AppVerification.self, from: Data(#"{"iosReceipt":"r"}"#.utf8))
    }
    let intent = Intent.sendPhoneCode(
      phoneNumber: "+15555550100", appVerification: .iosApp(receipt: "r-1", secret: "s-1"))
    #expect(!"\(intent)".contains("s-1") && !"\(intent)".contains("r-1"), "\(intent)")
  }
}
