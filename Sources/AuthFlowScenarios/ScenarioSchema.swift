import AuthFlowCore

/// The JSON Schema of the scenario format; Docs/scenario.schema.json holds the same text.
public enum ScenarioSchema {
  /// The schema text.
  public static let text = #"""
    {
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "$id": "https://authflow.dev/schemas/scenario.schema.json",
      "title": "AuthFlow scenario",
      "description": "A sign-in story replayed by flowrun against the pure state machine. See Docs/ScenarioFormat.md.",
      "type": "object",
      "required": \#(names(Declarations.topLevel.filter(\.required).map(\.name))),
      "additionalProperties": false,
      "properties": {
        \#(properties(Declarations.topLevel))
      },
      "$defs": {
        "config": \#(Declarations.object(Declarations.config)),
        "traits": \#(Declarations.object(Declarations.traits)),
        "script": {
          "type": "object",
          "description": "For each effect name, the answers to give, in order.",
          "additionalProperties": false,
          "properties": {
            \#(scriptProperties)
          }
        },
        "answers": {
          "type": "array",
          "items": { "anyOf": [{ "const": "pending" }, { "$ref": "#/$defs/result" }] }
        },
        "writes": {
          "type": "array",
          "items": {
            "anyOf": [
              { "const": "ok" },
              {
                "type": "object", "additionalProperties": false, "required": ["persistFailed"],
                "properties": {
                  "persistFailed": {
                    "type": "object", "additionalProperties": false, "required": ["error"],
                    "properties": { "error": { "$ref": "#/$defs/error" } }
                  }
                }
              }
            ]
          }
        },
        "step": \#(Declarations.object(Declarations.step, extra: stepOneOf)),
        "respond": \#(Declarations.object(Declarations.respond)),
        "relaunch": \#(Declarations.object(Declarations.relaunch)),
        "empty": { "type": "object", "additionalProperties": false },
        "intent": {
          "oneOf": [
            { "enum": \#(names(bare(Intent.Kind.allCases, Vocabulary.fields))) },
            { "type": "object", "additionalProperties": false, "minProperties": 1, "maxProperties": 1,
              "properties": {
                \#(tagged(Intent.Kind.allCases, Vocabulary.fields))
              }
            }
          ]
        },
        "result": {
          "oneOf": [
            { "enum": \#(names(bare(AnswerName.allCases, Vocabulary.fields))) },
            { "type": "object", "additionalProperties": false, "minProperties": 1, "maxProperties": 1,
              "properties": {
                \#(tagged(AnswerName.allCases, Vocabulary.fields))
              }
            }
          ]
        },
        "error": \#(Declarations.object(Declarations.error)),
        "secondFactor": \#(Declarations.object(Declarations.secondFactor)),
        "session": \#(Declarations.object(Declarations.session, extra: #", "oneOf": [{ "required": ["expiresIn"] }, { "required": ["expiresAt"] }]"#)),
        "pendingCleanup": \#(Declarations.object(Declarations.cleanup)),
        "pendingDeletion": \#(Declarations.object(Declarations.deletion)),
        "credential": \#(Declarations.object(Declarations.credential, extra: #", "description": "A provider credential; without provider, the provider of the request it answers.", "anyOf": [{ "required": ["idToken"] }, { "required": ["accessToken"] }, { "required": ["pendingToken"] }, { "required": ["requestUri"] }]"#)),
        "conflictCredential": \#(Declarations.object(Declarations.credential, extra: #", "description": "The credential a credentialAlreadyInUse answer carries: possibly none to retry with (no token at all), when the provider must be asked again.""#)),
        "sessionField": { "enum": \#(names(Vocabulary.sessionFields)) },
        "stateName": {
          "enum": \#(names(Vocabulary.states))
        },
        "effectName": {
          "enum": \#(names(Vocabulary.effects.map(\.name)))
        },
        "notificationName": {
          "enum": \#(names(Vocabulary.notifications.map(\.name)))
        },
        "effectPattern": {
          "description": "An effect name, or {name: {fields}} matching the given fields only (recursively).",
          "anyOf": [
            { "$ref": "#/$defs/effectName" },
            { "type": "object", "minProperties": 1, "maxProperties": 1, "propertyNames": { "$ref": "#/$defs/effectName" }, "additionalProperties": { "type": "object" } }
          ]
        },
        "notificationPattern": {
          "anyOf": [
            { "$ref": "#/$defs/notificationName" },
            { "type": "object", "minProperties": 1, "maxProperties": 1, "propertyNames": { "$ref": "#/$defs/notificationName" }, "additionalProperties": { "type": "object" } }
          ]
        },
        "expect": \#(Declarations.object(Declarations.expectation))
      }
    }
    """#

  /// `"key": schema` for each declared key.
  static func properties(_ keys: [KeyDecl]) -> String {
    keys.map { "\"\($0.name)\": \($0.schema)" }.joined(separator: ",\n        ")
  }

  /// A step has exactly one action.
  static var stepOneOf: String {
    ", \"oneOf\": ["
      + Declarations.actions.map { "{ \"required\": [\"\($0)\"] }" }.joined(separator: ", ") + "]"
  }

  static func names(_ list: [String]) -> String {
    "[" + list.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
  }

  static func list(_ names: [String]) -> String { "{ \"enum\": \(Self.names(names)) }" }

  static var scriptProperties: String {
    let answers = Vocabulary.requestEffects.map { "\"\($0)\": { \"$ref\": \"#/$defs/answers\" }" }
    let writes = Vocabulary.writeEffects.map { "\"\($0)\": { \"$ref\": \"#/$defs/writes\" }" }
    return (answers + writes).joined(separator: ",\n        ")
  }

  /// The names that may be written bare (every field optional).
  static func bare<K: RawRepresentable>(_ kinds: [K], _ fields: (K) -> [FieldSpec]) -> [String]
  where K.RawValue == String {
    kinds.filter { !fields($0).contains(where: \.required) }.map(\.rawValue)
  }

  /// One `"name": {schema}` line per kind.
  static func tagged<K: RawRepresentable>(_ kinds: [K], _ fields: (K) -> [FieldSpec]) -> String
  where K.RawValue == String {
    kinds.map { kind in
      let spec = fields(kind)
      guard !spec.isEmpty else { return "\"\(kind.rawValue)\": { \"$ref\": \"#/$defs/empty\" }" }
      let required = spec.filter(\.required).map(\.name)
      let properties = spec.map { "\"\($0.name)\": \($0.schema)" }.joined(separator: ", ")
      return "\"\(kind.rawValue)\": { \"type\": \"object\", \"additionalProperties\": false"
        + (required.isEmpty ? "" : ", \"required\": \(names(required))")
        + ", \"properties\": { \(properties) } }"
    }.joined(separator: ",\n            ")
  }
}
