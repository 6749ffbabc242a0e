import AuthFlowCore

/// One key of an object in a scenario file: its name, whether a file must give it, its JSON
/// Schema, and what it means. The decoder's allowed and required keys, the JSON Schema and the
/// tables in Docs/ScenarioFormat.md all come from these lists (a test keeps the committed
/// documents equal to what they generate).
public struct KeyDecl: Sendable, Equatable {
  public var name: String
  public var required: Bool
  public var schema: String
  public var doc: String

  init(_ name: String, _ schema: String, required: Bool = false, _ doc: String) {
    self.name = name
    self.required = required
    self.schema = schema
    self.doc = doc
  }
}

/// Every object a scenario file may contain, declared once.
public enum Declarations {
  static let string = ##"{ "type": "string" }"##
  static let flag = ##"{ "type": "boolean", "default": false }"##
  static let seconds = ##"{ "type": "number", "minimum": 0, "maximum": 3155760000 }"##
  static let instant =
    ##"{ "anyOf": [{ "type": "string", "format": "date-time" }, { "type": "number", "minimum": 0, "maximum": 253402300799 }] }"##
  static let strings = ##"{ "type": "array", "items": { "type": "string" } }"##

  /// The top level of a file.
  public static let topLevel: [KeyDecl] = [
    KeyDecl("$schema", string, "ignored by `flowrun`; for editors"),
    KeyDecl(
      "name", ##"{ "type": "string", "description": "Short identifier shown in reports." }"##,
      required: true, "short identifier, shown in reports and used by `--filter`"),
    KeyDecl("description", string, "one sentence a product person would recognise"),
    KeyDecl(
      "clock",
      ##"{ "anyOf": [{ "type": "string", "format": "date-time" }, { "type": "number", "minimum": 0, "maximum": 253402300799 }], "description": "Virtual clock start (ISO 8601, or seconds since 1970), up to 9999-12-31T23:59:59Z; default 1970-01-01T00:00:00Z." }"##,
      "virtual start time, ISO 8601 (`2026-01-01T09:00:00Z`); default the Unix epoch"),
    KeyDecl("config", ##"{ "$ref": "#/$defs/config" }"##, "the machine's policy, see below"),
    KeyDecl(
      "script", ##"{ "$ref": "#/$defs/script" }"##, "the scripted interpreter's answers, see below"),
    KeyDecl(
      "steps", ##"{ "type": "array", "minItems": 1, "items": { "$ref": "#/$defs/step" } }"##,
      required: true, "at least one step"),
    KeyDecl(
      "allowPending", flag,
      "`true` lets requests still be pending at the end (default `false`: a pending request fails the scenario, naming it)"
    ),
    KeyDecl(
      "strict",
      ##"{ "type": "boolean", "default": false, "description": "Unused script entries, answers to requests never issued and answers of the wrong kind fail the scenario." }"##,
      "`true` applies the strict rules below to this file (as `flowrun --strict` does to every file)"
    ),
    KeyDecl(
      "allowUnused",
      ##"{ "type": "boolean", "default": false, "description": "Let script entries go unused under the strict rules." }"##,
      "`true` lets script entries go unused even under the strict rules"),
    KeyDecl(
      "allowWrongKinds",
      ##"{ "type": "boolean", "default": false, "description": "The file answers requests with another kind's results on purpose (a broken interpreter)." }"##,
      "`true`: the file answers requests with results of another request kind on purpose (a broken interpreter); each is replayed as that request's `requestFailed UNEXPECTED_RESPONSE`, with no warning"
    ),
  ]

  /// `config`.
  public static let config: [KeyDecl] = [
    KeyDecl(
      "migration",
      #"{ "enum": "# + names(MigrationPolicy.allCases.map(\.rawValue)) + " }",
      "on an upgrade conflict: `ask` (stop in `migrationRequired`, the default), `merge`, `switchWithoutData`, `stayAnonymous`"
    ),
    KeyDecl(
      "refreshMargin", seconds,
      "seconds before expiry at which a token is due for refresh (default `300`)"),
    KeyDecl(
      "backoffBase", ##"{ "type": "number", "minimum": 1, "maximum": 3155760000 }"##,
      "first retry delay after a failed refresh, also the restore retry delay (default `60`)"),
    KeyDecl(
      "backoffCap", ##"{ "type": "number", "minimum": 1, "maximum": 3155760000 }"##,
      "longest retry delay (default `960`)"),
    KeyDecl(
      "throttledDelay", seconds,
      "shortest retry delay after `TOO_MANY_ATTEMPTS_TRY_LATER` (default `300`)"),
    KeyDecl(
      "providers",
      ##"{ "type": "object", "description": "Providers the app configures, by Firebase provider id, with their traits (each optional; the defaults are the built-in traits of google.com, apple.com and github.com, and a generic OpenID Connect provider's for any other id).", "additionalProperties": { "$ref": "#/$defs/traits" } }"##,
      "providers by Firebase id (`\"microsoft.com\": {…}`), each with its traits (below); a provider AuthFlow does not build in needs nothing else"
    ),
  ]

  /// A provider's traits in `config.providers`.
  public static let traits: [KeyDecl] = [
    KeyDecl(
      "credential",
      #"{ "enum": "# + names(ProviderTraits.CredentialKind.allCases.map(\.rawValue)) + " }",
      "what the consent step hands over: `idToken`, `accessToken`, `oauth1` (token and secret), `authorizationCode` (Firebase's own code flow: the redirect and the session id)"
    ),
    KeyDecl(
      "nonce",
      #"{ "enum": "# + names(ProviderTraits.NonceRule.spellings)
        + #", "description": "none, or hashed (SHA-256 to the provider, raw to Firebase, sent once); optional and requiredSingleUse are the earlier spellings of none and hashed." }"#,
      "`none`, or `hashed` (SHA-256 to the provider, the raw value to Firebase, sent once); files written earlier may say `optional` (`none`) and `requiredSingleUse` (`hashed`)"
    ),
    KeyDecl(
      "afterLinkConflict",
      #"{ "enum": "# + names(ProviderTraits.ConflictRule.allCases.map(\.rawValue)) + " }",
      "`signInWithUpdatedCredential`, or `retryThenReauthorize` (retry with the pending token; if refused, ask the provider again)"
    ),
    KeyDecl(
      "revocation",
      #"{ "enum": "# + names(ProviderTraits.RevocationRule.allCases.map(\.rawValue)) + " }",
      "what deleting the account revokes: `none`, `disconnectOnSignOut`, `authorizationCodeBeforeDeletion`"
    ),
    KeyDecl("sdkSignOut", flag, "whether its SDK is signed out of on sign-out"),
    KeyDecl(
      "givesNameOnce", flag,
      "whether it gives the user's name only on the first authorization (kept in the session)"),
  ]

  /// A step.
  public static let step: [KeyDecl] = [
    KeyDecl(
      "send", ##"{ "$ref": "#/$defs/intent" }"##,
      "send an intent (below); an intent without fields may be a bare string: `\"appLaunched\"`"),
    KeyDecl(
      "respond", ##"{ "$ref": "#/$defs/respond" }"##,
      "answer the oldest pending request of an effect, or exactly one request (below)"),
    KeyDecl(
      "advance",
      ##"{ "type": "number", "minimum": 0, "maximum": 3155760000, "description": "Seconds of virtual time (at most 100 years)." }"##,
      "move the virtual clock forward by seconds; due timers fire in time order"),
    KeyDecl(
      "fire",
      #"{ "enum": "# + names(Vocabulary.timers)
        + #", "description": "Fire a timer now, scheduled or not." }"#,
      "fire a timer now, scheduled or not (a late or duplicate timer on purpose)"),
    KeyDecl(
      "relaunch",
      ##"{ "description": "The process dies and the app starts again: a fresh machine, no timers, no requests in flight, then appLaunched; the store keeps the last session written.", "oneOf": [{ "const": true }, { "$ref": "#/$defs/relaunch" }] }"##,
      "the app's process dies and starts again: `true`, or an object (below)"),
    KeyDecl(
      "storeChanged",
      ##"{ "description": "Another process wrote the shared session store, which now holds this session (null: cleared).", "type": "object", "additionalProperties": false, "required": ["session"], "properties": { "session": { "anyOf": [{ "type": "null" }, { "$ref": "#/$defs/session" }] } } }"##,
      "another process wrote the shared session store: `{\"session\": {…}}` or `{\"session\": null}`"
    ),
    KeyDecl(
      "expect", ##"{ "$ref": "#/$defs/expect" }"##, "what must hold after the action (below)"),
    KeyDecl("note", string, "free text, ignored"),
  ]

  /// The actions a step may take (exactly one of them).
  public static let actions = ["send", "respond", "advance", "fire", "relaunch", "storeChanged"]

  /// `respond`.
  public static let respond: [KeyDecl] = [
    KeyDecl(
      "to", #"{ "enum": "# + names(Vocabulary.requestEffects) + " }", required: true,
      "the request effect answered (a script key, below)"),
    KeyDecl(
      "requestId",
      ##"{ "type": "integer", "description": "Answer exactly this request, pending or not (a stale or duplicate answer on purpose)." }"##,
      "answer exactly that request, pending or not (a stale, duplicate or late answer on purpose)"),
    KeyDecl(
      "with", ##"{ "$ref": "#/$defs/result" }"##, required: true,
      "the answer: one of the results that request kind can get"),
  ]

  /// `relaunch` as an object.
  public static let relaunch: [KeyDecl] = [
    KeyDecl(
      "lostLastWrite",
      ##"{ "type": "boolean", "description": "The previous step's writes never reached the store." }"##,
      "the process died during the previous step's writes: the store holds what it held before that step (never a mix)"
    )
  ]

  /// `expect`.
  public static let expectation: [KeyDecl] = [
    KeyDecl(
      "state", ##"{ "$ref": "#/$defs/stateName" }"##,
      "the top-level state name after the step (see State names)"),
    KeyDecl(
      "path", ##"{ "type": "array", "items": { "$ref": "#/$defs/stateName" } }"##,
      "the exact list of states entered during the step, in order (a state is entered when the name changes)"
    ),
    KeyDecl(
      "effects", ##"{ "type": "array", "items": { "$ref": "#/$defs/effectPattern" } }"##,
      "the exact effects emitted during the step, in order; every effect must be listed"),
    KeyDecl(
      "effectsInclude", ##"{ "type": "array", "items": { "$ref": "#/$defs/effectPattern" } }"##,
      "effects that must occur in this order; others may come between"),
    KeyDecl(
      "effectsExclude", ##"{ "type": "array", "items": { "$ref": "#/$defs/effectName" } }"##,
      "effect names that must not occur"),
    KeyDecl(
      "session",
      ##"{ "anyOf": [{ "type": "null" }, { "type": "object", "propertyNames": { "$ref": "#/$defs/sessionField" } }] }"##,
      "`null` for \"no session\"; an object for a subset of the session's fields (below; `expiresIn` counted from now)"
    ),
    KeyDecl(
      "notifications",
      ##"{ "type": "array", "items": { "$ref": "#/$defs/notificationPattern" } }"##,
      "the exact list of `notify` payloads emitted during the step"),
  ]

  /// A session.
  public static let session: [KeyDecl] = [
    KeyDecl("uid", string, required: true, "the Firebase uid"),
    KeyDecl("anonymous", flag, "`true` for an anonymous account (default `false`)"),
    KeyDecl("providers", strings, "linked provider ids (default `[]`)"),
    KeyDecl("email", string, "the account's email"),
    KeyDecl("idToken", string, required: true, "the Firebase ID token"),
    KeyDecl("refreshToken", string, required: true, "the Secure Token refresh token"),
    KeyDecl(
      "expiresIn",
      ##"{ "type": "number", "minimum": 0, "maximum": 3155760000, "description": "Seconds from the moment the result is delivered." }"##,
      "seconds from the moment the answer is delivered (exactly one of `expiresIn` and `expiresAt`)"
    ),
    KeyDecl("expiresAt", instant, "when the ID token expires, ISO 8601"),
    KeyDecl(
      "pendingCleanup", ##"{ "$ref": "#/$defs/pendingCleanup" }"##,
      "an anonymous account whose deletion a migration still owes (below)"),
    KeyDecl("displayName", string, "the user's name as the provider gave it (Apple's, kept)"),
    KeyDecl(
      "pendingDeletion", ##"{ "$ref": "#/$defs/pendingDeletion" }"##,
      "an account deletion under way (below)"),
    KeyDecl(
      "emailVerified", flag,
      "whether Firebase says the email is verified (default `false`; a reload asks again)"),
    KeyDecl("photoURL", string, "the URL of the user's photo, as Firebase has it"),
    KeyDecl(
      "secondFactors",
      ##"{ "type": "array", "items": { "$ref": "#/$defs/secondFactor" } }"##,
      "the account's second factors, as Firebase last said (default `[]`; objects as in `secondFactorRequired`)"
    ),
  ]

  /// A session's `pendingCleanup`.
  public static let cleanup: [KeyDecl] = [
    KeyDecl("uid", string, required: true, "the anonymous account's uid"),
    KeyDecl("idToken", string, required: true, "its ID token, to delete it with"),
    KeyDecl("dataMoved", flag, "whether the app said `migrationFinished` (default `false`)"),
    KeyDecl(
      "refreshToken", string, "its refresh token, for a fresh ID token when that one expired"),
    KeyDecl("expiresAt", instant, "when its ID token expires"),
  ]

  /// A session's `pendingDeletion`.
  public static let deletion: [KeyDecl] = [
    KeyDecl("revoked", strings, "providers whose grant is revoked already"),
    KeyDecl("deleting", flag, "`true` once only `accounts:delete` is left"),
  ]

  /// A provider credential.
  public static let credential: [KeyDecl] = [
    KeyDecl(
      "provider", string,
      "the provider id; without it, the provider of the request it answers"),
    KeyDecl("idToken", string, "an ID token (shape `idToken`)"),
    KeyDecl("accessToken", string, "an access token (shapes `accessToken`, `oauth1`)"),
    KeyDecl("tokenSecret", string, "an OAuth 1 token's secret (shape `oauth1`)"),
    KeyDecl("rawNonce", string, "the raw nonce the ID token was made with"),
    KeyDecl("pendingToken", string, "Firebase's pending token from a link conflict"),
    KeyDecl(
      "authorizationCode", string, "a single-use authorization code (Apple's, for revocation)"),
    KeyDecl(
      "requestUri", string,
      "the provider's redirect, whose code Firebase exchanges (shape `authorizationCode`)"),
    KeyDecl("sessionId", string, "that flow's session id (shape `authorizationCode`)"),
    KeyDecl("email", string, "the account's email"),
    KeyDecl("givenName", string, "the user's given name (Apple gives it once)"),
    KeyDecl("familyName", string, "the user's family name, likewise"),
  ]

  /// A second factor in a `secondFactorRequired` answer's `factors` (and a session's
  /// `secondFactors`).
  public static let secondFactor: [KeyDecl] = [
    KeyDecl(
      "id", string, required: true, "the enrolment id (`mfaEnrollmentId`) a step names it by"),
    KeyDecl(
      "kind", #"{ "enum": "# + names(SecondFactor.Kind.allCases.map(\.rawValue)) + " }",
      required: true,
      "`totp` (an authenticator app's code) or `phone` (a texted code, sent by `sendSecondFactorCode`)"
    ),
    KeyDecl("displayName", string, "the name the user gave the factor"),
    KeyDecl("phoneHint", string, "a phone factor's number, all but the last digits hidden"),
  ]

  /// An error.
  public static let error: [KeyDecl] = [
    KeyDecl(
      "code",
      ##"{ "type": "string", "description": "Firebase/OAuth code (TOKEN_EXPIRED, EMAIL_EXISTS, …) or NETWORK, TIMEOUT, HTTP_503." }"##,
      required: true,
      "the Firebase/OAuth string (`TOKEN_EXPIRED`, `EMAIL_EXISTS`, …) or `NETWORK`, `TIMEOUT`, `HTTP_503`; its class comes from the code"
    ),
    KeyDecl("message", string, "optional detail"),
  ]

  /// `{ "enum": [...] }`-style lists.
  static func names(_ list: [String]) -> String {
    "[" + list.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
  }

  /// An object's JSON Schema from its keys.
  static func object(_ keys: [KeyDecl], extra: String = "") -> String {
    let required = keys.filter(\.required).map(\.name)
    let properties = keys.map { "\"\($0.name)\": \($0.schema)" }.joined(separator: ", ")
    return "{ \"type\": \"object\", \"additionalProperties\": false"
      + (required.isEmpty ? "" : ", \"required\": \(names(required))") + extra
      + ", \"properties\": { \(properties) } }"
  }
}
