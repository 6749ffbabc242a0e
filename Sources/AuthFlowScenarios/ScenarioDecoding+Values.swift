import AuthFlowCore

/// The vocabulary a scenario file may use, with each name's fields.
public enum Vocabulary {
  /// Intent names and their fields.
  public static let intents: [(name: String, fields: [String])] = [
    ("appLaunched", []), ("signInAnonymouslyTapped", []), ("signInWithGoogleTapped", []),
    ("linkGoogleTapped", []), ("signInWithEmail", ["email", "password"]),
    ("createAccount", ["email", "password"]), ("sendPasswordReset", ["email"]),
    ("migrationDecided", ["choice"]), ("migrationFinished", []), ("reauthenticateTapped", []),
    ("signOutTapped", ["discardAnonymousData"]), ("deleteAccountTapped", []),
    ("cancelTapped", []), ("idTokenRequested", ["requestId", "forceRefresh"]),
  ]

  /// Result names and their fields.
  public static let results: [(name: String, fields: [String])] = [
    ("sessionLoaded", ["session"]), ("providerSucceeded", ["credential"]),
    ("providerCancelled", []), ("providerFailed", ["error"]), ("signedIn", ["session"]),
    ("credentialAlreadyInUse", ["credential", "email"]), ("requestFailed", ["error"]),
    ("tokenRefreshed", ["idToken", "refreshToken", "expiresIn"]), ("accountDeleted", []),
    ("passwordResetSent", []),
  ]

  /// Effect names and their fields.
  public static let effects: [(name: String, fields: [String])] = [
    ("loadSession", ["requestId"]), ("persistSession", ["session"]), ("clearSession", []),
    ("signUpAnonymously", ["requestId"]),
    ("authorizeWithGoogle", ["requestId", "intent", "loginHint"]),
    ("signInWithIdp", ["requestId", "credential", "linkTo"]),
    ("signInWithPassword", ["requestId", "email", "password"]),
    ("signUpWithPassword", ["requestId", "email", "password", "linkTo"]),
    ("sendPasswordReset", ["requestId", "email"]),
    ("refreshToken", ["requestId", "refreshToken"]), ("deleteAccount", ["requestId", "idToken"]),
    ("signOutProvider", []), ("scheduleTimer", ["timer", "at"]), ("cancelTimer", ["timer"]),
    ("deliverIDToken", ["requestIds", "result"]), ("notify", ["notification"]),
  ]

  /// Notification names and their fields.
  public static let notifications: [(name: String, fields: [String])] = [
    ("migrationReady", ["from", "to"]), ("sessionExpired", []),
    ("signedOutAfterError", ["error"]), ("userMismatch", []), ("error", ["error"]),
    ("passwordResetSent", ["email"]),
  ]

  /// Effects that are requests, answered from the script.
  public static let requestEffects = [
    "loadSession", "signUpAnonymously", "authorizeWithGoogle", "signInWithIdp",
    "signInWithPassword", "signUpWithPassword", "sendPasswordReset", "refreshToken",
    "deleteAccount",
  ]

  /// Fields of a session in a scenario file.
  public static let sessionFields = [
    "uid", "anonymous", "providers", "email", "idToken", "refreshToken", "expiresIn", "expiresAt",
    "pendingCleanup",
  ]

  /// Fields of intents and results that may be left out (every other listed field is required).
  static let optionalFields: Set<String> = [
    "signOutTapped.discardAnonymousData", "idTokenRequested.forceRefresh",
    "credentialAlreadyInUse.email",
  ]

  static func fields(of name: String, in table: [(name: String, fields: [String])]) -> [String] {
    table.first { $0.name == name }?.fields ?? []
  }
}

extension JSONReader {
  /// A tagged value's name and fields, checked against the vocabulary's fields for that name.
  func taggedFields(
    _ value: JSONValue, _ path: String, kind: String, table: [(name: String, fields: [String])]
  ) throws -> (String, [String: JSONValue], String) {
    let (name, payload, p) = try tagged(value, path, kind: kind, names: table.map(\.name))
    let allowed = Vocabulary.fields(of: name, in: table)
    let required = allowed.filter { !Vocabulary.optionalFields.contains("\(name).\($0)") }
    return (name, try object(payload, p, allowed: allowed, required: required), p)
  }

  func intent(_ value: JSONValue, _ path: String) throws -> Intent {
    let (name, f, p) = try taggedFields(value, path, kind: "intent", table: Vocabulary.intents)
    switch name {
    case "appLaunched": return .appLaunched
    case "signInAnonymouslyTapped": return .signInAnonymouslyTapped
    case "signInWithGoogleTapped": return .signInWithGoogleTapped
    case "linkGoogleTapped": return .linkGoogleTapped
    case "signInWithEmail":
      return .signInWithEmail(
        email: try string(f["email"], join(p, "email")),
        password: try string(f["password"], join(p, "password")))
    case "createAccount":
      return .createAccount(
        email: try string(f["email"], join(p, "email")),
        password: try string(f["password"], join(p, "password")))
    case "sendPasswordReset":
      return .sendPasswordReset(email: try string(f["email"], join(p, "email")))
    case "migrationDecided":
      return .migrationDecided(
        choice: try enumValue(f["choice"], join(p, "choice"), MigrationChoice.self))
    case "migrationFinished": return .migrationFinished
    case "reauthenticateTapped": return .reauthenticateTapped
    case "signOutTapped":
      return .signOutTapped(
        discardAnonymousData: try bool(
          f["discardAnonymousData"], join(p, "discardAnonymousData"), default: false))
    case "deleteAccountTapped": return .deleteAccountTapped
    case "cancelTapped": return .cancelTapped
    default:
      return .idTokenRequested(
        requestId: try integer(f["requestId"], join(p, "requestId")),
        forceRefresh: try bool(f["forceRefresh"], join(p, "forceRefresh"), default: false))
    }
  }

