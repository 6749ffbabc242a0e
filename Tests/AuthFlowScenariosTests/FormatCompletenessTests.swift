import AuthFlowCore
import Foundation
import Testing

@testable import AuthFlowScenarios

/// The scenario format's documents are the whole format: every key the decoder accepts is in
/// Docs/ScenarioFormat.md and Docs/scenario.schema.json, and every key they name, the decoder
/// accepts.
@Suite("The scenario format's documents are complete")
struct FormatCompletenessTests {
  static let docs = Paths.docs + "/ScenarioFormat.md"
  static let schemaFile = Paths.docs + "/scenario.schema.json"

  @Test("Docs/ScenarioFormat.md holds every generated table, as generated")
  func docTables() throws {
    let text = try String(contentsOfFile: Self.docs, encoding: .utf8)
    let (updated, missing) = ScenarioDocs.apply(to: text)
    #expect(missing.isEmpty, "tables without markers: \(missing)")
    #expect(
      updated == text,
      "Docs/ScenarioFormat.md's tables are out of date: swift run flowrun vocabulary --update Docs/ScenarioFormat.md"
    )
  }

  func schema() throws -> [String: Any] {
    let data = try #require(FileManager.default.contents(atPath: Self.schemaFile))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  func properties(_ object: Any?) -> Set<String> {
    Set(((object as? [String: Any])?["properties"] as? [String: Any] ?? [:]).keys)
  }

  @Test("the JSON Schema has exactly the declared keys, names and fields")
  func schemaKeys() throws {
    let root = try schema()
    let defs = try #require(root["$defs"] as? [String: Any])
    let objects: [(String, Any?, [KeyDecl])] = [
      ("top level", root, Declarations.topLevel), ("config", defs["config"], Declarations.config),
      ("traits", defs["traits"], Declarations.traits), ("step", defs["step"], Declarations.step),
      ("respond", defs["respond"], Declarations.respond),
      ("relaunch", defs["relaunch"], Declarations.relaunch),
      ("expect", defs["expect"], Declarations.expectation),
      ("session", defs["session"], Declarations.session),
      ("pendingCleanup", defs["pendingCleanup"], Declarations.cleanup),
      ("pendingDeletion", defs["pendingDeletion"], Declarations.deletion),
      ("credential", defs["credential"], Declarations.credential),
      ("error", defs["error"], Declarations.error),
    ]
    for (name, object, keys) in objects {
      #expect(properties(object) == Set(keys.map(\.name)), "\(name)")
    }
    #expect(
      properties(defs["script"])
        == Set(Vocabulary.requestEffects + Vocabulary.writeEffects))
    func tagged(_ def: String) -> [String: Any] {
      let oneOf = (defs[def] as? [String: Any])?["oneOf"] as? [[String: Any]] ?? []
      return oneOf.compactMap { $0["properties"] as? [String: Any] }.first ?? [:]
    }
    let intents = tagged("intent")
    #expect(Set(intents.keys) == Set(Intent.Kind.allCases.map(\.rawValue)))
    for kind in Intent.Kind.allCases {
      #expect(properties(intents[kind.rawValue]) == Set(Vocabulary.fields(kind).map(\.name)))
    }
    let results = tagged("result")
    #expect(Set(results.keys) == Set(AnswerName.allCases.map(\.rawValue)))
    for name in AnswerName.allCases {
      #expect(properties(results[name.rawValue]) == Set(Vocabulary.fields(name).map(\.name)))
    }
    func enumeration(_ def: String) -> Set<String> {
      Set((defs[def] as? [String: Any])?["enum"] as? [String] ?? [])
    }
    #expect(enumeration("stateName") == Set(Vocabulary.states))
    #expect(enumeration("effectName") == Set(Vocabulary.effects.map(\.name)))
    #expect(enumeration("notificationName") == Set(Vocabulary.notifications.map(\.name)))
    #expect(enumeration("sessionField") == Set(Vocabulary.sessionFields))
  }

  /// A value that fits a declared key.
  static func sample(_ key: KeyDecl) -> String {
    switch key.name {
    case "config", "expect", "pendingDeletion": return "{}"
    case "providers": return key.schema.contains("\"array\"") ? "[]" : "{}"
    case "script": return #"{"loadSession": ["pending"]}"#
    case "steps": return #"[{"send": "appLaunched"}]"#
    case "send": return #""appLaunched""#
    case "respond":
      return #"{"to": "loadSession", "with": {"sessionLoaded": {"session": null}}}"#
    case "relaunch": return "true"
    case "storeChanged": return #"{"session": null}"#
    case "pendingCleanup": return #"{"uid": "a", "idToken": "t"}"#
    case "with": return #"{"requestFailed": {"error": {"code": "NETWORK"}}}"#
    case "to": return #""loadSession""#
    case "session": return "null"
    case "state": return #""signedOut""#
    default: break
    }
    let s = key.schema
    if s.contains("\"enum\""), let start = s.range(of: "[\""),
      let end = s.range(of: "\"", range: start.upperBound..<s.endIndex)
    {
      return "\"" + s[start.upperBound..<end.lowerBound] + "\""
    }
    if s.contains("\"array\"") { return "[]" }
    if s.contains("date-time") { return #""2026-01-01T00:00:00Z""# }
    if s.contains("boolean") { return "true" }
    if s.contains("\"integer\"") { return "4" }
    if s.contains("\"number\"") { return "60" }
    return #""x""#
  }

  /// The declared keys of an object, filled with samples; `extra` adds one more.
  static func object(_ keys: [KeyDecl], only required: Bool = true, plus extra: KeyDecl? = nil)
    -> String
  {
    var members = keys.filter { $0.required || !required }
    if let extra, !members.contains(where: { $0.name == extra.name }) { members.append(extra) }
    return "{" + members.map { "\"\($0.name)\": \(sample($0))" }.joined(separator: ", ") + "}"
  }

  static let session = #""uid": "u", "idToken": "i", "refreshToken": "r""#

  /// A file that uses `key` of the object `where` names.
  static func file(using key: KeyDecl, in place: String) -> String {
    let skeleton = { (inner: String) in
      #"{"name": "t", "steps": [{"send": "appLaunched"}], "# + inner + "}"
    }
    switch place {
    case "topLevel": return object(Declarations.topLevel, plus: key)
    case "config": return skeleton(#""config": "# + object(Declarations.config, plus: key))
    case "traits":
      return skeleton(#""config": {"providers": {"x.example": "# + object([], plus: key) + "}}")
    case "step":
      let step =
        Declarations.actions.contains(key.name)
        ? "{\"\(key.name)\": \(sample(key))}"
        : "{\"send\": \"appLaunched\", \"\(key.name)\": \(sample(key))}"
      return #"{"name": "t", "steps": ["# + step + "]}"
    case "respond":
      return #"{"name": "t", "steps": [{"respond": "# + object(Declarations.respond, plus: key)
        + "}]}"
    case "relaunch":
      return #"{"name": "t", "steps": [{"relaunch": {"# + "\"\(key.name)\": \(sample(key))}}]}"
    case "expect":
      return #"{"name": "t", "steps": [{"send": "appLaunched", "expect": {"#
        + "\"\(key.name)\": \(sample(key))}}]}"
    case "session":
      let expiry = key.name == "expiresAt" ? "" : #", "expiresIn": 60"#
      let extra = key.required || key.name == "expiresIn" ? "" : ", \"\(key.name)\": \(sample(key))"
      return skeleton(
        #""script": {"loadSession": [{"sessionLoaded": {"session": {"# + session + expiry + extra
          + "}}}]}")
    case "pendingCleanup":
      return skeleton(
        #""script": {"loadSession": [{"sessionLoaded": {"session": {"# + session
          + #", "expiresIn": 60, "pendingCleanup": "# + object(Declarations.cleanup, plus: key)
          + "}}}]}")
    case "pendingDeletion":
      return skeleton(
        #""script": {"loadSession": [{"sessionLoaded": {"session": {"# + session
          + #", "expiresIn": 60, "pendingDeletion": "# + object([], plus: key) + "}}}]}")
    case "credential":
      return skeleton(
        #""script": {"authorize": [{"providerSucceeded": {"credential": {"idToken": "g""#
          + (key.name == "idToken" ? "" : ", \"\(key.name)\": \(sample(key))") + "}}}]}")
    default:  // error
      return skeleton(
        #""script": {"signUpAnonymously": [{"requestFailed": {"error": "#
          + object(Declarations.error, plus: key) + "}}]}")
    }
  }

  static let places: [(String, [KeyDecl])] = [
    ("topLevel", Declarations.topLevel), ("config", Declarations.config),
    ("traits", Declarations.traits), ("step", Declarations.step),
    ("respond", Declarations.respond), ("relaunch", Declarations.relaunch),
    ("expect", Declarations.expectation), ("session", Declarations.session),
    ("pendingCleanup", Declarations.cleanup), ("pendingDeletion", Declarations.deletion),
    ("credential", Declarations.credential), ("error", Declarations.error),
  ]

  @Test("every declared key is accepted by the decoder where it belongs, and a stranger is not")
  func decoderAcceptsEveryKey() throws {
    var count = 0
    for (place, keys) in Self.places {
      for key in keys {
        let text = Self.file(using: key, in: place)
        do {
          _ = try Scenario.parse(text, file: "k.json")
          count += 1
        } catch {
          Issue.record("\(place).\(key.name) is declared but refused: \(error)\n\(text)")
        }
      }
      // The same object with a key nobody declared is refused, naming it.
      let stranger = KeyDecl("zzUndeclared", #"{ "type": "string" }"#, "")
      let text = Self.file(using: stranger, in: place)
      #expect(
        throws: ScenarioError.self, "\(place) accepted an undeclared key: \(text)"
      ) { try Scenario.parse(text, file: "k.json") }
    }
    #expect(count == Self.places.map(\.1.count).reduce(0, +))
  }

  @Test("a scenario file's intent reads as its JSON does, every declared field given")
  func intentsReadAsTheirJSON() throws {
    for kind in Intent.Kind.allCases {
      let fields = kind.fields.map { field in
        let value =
          switch field.type {
          case .text: #""x""#
          case .provider: #""oidc.sample""#
          case .flag: "true"
          case .migrationChoice: #""merge""#
          case .tokenRequestID: "7"
          case .appVerification: #""proof""#
          }
        return "\"\(field.name)\": \(value)"
      }
      let text = "{\"\(kind.rawValue)\": {\(fields.joined(separator: ", "))}}"
      let value = try JSONValue.parse(text)
      let read = try JSONReader(file: "i.json").intent(value, "send")
      #expect(read.kind == kind)
      #expect(try JSONDecoder().decode(Intent.self, from: Data(text.utf8)) == read, "\(text)")
      let written = ScenarioEncoding.intent(read)
      #expect(try JSONReader(file: "i.json").intent(written, "send") == read, "\(text)")
    }
  }

  @Test(
    "every intent, result (for each request kind that takes it), effect and notification decodes")
  func decoderAcceptsEveryName() throws {
    func parse(_ text: String) -> Bool { (try? Scenario.parse(text, file: "n.json")) != nil }
    for kind in Intent.Kind.allCases {
      // A profile update must change something: it is sent with one of its optional fields.
      let fields = Vocabulary.fields(kind).filter { $0.required || kind == .updateProfile }.map {
        f in
        "\"\(f.name)\": "
          + (f.name == "requestId" ? "1" : f.name == "choice" ? "\"merge\"" : "\"x.example\"")
      }
      let send = "{\"\(kind.rawValue)\": {\(fields.joined(separator: ", "))}}"
      #expect(parse(#"{"name": "t", "steps": [{"send": "# + send + "}]}"), "intent \(kind)")
    }
    for effect in Vocabulary.requestEffects {
      let kind = try #require(Vocabulary.requestKind(effect))
      for name in Vocabulary.answers(for: kind) {
        let value: String
        switch name {
        case .sessionLoaded: value = #"{"sessionLoaded": {"session": null}}"#
        case .providerSucceeded: value = #"{"providerSucceeded": {"credential": {"idToken": "g"}}}"#
        case .signedIn:
          value =
            #"{"signedIn": {"session": {"uid": "u", "idToken": "i", "refreshToken": "r", "expiresIn": 60}}}"#
        case .passwordChanged:
          value =
            #"{"passwordChanged": {"session": {"uid": "u", "idToken": "i", "refreshToken": "r", "expiresIn": 60}}}"#
        case .credentialAlreadyInUse: value = #"{"credentialAlreadyInUse": {"credential": {}}}"#
        case .tokenRefreshed:
          value = #"{"tokenRefreshed": {"idToken": "i", "refreshToken": "r", "expiresIn": 60}}"#
        case .providerUnlinked: value = #"{"providerUnlinked": {"providers": []}}"#
        case .actionCodeChecked:
          value = #"{"actionCodeChecked": {"operation": "PASSWORD_RESET"}}"#
        case .passwordResetConfirmed: value = #"{"passwordResetConfirmed": {}}"#
        case .actionCodeApplied:
          value = #"{"actionCodeApplied": {"email": "m@example.com"}}"#
        case .accountReloaded:
          value = #"{"accountReloaded": {"providers": [], "emailVerified": true}}"#
        case .profileUpdated:
          value = #"{"profileUpdated": {"providers": [], "photoURL": "https://example.com/a.png"}}"#
        case .requestFailed, .providerFailed:
          value = "{\"\(name)\": {\"error\": {\"code\": \"X\"}}}"
        case .secondFactorRequired:
          value =
            #"{"secondFactorRequired": {"pendingCredential": "p", "factors": [{"id": "f", "kind": "totp"}]}}"#
        case .secondFactorCodeSent: value = #"{"secondFactorCodeSent": {"sessionInfo": "s"}}"#
        case .totpSecretIssued:
          value = #"{"totpSecretIssued": {"sharedSecretKey": "JBSWY3DP", "sessionInfo": "s"}}"#
        case .secondFactorWithdrawn: value = #"{"secondFactorWithdrawn": {}}"#
        case .totpEnrolled:
          value = #"{"totpEnrolled": {"idToken": "i", "refreshToken": "r", "expiresIn": 60}}"#
        case .phoneEnrolled:
          value = #"{"phoneEnrolled": {"idToken": "i", "refreshToken": "r", "expiresIn": 60}}"#
        case .verificationCodeSent: value = #"{"verificationCodeSent": {"sessionInfo": "s"}}"#
        case .phoneNumberInUse:
          value = #"{"phoneNumberInUse": {"phoneNumber": "+15555550100", "temporaryProof": "t"}}"#
        case .accountExistsWithDifferentCredential:
          value = #"{"accountExistsWithDifferentCredential": {"email": "m@example.com"}}"#
        case .providerCancelled, .accountDeleted, .passwordResetSent, .tokenRevoked,
          .verificationEmailSent, .signInLinkSent:
          value = "\"\(name)\""
        }
        let text =
          #"{"name": "t", "steps": [{"send": "appLaunched"}], "script": {"#
          + "\"\(effect)\": [\(value)]}}"
        let scenario = try Scenario.parse(text, file: "n.json")
        guard case .answer(let t)? = scenario.script[effect]?.first else {
          Issue.record("\(effect) \(name): no answer")
          continue
        }
        #expect(t.wrongKind == nil, "\(effect) takes \(name)")
        #expect(t.answer.kind == kind)
        // The answer type's declared list (`RequestOutcome.names`) and its case's own name agree.
        #expect(t.answer.outcomeName == name.rawValue, "\(effect) \(name)")
      }
    }
    for (name, fields) in Vocabulary.effects + Vocabulary.notifications {
      let list = Vocabulary.effects.contains { $0.name == name } ? "effects" : "notifications"
      let payload = fields.map { "\"\($0)\": null" }.joined(separator: ", ")
      let text =
        #"{"name": "t", "steps": [{"send": "appLaunched", "expect": {"#
        + "\"\(list)\": [{\"\(name)\": {\(payload)}}]}}]}"
      #expect(parse(text), "\(list) \(name) with \(fields)")
    }
  }

  @Test("an answer's name is its Swift case's, the one the JSON encoding writes")
  func answerNames() {
    let answers: [Answer] = [
      .loadSession(1, .sessionLoaded(session: nil)), .authorize(1, .providerCancelled),
      .deleteAccount(1, .accountDeleted), .sendPasswordReset(1, .passwordResetSent),
      .revokeToken(1, .tokenRevoked), .unlinkProvider(1, .providerUnlinked(providers: [])),
      .refreshToken(1, .requestFailed(error: AuthError(code: "X"))),
      .authorize(1, .providerFailed(error: AuthError(code: "X"))),
      .refreshToken(
        1, .tokenRefreshed(Tokens(idToken: "i", refreshToken: "r", expiresAt: Instant(9)))),
    ]
    for answer in answers {
      let key = Matching.split(JSONValue.encoding(answer.outcome)).0
      #expect(key == answer.outcomeName)
      #expect(AnswerName(rawValue: key) != nil)
    }
  }
}
