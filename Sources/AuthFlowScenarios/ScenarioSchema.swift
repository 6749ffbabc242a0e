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
      "required": ["name", "steps"],
      "additionalProperties": false,
      "properties": {
        "$schema": { "type": "string" },
        "name": { "type": "string", "description": "Short identifier shown in reports." },
        "description": { "type": "string" },
        "clock": { "anyOf": [{ "type": "string", "format": "date-time" }, { "type": "number", "minimum": 0, "maximum": 253402300799 }], "description": "Virtual clock start (ISO 8601, or seconds since 1970), up to 9999-12-31T23:59:59Z; default 1970-01-01T00:00:00Z." },
        "config": {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "migration": { "enum": \#(names(MigrationPolicy.allCases.map(\.rawValue))) },
            "refreshMargin": { "type": "number", "minimum": 0, "maximum": 3155760000 },
            "backoffBase": { "type": "number", "minimum": 1, "maximum": 3155760000 },
            "backoffCap": { "type": "number", "minimum": 1, "maximum": 3155760000 },
            "throttledDelay": { "type": "number", "minimum": 0, "maximum": 3155760000 },
            "providers": {
              "type": "object",
              "description": "Providers the app configures, by Firebase provider id, with their traits (each optional; the defaults are the built-in traits of google.com, apple.com and github.com, and a generic OpenID Connect provider's for any other id).",
              "additionalProperties": {
                "type": "object", "additionalProperties": false,
                "properties": {
                  "credential": { "enum": \#(names(ProviderTraits.CredentialKind.allCases.map(\.rawValue))) },
                  "nonce": { "enum": \#(names(ProviderTraits.NonceRule.spellings)), "description": "none, or hashed (SHA-256 to the provider, raw to Firebase, sent once); optional and requiredSingleUse are the earlier spellings of none and hashed." },
                  "afterLinkConflict": { "enum": \#(names(ProviderTraits.ConflictRule.allCases.map(\.rawValue))) },
                  "revocation": { "enum": \#(names(ProviderTraits.RevocationRule.allCases.map(\.rawValue))) },
                  "sdkSignOut": { "type": "boolean", "default": false },
                  "givesNameOnce": { "type": "boolean", "default": false }
                }
              }
            }
          }
        },
        "script": {
          "type": "object",
          "description": "For each effect name, the answers to give, in order.",
          "additionalProperties": false,
          "properties": {
            \#(scriptProperties)
          }
        },
        "steps": { "type": "array", "minItems": 1, "items": { "$ref": "#/$defs/step" } },
        "allowPending": { "type": "boolean", "default": false },
        "allowUnused": { "type": "boolean", "default": false, "description": "Let script entries go unused under the strict rules." },
        "strict": { "type": "boolean", "default": false, "description": "Unused script entries and answers to requests never issued fail the scenario." }
      },
      "$defs": {
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
        "step": {
          "type": "object",
          "additionalProperties": false,
          "oneOf": [
            { "required": ["send"] },
            { "required": ["respond"] },
            { "required": ["advance"] },
            { "required": ["fire"] },
            { "required": ["relaunch"] },
            { "required": ["storeChanged"] }
          ],
          "properties": {
            "note": { "type": "string" },
            "send": { "$ref": "#/$defs/intent" },
            "respond": {
              "type": "object", "additionalProperties": false, "required": ["to", "with"],
              "properties": {
                "requestId": { "type": "integer", "description": "Answer exactly this request, pending or not (a stale or duplicate answer on purpose)." },
                "to": \#(list(Vocabulary.requestEffects)),
                "with": { "$ref": "#/$defs/result" }
              }
            },
            "advance": { "type": "number", "minimum": 0, "maximum": 3155760000, "description": "Seconds of virtual time (at most 100 years)." },
            "fire": { "enum": \#(names(Vocabulary.timers)), "description": "Fire a timer now, scheduled or not." },
            "storeChanged": {
              "description": "Another process wrote the shared session store, which now holds this session (null: cleared).",
              "type": "object", "additionalProperties": false, "required": ["session"],
              "properties": { "session": { "anyOf": [{ "type": "null" }, { "$ref": "#/$defs/session" }] } }
            },
            "relaunch": {
              "description": "The process dies and the app starts again: a fresh machine, no timers, no requests in flight, then appLaunched; the store keeps the last session written.",
              "oneOf": [
                { "const": true },
                { "type": "object", "additionalProperties": false,
                  "properties": { "lostLastWrite": { "type": "boolean", "description": "The previous step's writes never reached the store." } } }
              ]
            },
            "expect": { "$ref": "#/$defs/expect" }
          }
        },
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
        "error": {
          "type": "object", "additionalProperties": false, "required": ["code"],
          "properties": {
            "code": { "type": "string", "description": "Firebase/OAuth code (TOKEN_EXPIRED, EMAIL_EXISTS, …) or NETWORK, TIMEOUT, HTTP_503." },
            "message": { "type": "string" }
          }
        },
        "session": {
          "type": "object", "additionalProperties": false,
          "required": ["uid", "idToken", "refreshToken"],
          "oneOf": [{ "required": ["expiresIn"] }, { "required": ["expiresAt"] }],
          "properties": {
            "uid": { "type": "string" },
            "anonymous": { "type": "boolean", "default": false },
            "providers": { "type": "array", "items": { "type": "string" } },
            "email": { "type": "string" },
            "idToken": { "type": "string" },
            "refreshToken": { "type": "string" },
            "expiresIn": { "type": "number", "minimum": 0, "maximum": 3155760000, "description": "Seconds from the moment the result is delivered." },
            "expiresAt": { "anyOf": [{ "type": "string", "format": "date-time" }, { "type": "number", "minimum": 0, "maximum": 253402300799 }] },
            "displayName": { "type": "string" },
            "pendingDeletion": {
              "type": "object", "additionalProperties": false,
              "properties": { "revoked": { "type": "array", "items": { "type": "string" } }, "deleting": { "type": "boolean", "default": false } }
            },
            "pendingCleanup": {
              "type": "object", "additionalProperties": false, "required": ["uid", "idToken"],
              "properties": { "uid": { "type": "string" }, "idToken": { "type": "string" }, "dataMoved": { "type": "boolean", "default": false }, "refreshToken": { "type": "string" }, "expiresAt": { "anyOf": [{ "type": "string", "format": "date-time" }, { "type": "number", "minimum": 0, "maximum": 253402300799 }] } }
            }
          }
        },
        "credential": {
          "type": "object", "additionalProperties": false,
          "description": "A provider credential; without provider, the provider of the request it answers.",
          "anyOf": [{ "required": ["idToken"] }, { "required": ["accessToken"] }, { "required": ["pendingToken"] }],
          "properties": { \#(credentialProperties) }
        },
        "conflictCredential": {
          "type": "object", "additionalProperties": false,
          "description": "The credential a credentialAlreadyInUse answer carries: possibly none to retry with (no token at all), when the provider must be asked again.",
          "properties": { \#(credentialProperties) }
        },
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
        "expect": {
          "type": "object", "additionalProperties": false,
          "properties": {
            "state": { "$ref": "#/$defs/stateName" },
            "path": { "type": "array", "items": { "$ref": "#/$defs/stateName" } },
            "effects": { "type": "array", "items": { "$ref": "#/$defs/effectPattern" } },
            "effectsInclude": { "type": "array", "items": { "$ref": "#/$defs/effectPattern" } },
            "effectsExclude": { "type": "array", "items": { "$ref": "#/$defs/effectName" } },
            "session": {
              "anyOf": [
                { "type": "null" },
                { "type": "object", "propertyNames": { "enum": \#(names(Vocabulary.sessionFields)) } }
              ]
            },
            "notifications": { "type": "array", "items": { "$ref": "#/$defs/notificationPattern" } }
          }
        }
      }
    }
    """#

  static func names(_ list: [String]) -> String {
    "[" + list.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
  }

  static func list(_ names: [String]) -> String { "{ \"enum\": \(Self.names(names)) }" }

  static var credentialProperties: String {
    Vocabulary.credentialFields.map { "\"\($0)\": { \"type\": \"string\" }" }.joined(
      separator: ", ")
  }

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
