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
  case tokenRevoked, providerUnlinked
}

/// The vocabulary a scenario file may use. Names come from the core's kind enums (one list
/// each); this file adds only each name's fields, by an exhaustive switch over the kinds.
public enum Vocabulary {
  static let string = ##"{ "type": "string" }"##
  static let boolean = ##"{ "type": "boolean", "default": false }"##
  static let provider =
    ##"{ "type": "string", "description": "A Firebase provider id: google.com, apple.com, github.com, oidc.<name>." }"##

  /// The fields of an intent.
  public static func fields(_ kind: Intent.Kind) -> [FieldSpec] {
    switch kind {
    case .appLaunched, .signInAnonymouslyTapped, .signInWithGoogleTapped, .linkGoogleTapped,
      .migrationFinished, .deleteAccountTapped, .cancelTapped:
      []
    case .signInWithProviderTapped, .linkProviderTapped, .unlinkProviderTapped:
      [FieldSpec("provider", provider)]
    case .signInWithEmail, .createAccount:
      [FieldSpec("email", string), FieldSpec("password", string)]
    case .sendPasswordReset: [FieldSpec("email", string)]
    case .migrationDecided:
      [FieldSpec("choice", enumSchema(MigrationChoice.allCases.map(\.rawValue)))]
    case .reauthenticateTapped: [.optional("provider", provider)]
    case .signOutTapped: [.optional("discardAnonymousData", boolean)]
    case .idTokenRequested:
      [FieldSpec("requestId", ##"{ "type": "integer" }"##), .optional("forceRefresh", boolean)]
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
    case .providerCancelled, .accountDeleted, .passwordResetSent, .tokenRevoked: []
    case .providerUnlinked:
      [FieldSpec("providers", ##"{ "type": "array", "items": { "type": "string" } }"##)]
    case .providerFailed, .requestFailed: [FieldSpec("error", ##"{ "$ref": "#/$defs/error" }"##)]
    case .signedIn: [FieldSpec("session", ##"{ "$ref": "#/$defs/session" }"##)]
    case .credentialAlreadyInUse:
      [
        FieldSpec("credential", ##"{ "$ref": "#/$defs/conflictCredential" }"##),
        .optional("email", string),
      ]
    case .tokenRefreshed:
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

  /// The fields an effect pattern may name.
  public static func fields(_ kind: Effect.Kind) -> [String] {
    switch kind {
    case .loadSession, .signUpAnonymously: ["requestId"]
    case .persistSession: ["session"]
    case .clearSession: []
    case .authorizeWithGoogle: ["requestId", "intent", "loginHint"]
    case .authorize: ["requestId", "provider", "intent", "loginHint"]
    case .signInWithIdp: ["requestId", "credential", "linkTo"]
    case .signInWithPassword: ["requestId", "email", "password"]
    case .signUpWithPassword: ["requestId", "email", "password", "linkTo"]
    case .sendPasswordReset: ["requestId", "email"]
    case .refreshToken: ["requestId", "refreshToken"]
    case .deleteAccount: ["requestId", "idToken"]
    case .revokeToken: ["requestId", "provider", "authorizationCode", "idToken"]
    case .unlinkProvider: ["requestId", "provider", "idToken"]
    case .signOutProvider: ["provider", "revoke"]
    case .scheduleTimer: ["timer", "at"]
    case .cancelTimer: ["timer"]
    case .deliverIDToken: ["requestIds", "result"]
    case .notify: ["notification"]
    }
  }

  /// The fields a notification pattern may name.
  public static func fields(_ kind: AuthNotification.Kind) -> [String] {
    switch kind {
    case .migrationReady: ["from", "to"]
    case .sessionExpired, .userMismatch: []
    case .signedOutAfterError, .error: ["error"]
    case .passwordResetSent: ["email"]
    case .signedOutElsewhere: []
    case .userChanged: ["from", "to"]
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
  public static func answers(for kind: RequestKind) -> [AnswerName] {
    switch kind {
    case .loadSession: [.sessionLoaded, .requestFailed]
    case .authorize: [.providerSucceeded, .providerCancelled, .providerFailed]
    case .signUpAnonymously, .signUpWithPassword, .signInWithPassword: [.signedIn, .requestFailed]
    case .signInWithIdp: [.signedIn, .credentialAlreadyInUse, .requestFailed]
    case .refreshToken: [.tokenRefreshed, .requestFailed]
    case .sendPasswordReset: [.passwordResetSent, .requestFailed]
    case .deleteAccount: [.accountDeleted, .requestFailed]
    case .revokeToken: [.tokenRevoked, .requestFailed]
    case .unlinkProvider: [.providerUnlinked, .requestFailed]
    }
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
  public static let sessionFields = [
    "uid", "anonymous", "providers", "email", "idToken", "refreshToken", "expiresIn", "expiresAt",
    "pendingCleanup", "displayName", "pendingDeletion",
  ]

  /// Fields of a session's `pendingCleanup`.
  public static let cleanupFields = ["uid", "idToken", "dataMoved", "refreshToken", "expiresAt"]

  /// Fields of a provider credential in a scenario file.
  public static let credentialFields = [
    "provider", "idToken", "accessToken", "tokenSecret", "rawNonce", "pendingToken",
    "authorizationCode", "requestUri", "sessionId", "email", "givenName", "familyName",
  ]

  static func fields(of name: String, in table: [(name: String, fields: [String])]) -> [String] {
    table.first { $0.name == name }?.fields ?? []
  }

  /// `{ "enum": [...] }`.
  static func enumSchema(_ names: [String]) -> String {
    #"{ "enum": ["# + names.map { "\"\($0)\"" }.joined(separator: ", ") + "] }"
  }
}
