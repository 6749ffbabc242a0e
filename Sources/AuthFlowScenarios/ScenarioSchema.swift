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
        "clock": { "type": "string", "format": "date-time", "description": "Virtual clock start (ISO 8601); default 1970-01-01T00:00:00Z." },
        "config": {
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "migration": { "enum": ["ask", "merge", "switchWithoutData", "stayAnonymous"] },
            "refreshMargin": { "type": "number", "minimum": 0 },
            "backoffBase": { "type": "number", "minimum": 1 },
            "backoffCap": { "type": "number", "minimum": 1 },
            "throttledDelay": { "type": "number", "minimum": 0 }
          }
        },
        "script": {
          "type": "object",
          "description": "For each effect name, the answers to give, in order.",
          "additionalProperties": false,
          "properties": {
            "loadSession": { "$ref": "#/$defs/answers" },
            "signUpAnonymously": { "$ref": "#/$defs/answers" },
            "authorizeWithGoogle": { "$ref": "#/$defs/answers" },
            "signInWithIdp": { "$ref": "#/$defs/answers" },
            "signInWithPassword": { "$ref": "#/$defs/answers" },
            "signUpWithPassword": { "$ref": "#/$defs/answers" },
            "sendPasswordReset": { "$ref": "#/$defs/answers" },
            "refreshToken": { "$ref": "#/$defs/answers" },
            "deleteAccount": { "$ref": "#/$defs/answers" },
            "persistSession": { "$ref": "#/$defs/writes" },
            "clearSession": { "$ref": "#/$defs/writes" }
          }
        },
        "steps": { "type": "array", "minItems": 1, "items": { "$ref": "#/$defs/step" } },
        "allowPending": { "type": "boolean", "default": false }
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
            { "required": ["fire"] }
          ],
          "properties": {
            "note": { "type": "string" },
            "send": { "$ref": "#/$defs/intent" },
            "respond": {
              "type": "object", "additionalProperties": false, "required": ["to", "with"],
              "properties": {
                "requestId": { "type": "integer", "description": "Answer exactly this request, pending or not (a stale or duplicate answer on purpose)." },
                "to": { "enum": ["loadSession", "signUpAnonymously", "authorizeWithGoogle", "signInWithIdp", "signInWithPassword", "signUpWithPassword", "sendPasswordReset", "refreshToken", "deleteAccount"] },
                "with": { "$ref": "#/$defs/result" }
              }
            },
            "advance": { "type": "number", "minimum": 0, "description": "Seconds of virtual time." },
            "fire": { "enum": ["tokenRefresh", "restoreRetry"], "description": "Fire a timer now, scheduled or not." },
            "expect": { "$ref": "#/$defs/expect" }
          }
        },
        "empty": { "type": "object", "additionalProperties": false },
        "intent": {
          "oneOf": [
            { "enum": ["appLaunched", "signInAnonymouslyTapped", "signInWithGoogleTapped", "linkGoogleTapped", "migrationFinished", "reauthenticateTapped", "signOutTapped", "deleteAccountTapped", "cancelTapped"] },
            { "type": "object", "additionalProperties": false, "minProperties": 1, "maxProperties": 1,
              "properties": {
                "appLaunched": { "$ref": "#/$defs/empty" },
                "signInAnonymouslyTapped": { "$ref": "#/$defs/empty" },
                "signInWithGoogleTapped": { "$ref": "#/$defs/empty" },
                "linkGoogleTapped": { "$ref": "#/$defs/empty" },
                "signInWithEmail": { "$ref": "#/$defs/emailPassword" },
                "createAccount": { "$ref": "#/$defs/emailPassword" },
                "sendPasswordReset": { "type": "object", "additionalProperties": false, "required": ["email"], "properties": { "email": { "type": "string" } } },
                "migrationDecided": { "type": "object", "additionalProperties": false, "required": ["choice"], "properties": { "choice": { "enum": ["merge", "switchWithoutData", "stayAnonymous"] } } },
                "migrationFinished": { "$ref": "#/$defs/empty" },
                "reauthenticateTapped": { "$ref": "#/$defs/empty" },
                "signOutTapped": { "type": "object", "additionalProperties": false, "properties": { "discardAnonymousData": { "type": "boolean", "default": false } } },
                "deleteAccountTapped": { "$ref": "#/$defs/empty" },
                "cancelTapped": { "$ref": "#/$defs/empty" },
                "idTokenRequested": { "type": "object", "additionalProperties": false, "required": ["requestId"], "properties": { "requestId": { "type": "integer" }, "forceRefresh": { "type": "boolean", "default": false } } }
              }
            }
          ]
        },
        "emailPassword": {
          "type": "object", "additionalProperties": false, "required": ["email", "password"],
          "properties": { "email": { "type": "string" }, "password": { "type": "string" } }
        },
        "result": {
          "oneOf": [
            { "enum": ["providerCancelled", "accountDeleted", "passwordResetSent"] },
            { "type": "object", "additionalProperties": false, "minProperties": 1, "maxProperties": 1,
              "properties": {
                "sessionLoaded": { "type": "object", "additionalProperties": false, "required": ["session"], "properties": { "session": { "anyOf": [{ "type": "null" }, { "$ref": "#/$defs/session" }] } } },
                "providerSucceeded": { "type": "object", "additionalProperties": false, "required": ["credential"], "properties": { "credential": { "$ref": "#/$defs/credential" } } },
                "providerCancelled": { "$ref": "#/$defs/empty" },
                "providerFailed": { "$ref": "#/$defs/failure" },
                "signedIn": { "type": "object", "additionalProperties": false, "required": ["session"], "properties": { "session": { "$ref": "#/$defs/session" } } },
                "credentialAlreadyInUse": { "type": "object", "additionalProperties": false, "required": ["credential"], "properties": { "credential": { "$ref": "#/$defs/credential" }, "email": { "type": "string" } } },
                "requestFailed": { "$ref": "#/$defs/failure" },
                "tokenRefreshed": { "type": "object", "additionalProperties": false, "required": ["idToken", "refreshToken", "expiresIn"], "properties": { "idToken": { "type": "string" }, "refreshToken": { "type": "string" }, "expiresIn": { "type": "number", "minimum": 0 } } },
                "accountDeleted": { "$ref": "#/$defs/empty" },
                "passwordResetSent": { "$ref": "#/$defs/empty" }
              }
            }
          ]
        },
        "failure": {
          "type": "object", "additionalProperties": false, "required": ["error"],
          "properties": { "error": { "$ref": "#/$defs/error" } }
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
            "expiresIn": { "type": "number", "minimum": 0, "description": "Seconds from the moment the result is delivered." },
            "expiresAt": { "type": "string", "format": "date-time" },
            "pendingCleanup": {
              "type": "object", "additionalProperties": false, "required": ["uid", "idToken"],
              "properties": { "uid": { "type": "string" }, "idToken": { "type": "string" }, "dataMoved": { "type": "boolean", "default": false } }
            }
          }
        },
        "credential": {
          "type": "object", "additionalProperties": false, "required": ["idToken"],
          "properties": { "idToken": { "type": "string" }, "accessToken": { "type": "string" }, "email": { "type": "string" } }
        },
        "stateName": {
          "enum": ["starting", "restoring", "signedOut", "signingInAnonymously", "anonymous", "awaitingProvider", "googleAuthenticated", "migrationRequired", "migrating", "firebaseAuthenticated", "reauthenticationRequired", "deletingAccount", "signingInWithEmail", "creatingAccount", "sendingPasswordReset"]
        },
        "effectName": {
          "enum": ["loadSession", "persistSession", "clearSession", "signUpAnonymously", "authorizeWithGoogle", "signInWithIdp", "signInWithPassword", "signUpWithPassword", "sendPasswordReset", "refreshToken", "deleteAccount", "signOutProvider", "scheduleTimer", "cancelTimer", "deliverIDToken", "notify"]
        },
        "notificationName": {
          "enum": ["migrationReady", "sessionExpired", "signedOutAfterError", "userMismatch", "error", "passwordResetSent"]
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
                { "type": "object", "propertyNames": { "enum": ["uid", "anonymous", "providers", "email", "idToken", "refreshToken", "expiresIn", "expiresAt", "pendingCleanup"] } }
              ]
            },
            "notifications": { "type": "array", "items": { "$ref": "#/$defs/notificationPattern" } }
          }
        }
      }
    }
    """#
}
