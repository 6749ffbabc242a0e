import AuthFlowCore

/// One field of a tagged value in a scenario file: its name, whether a file must give it, and
/// its JSON Schema (the schema text is built from these).
public struct FieldSpec: Sendable, Equatable {
  public var name: String
  public var required: Bool
  public var schema: String

  init(_ name: String, _ schema: String, required: Bool = true) {
    self.name = name
    self.required = required
    self.schema = schema
  }

  static func optional(_ name: String, _ schema: String) -> FieldSpec {
    FieldSpec(name, schema, required: false)
  }
}

/// The name of an answer in a scenario file: the case names of the core's answer types (a test
/// keeps the two in step). Which request kinds each answers is `Vocabulary.answers(for:)`.
public enum AnswerName: String, Hashable, Sendable, CaseIterable {
  case sessionLoaded, providerSucceeded, providerCancelled, providerFailed, signedIn
  case credentialAlreadyInUse, requestFailed, tokenRefreshed, accountDeleted, passwordResetSent
  case tokenRevoked, providerUnlinked, accountReloaded, verificationEmailSent, actionCodeApplied
  case actionCodeChecked, passwordResetConfirmed, passwordChanged, profileUpdated, signInLinkSent
  case secondFactorRequired, secondFactorCodeSent, accountExistsWithDifferentCredential
  case totpSecretIssued, totpEnrolled, secondFactorWithdrawn, phoneEnrolled, verificationCodeSent
  case phoneNumberInUse
}

/// The vocabulary a scenario file may use. Names come from the core's kind enums (one list
/// each); this file adds only each name's fields, by an exhaustive switch over the kinds.
public enum Vocabulary {
  static let string = ##"{ "type": "string" }"##
  static let boolean = ##"{ "type": "boolean", "default": false }"##
  static let appProof =
    ##"{ "anyOf": [{ "type": "string", "description": "A reCAPTCHA token." }, { "type": "object", "properties": { "iosReceipt": { "type": "string" }, "iosSecret": { "type": "string" } }, "required": ["iosReceipt", "iosSecret"], "additionalProperties": false, "description": "iOS app verification by silent push." }, { "type": "object", "properties": { "recaptchaToken": { "type": "string" } }, "required": ["recaptchaToken"], "additionalProperties": false }, { "type": "object", "properties": { "captchaResponse": { "type": "string" } }, "required": ["captchaResponse"], "additionalProperties": false, "description": "A reCAPTCHA Enterprise token." }] }"##
  static let provider =
    ##"{ "type": "string", "description": "A Firebase provider id: google.com, apple.com, github.com, oidc.<name>." }"##

  static let migrationChoice = enumSchema(MigrationChoice.allCases.map(\.rawValue))

  /// The fields of an intent (each kind declares its own, `Intent.Kind.fields`).
  public static func fields(_ kind: Intent.Kind) -> [FieldSpec] {
    kind.fields.map { FieldSpec($0.name, schema($0.type), required: $0.required) }
  }

  /// The JSON Schema of an intent field's value.
  static func schema(_ type: IntentFieldType) -> String {
    switch type {
    case .text: string
    case .provider: provider
    case .flag: boolean
    case .migrationChoice: migrationChoice
    case .tokenRequestID: ##"{ "type": "integer" }"##
    case .appVerification: appProof
    }
  }