  func result(_ value: JSONValue, _ path: String) throws -> ResultTemplate {
    let (name, f, p) = try taggedFields(value, path, kind: "result", table: Vocabulary.results)
    switch name {
    case "sessionLoaded":
      if f["session"] == .null { return ResultTemplate(.sessionLoaded(session: nil)) }
      let (s, relative) = try session(f["session"]!, join(p, "session"))
      return ResultTemplate(.sessionLoaded(session: s), relativeExpiry: relative)
    case "signedIn":
      let (s, relative) = try session(f["session"]!, join(p, "session"))
      return ResultTemplate(.signedIn(session: s), relativeExpiry: relative)
    case "providerSucceeded":
      return ResultTemplate(
        .providerSucceeded(credential: try credential(f["credential"]!, join(p, "credential"))))
    case "providerCancelled": return ResultTemplate(.providerCancelled)
    case "providerFailed":
      return ResultTemplate(.providerFailed(error: try error(f["error"]!, join(p, "error"))))
    case "credentialAlreadyInUse":
      return ResultTemplate(
        .credentialAlreadyInUse(
          credential: try credential(f["credential"]!, join(p, "credential")),
          email: try optionalString(f["email"], join(p, "email"))))
    case "requestFailed":
      return ResultTemplate(.requestFailed(error: try error(f["error"]!, join(p, "error"))))
    case "tokenRefreshed":
      return ResultTemplate(
        .tokenRefreshed(
          idToken: try string(f["idToken"], join(p, "idToken")),
          refreshToken: try string(f["refreshToken"], join(p, "refreshToken")),
          expiresIn: try number(f["expiresIn"], join(p, "expiresIn"), min: 0)))
    case "accountDeleted": return ResultTemplate(.accountDeleted)
    default: return ResultTemplate(.passwordResetSent)
    }
  }

  /// A session; the flag says whether `expiresAt` holds seconds relative to delivery.
  func session(_ value: JSONValue, _ p: String) throws -> (Session, Bool) {
    let f = try object(
      value, p, allowed: Vocabulary.sessionFields, required: ["uid", "idToken", "refreshToken"],
      what: "a session object")
    let relative: Bool
    let expiry: Instant
    switch (f["expiresIn"], f["expiresAt"]) {
    case (let seconds?, nil):
      (expiry, relative) = (Instant(try number(seconds, join(p, "expiresIn"), min: 0)), true)
    case (nil, let at?):
      (expiry, relative) = (try time(at, join(p, "expiresAt")), false)
    case (nil, nil):
      throw fail(p, "missing \"expiresIn\" (seconds from delivery) or \"expiresAt\" (ISO 8601)")
    default:
      throw fail(p, "give either \"expiresIn\" or \"expiresAt\", not both")
    }
    var cleanup: AnonymousCleanup? = nil
    if let c = f["pendingCleanup"], c != .null {
      let cp = join(p, "pendingCleanup")
      let cf = try object(
        c, cp, allowed: ["uid", "idToken", "dataMoved"], required: ["uid", "idToken"])
      cleanup = AnonymousCleanup(
        uid: try string(cf["uid"], join(cp, "uid")),
        idToken: try string(cf["idToken"], join(cp, "idToken")),
        dataMoved: try bool(cf["dataMoved"], join(cp, "dataMoved"), default: false))
    }
    let session = Session(
      uid: try string(f["uid"], join(p, "uid")),
      anonymous: try bool(f["anonymous"], join(p, "anonymous"), default: false),
      providers: f["providers"] == nil ? [] : try strings(f["providers"], join(p, "providers")),
      email: try optionalString(f["email"], join(p, "email")),
      idToken: try string(f["idToken"], join(p, "idToken")),
      refreshToken: try string(f["refreshToken"], join(p, "refreshToken")),
      expiresAt: expiry, pendingCleanup: cleanup)
    return (session, relative)
  }

  func credential(_ value: JSONValue, _ p: String) throws -> GoogleCredential {
    let f = try object(
      value, p, allowed: ["idToken", "accessToken", "email"], required: ["idToken"],
      what: "a Google credential object")
    return GoogleCredential(
      idToken: try string(f["idToken"], join(p, "idToken")),
      accessToken: try optionalString(f["accessToken"], join(p, "accessToken")),
      email: try optionalString(f["email"], join(p, "email")))
  }

  func error(_ value: JSONValue, _ p: String) throws -> AuthError {
    let f = try object(
      value, p, allowed: ["code", "message"], required: ["code"], what: "an error object")
    return AuthError(
      code: try string(f["code"], join(p, "code")),
      message: try optionalString(f["message"], join(p, "message")))
  }
}