  /// The fields of a result.
  public static func fields(_ kind: AnswerName) -> [FieldSpec] {
    switch kind {
    case .sessionLoaded:
      [
        FieldSpec(
          "session",
          ##"{ "anyOf": [{ "type": "null" }, { "const": "stored", "description": "Whatever the store holds (after a relaunch)." }, { "$ref": "#/$defs/session" }] }"##
        )
      ]
    case .providerSucceeded: [FieldSpec("credential", ##"{ "$ref": "#/$defs/credential" }"##)]
    case .providerCancelled, .accountDeleted, .passwordResetSent, .tokenRevoked,
      .verificationEmailSent, .signInLinkSent:
      []
    case .actionCodeChecked: [FieldSpec("operation", string), .optional("email", string)]
    case .passwordResetConfirmed: [.optional("email", string)]
    case .actionCodeApplied:
      [
        .optional("email", string),
        .optional("emailVerified", ##"{ "type": "boolean", "default": true }"##),
      ]
    case .providerUnlinked:
      [FieldSpec("providers", ##"{ "type": "array", "items": { "type": "string" } }"##)]
    case .profileUpdated:
      [
        .optional("email", string), .optional("emailVerified", boolean),
        FieldSpec("providers", ##"{ "type": "array", "items": { "type": "string" } }"##),
        .optional("displayName", string), .optional("photoURL", string),
      ]
    case .accountReloaded:
      [
        .optional("email", string), .optional("emailVerified", boolean),
        FieldSpec("providers", ##"{ "type": "array", "items": { "type": "string" } }"##),
        .optional("displayName", string), .optional("photoURL", string),
        .optional(
          "secondFactors", ##"{ "type": "array", "items": { "$ref": "#/$defs/secondFactor" } }"##),
      ]
    case .providerFailed, .requestFailed: [FieldSpec("error", ##"{ "$ref": "#/$defs/error" }"##)]
    case .signedIn, .passwordChanged:
      [FieldSpec("session", ##"{ "$ref": "#/$defs/session" }"##)]
    case .secondFactorRequired:
      [
        FieldSpec("pendingCredential", string),
        FieldSpec(
          "factors",
          ##"{ "type": "array", "minItems": 1, "items": { "$ref": "#/$defs/secondFactor" } }"##),
        .optional("email", string),
      ]
    case .secondFactorCodeSent, .verificationCodeSent: [FieldSpec("sessionInfo", string)]
    case .phoneNumberInUse: [FieldSpec("phoneNumber", string), FieldSpec("temporaryProof", string)]
    case .accountExistsWithDifferentCredential:
      [
        .optional("email", string),
        .optional("providers", ##"{ "type": "array", "items": { "type": "string" } }"##),
      ]
    case .credentialAlreadyInUse:
      [
        FieldSpec("credential", ##"{ "$ref": "#/$defs/conflictCredential" }"##),
        .optional("email", string),
      ]
    case .totpSecretIssued:
      [
        FieldSpec("sharedSecretKey", string), FieldSpec("sessionInfo", string),
        .optional(
          "codeLength", ##"{ "type": "integer", "minimum": 1, "maximum": 10, "default": 6 }"##),
        .optional(
          "periodSeconds", ##"{ "type": "integer", "minimum": 1, "maximum": 3600, "default": 30 }"##
        ),
        .optional("hashingAlgorithm", ##"{ "type": "string", "default": "SHA1" }"##),
      ]
    case .secondFactorWithdrawn:
      [
        .optional("idToken", string), .optional("refreshToken", string),
        .optional("expiresIn", ##"{ "type": "number", "minimum": 0, "maximum": 3155760000 }"##),
        .optional(
          "expiresAt",
          ##"{ "anyOf": [{ "type": "string", "format": "date-time" }, { "type": "number", "minimum": 0, "maximum": 253402300799 }] }"##
        ),
      ]
    case .tokenRefreshed, .totpEnrolled, .phoneEnrolled:
      [
        FieldSpec("idToken", string), FieldSpec("refreshToken", string),
        .optional("expiresIn", ##"{ "type": "number", "minimum": 0, "maximum": 3155760000 }"##),
        .optional(
          "expiresAt",
          ##"{ "anyOf": [{ "type": "string", "format": "date-time" }, { "type": "number", "minimum": 0, "maximum": 253402300799 }] }"##
        ),
      ]
    }
  }

  /// The fields an effect pattern may name (each request kind declares its own,
  /// `RequestKind.fields`).
  public static func fields(_ kind: Effect.Kind) -> [String] { kind.fields }

  /// The fields a notification pattern may name.
  public static func fields(_ kind: AuthNotification.Kind) -> [String] {
    switch kind {
    case .migrationReady: ["from", "to"]
    case .sessionExpired, .userMismatch, .passwordChanged, .emailNeededForLink, .totpEnrolled,
      .secondFactorWithdrawn, .phoneEnrolled:
      []
    case .signedOutAfterError, .error: ["error"]
    case .passwordResetSent: ["email"]
    case .signedOutElsewhere: []
    case .userChanged: ["from", "to"]
    case .verificationEmailSent, .actionCodeApplied, .passwordResetConfirmed, .signInLinkSent:
      ["email"]
    case .actionCodeChecked: ["operation", "email"]
    }
  }

  /// What an intent means (each kind declares it, `Intent.Kind.summary`).
  public static func doc(_ kind: Intent.Kind) -> String { kind.summary }

  /// What an answer means.
  public static func doc(_ name: AnswerName) -> String {
    switch name {
    case .sessionLoaded:
      "the stored session: a session, `null`, or `\"stored\"` (whatever the runner's store holds; see `relaunch`)"
    case .providerSucceeded: "the consent step returned a credential"
    case .providerCancelled: "the user closed the consent step"
    case .providerFailed: "the consent step failed (any request's failure may be spelled this way)"
    case .signedIn: "Firebase signed someone in (or linked the current user)"
    case .secondFactorRequired:
      "the first factor (a password, an email link, a provider's credential) was right and the account has second factors: `pendingCredential` (a secret) finishes the sign-in with one of `factors`; `email` optional"
    case .accountExistsWithDifferentCredential:
      "another account has the credential's `email` and signs in another way (`providers`, as far as Firebase says; Firebase's `needConfirmation`): no session; a sign-in, or a guest's upgrade (the guest kept), waits in `accountExistsWithDifferentCredential`"
    case .secondFactorCodeSent:
      "a code was texted to the phone factor; `sessionInfo` (a secret) finishes with it"
    case .credentialAlreadyInUse:
      "the provider account belongs to another user; `credential` (possibly with nothing to retry with) signs in to it, `email` optional"
    case .requestFailed: "the request failed"
    case .tokenRefreshed: "new tokens; `expiresIn` seconds from delivery (or `expiresAt`)"
    case .accountDeleted: "the account was deleted"
    case .passwordResetSent: "the password-reset email was sent"
    case .tokenRevoked: "the provider's grant was revoked"
    case .providerUnlinked: "a provider was removed; `providers` is what is linked now"
    case .accountReloaded:
      "the account as Firebase has it: `providers`, and optionally `email`, `emailVerified` (default `false`), `displayName` and `photoURL`"
    case .profileUpdated:
      "the account as Firebase has it after the change, as for `accountReloaded`: its `displayName` and `photoURL` (absent when removed) replace the session's"
    case .verificationEmailSent:
      "the verification email (or an email change's link, to the new address) is on its way"
    case .actionCodeChecked:
      "what the code is for (`operation`: `PASSWORD_RESET`, `VERIFY_EMAIL`, …) and whose address (`email`, optional); the code is not used"
    case .passwordResetConfirmed:
      "the password is the new one (`email` optional); Firebase ends the account's sessions"
    case .actionCodeApplied:
      "the code was applied and spent: the account of `email` (optional) has its email verified (`emailVerified`, default `true`)"
    case .signInLinkSent: "the sign-in link is on its way"
    case .totpSecretIssued:
      "a TOTP secret to enrol: `sharedSecretKey` (base32) and the enrolment's `sessionInfo`, both secrets; `codeLength` (default 6), `periodSeconds` (default 30), `hashingAlgorithm` (default `SHA1`)"
    case .secondFactorWithdrawn:
      "the factor is withdrawn; with `idToken`, `refreshToken` and `expiresIn` (or `expiresAt`), new tokens for the session; with none, the session's stay"
    case .totpEnrolled:
      "the authenticator app is enrolled: new tokens for the session, as for `tokenRefreshed` (Firebase may end its other sessions)"
    case .verificationCodeSent:
      "a code was texted to the number; `sessionInfo` (a secret) signs in with it"
    case .phoneEnrolled:
      "the phone number is enrolled: new tokens for the session, as for `tokenRefreshed` (Firebase may end its other sessions)"
    case .phoneNumberInUse:
      "the code was right (and is spent) but the number is another account's: Firebase's `temporaryProof` (a secret) signs in to it; a guest is offered the migration, anyone else is told `PHONE_NUMBER_EXISTS`"
    case .passwordChanged:
      "the password is the new one; `session` holds the new tokens Firebase answered with (its other sessions end)"
    }
  }

  /// What an effect asks for (a request's meaning is declared with it,
  /// `RequestKind.summary`).
  public static func doc(_ kind: Effect.Kind) -> String {
    switch kind {
    case .request(let request): request.summary
    case .authorizeWithGoogle:
      "Google's consent step (`intent`: `signIn`, `link`, `reauthenticate`)"
    case .persistSession: "store the session"
    case .clearSession: "remove the stored session"
    case .signOutProvider: "sign out of a provider's SDK (`revoke` after a deletion)"
    case .scheduleTimer: "fire `timer` at `at`"
    case .cancelTimer: "forget `timer`"
    case .deliverIDToken:
      "answer `idTokenRequested` calls: `{\"token\": {\"idToken\"}}` or `{\"failure\": {\"error\"}}`"
    case .notify: "tell the app something (a notification, below)"
    }
  }

  /// What a notification tells the app.
  public static func doc(_ kind: AuthNotification.Kind) -> String {
    switch kind {
    case .migrationReady:
      "move the anonymous user's data from `from` to `to`, then send `migrationFinished`"
    case .sessionExpired: "the server no longer accepts the session; the user is signed out"
    case .signedOutAfterError: "an operation failed in a way that ended the session"
    case .userMismatch:
      "a reauthentication or a custom token returned another user; the session stays"
    case .error: "something failed; show it"
    case .passwordResetSent: "the password-reset email is on its way"
    case .signedOutElsewhere: "another process signed out (or deleted the account): so is this one"
    case .userChanged: "another process signed in someone else (`from` is `null` when nobody was)"
    case .verificationEmailSent: "the verification email is on its way to `email`"
    case .actionCodeApplied:
      "an email link's code was applied (`email`: whose address it verified, when the server said)"
    case .actionCodeChecked:
      "what an email link's code is for (`operation`) and whose address (`email`, when the server says)"
    case .passwordResetConfirmed: "a password reset is done: sign in with the new password"
    case .passwordChanged:
      "the signed-in account's password is the new one (its sessions elsewhere end at their next refresh)"
    case .signInLinkSent: "the sign-in link is on its way to `email`"
    case .totpEnrolled:
      "an authenticator app is enrolled as a second factor: later sign-ins ask for its code"
    case .secondFactorWithdrawn: "a second factor was withdrawn from the account"
    case .phoneEnrolled:
      "a phone number is enrolled as a second factor: later sign-ins can text a code to it"
    case .emailNeededForLink:
      "a sign-in link was opened but the address it went to is not known here (another device, or a relaunch): ask the user and send `signInWithEmailLink` again with `email`"
    }
  }

  /// Intent names and their fields.
  public static let intents: [(name: String, fields: [String])] = Intent.Kind.allCases.map {
    ($0.rawValue, fields($0).map(\.name))
  }

  /// Result names and their fields.
  public static let results: [(name: String, fields: [String])] = AnswerName.allCases.map {
    ($0.rawValue, fields($0).map(\.name))
  }

  /// Effect names and their fields.
  public static let effects: [(name: String, fields: [String])] = Effect.Kind.allCases.map {
    ($0.rawValue, fields($0))
  }

  /// Notification names and their fields.
  public static let notifications: [(name: String, fields: [String])] =
    AuthNotification.Kind.allCases.map { ($0.rawValue, fields($0)) }

  /// The answers a request of `kind` can get (a failure is spelled `requestFailed` or, for a
  /// consent step, `providerFailed`: files may use either for any request).
  /// Read from the request's answer type (`RequestKind.answerNames`); a test checks each name is
  /// an `AnswerName`.
  public static func answers(for kind: RequestKind) -> [AnswerName] {
    kind.answerNames.compactMap(AnswerName.init(rawValue:))
  }

  /// The request kind an effect name (a script key, a `respond`'s `to`) stands for.
  public static func requestKind(_ effectName: String) -> RequestKind? {
    effectName == Effect.Kind.authorizeWithGoogle.rawValue
      ? .authorize : RequestKind(rawValue: effectName)
  }

  /// Effects that are requests, answered from the script.
  public static let requestEffects = Effect.Kind.allCases.filter(\.isRequest).map(\.rawValue)

  /// The writes a script may make fail.
  public static let writeEffects = [Effect.Kind.persistSession, .clearSession].map(\.rawValue)

  /// Every top-level state name.
  public static let states = StateName.allCases.map(\.rawValue)

  /// Timer names.
  public static let timers = TimerID.allCases.map(\.rawValue)

  /// Fields of a session in a scenario file.
  public static let sessionFields = Declarations.session.map(\.name)

  /// Fields of a session's `pendingCleanup`.
  public static let cleanupFields = Declarations.cleanup.map(\.name)

  /// Fields of a provider credential in a scenario file.
  public static let credentialFields = Declarations.credential.map(\.name)

  /// Pattern fields whose values come from a closed list (a typo there is a load error).
  static let closedValues: [String: [String]] = [
    "timer": TimerID.allCases.map(\.rawValue),
    "intent": AuthorizationIntent.allCases.map(\.rawValue),
    "choice": MigrationChoice.allCases.map(\.rawValue),
  ]

  static func fields(of name: String, in table: [(name: String, fields: [String])]) -> [String] {
    table.first { $0.name == name }?.fields ?? []
  }

  /// `{ "enum": [...] }`.
  static func enumSchema(_ names: [String]) -> String {
    #"{ "enum": ["# + names.map { "\"\($0)\"" }.joined(separator: ", ") + "] }"
  }
}
