import AuthFlowCore

extension JSONReader {
  /// A tagged value's kind and fields, checked against the vocabulary's fields for that kind.
  func taggedFields<K: CaseIterable & RawRepresentable>(
    _ value: JSONValue, _ path: String, kind: String, _ spec: (K) -> [FieldSpec]
  ) throws -> (K, [String: JSONValue], String) where K.RawValue == String {
    let (name, payload, p) = try tagged(
      value, path, kind: kind, names: K.allCases.map(\.rawValue))
    guard let k = K(rawValue: name) else { throw fail(path, "unknown \(kind) \"\(name)\"") }
    let fields = spec(k)
    let f = try object(
      payload, p, allowed: fields.map(\.name), required: fields.filter(\.required).map(\.name))
    return (k, f, p)
  }

  func intent(_ value: JSONValue, _ path: String) throws -> Intent {
    let (kind, f, p) = try taggedFields(
      value, path, kind: "intent", Vocabulary.fields(_:) as (Intent.Kind) -> [FieldSpec])
    var fields = ScenarioIntentFields(reader: self, fields: f, path: p, declared: kind.fields)
    let intent = try Intent(kind, &fields)
    if case .updateProfile(let change) = intent, change.isEmpty {
      throw fail(
        p, "updateProfile changes nothing: give \"displayName\" or \"photoURL\" (\"\" removes one)")
    }
    return intent
  }

  /// An answer to a request of `kind`. A result that only another kind of request can get
  /// stands for a broken interpreter: it is read as this request's `UNEXPECTED_RESPONSE`, and
  /// the template says so (`wrongKind`), for the warning.
  func result(_ value: JSONValue, _ path: String, kind: RequestKind) throws -> ResultTemplate {
    let (name, f, p) = try taggedFields(
      value, path, kind: "result", Vocabulary.fields(_:) as (AnswerName) -> [FieldSpec])
    let id = RequestID(0)  // The runner's to fill in.
    func failure() throws -> AuthError { try error(f["error"], join(p, "error")) }
    if name == .requestFailed || name == .providerFailed {
      return ResultTemplate(Answer.failed(kind, id, try failure()))
    }
    guard Vocabulary.answers(for: kind).contains(name) else {
      var t = ResultTemplate(
        Answer.failed(
          kind, id,
          AuthError(
            code: AuthError.unexpectedResponse.code,
            message: "\(kind.rawValue) answered with \(name.rawValue)")))
      t.wrongKind = name.rawValue
      return t
    }
    return try outcome(name, f, p, kind: kind)
  }

  /// Tokens from an answer's fields; the flag says whether `expiresIn` made the expiry relative
  /// to delivery.
  func tokens(_ f: [String: JSONValue], _ p: String) throws -> (Tokens, Bool) {
    let expiry: Instant
    let relative: Bool
    switch (f["expiresIn"], f["expiresAt"]) {
    case (let seconds?, nil):
      (expiry, relative) = (Instant(try duration(seconds, join(p, "expiresIn"))), true)
    case (nil, let at?): (expiry, relative) = (try time(at, join(p, "expiresAt")), false)
    case (nil, nil):
      throw fail(p, "missing \"expiresIn\" (seconds from delivery) or \"expiresAt\" (ISO 8601)")
    case (.some, .some):
      throw fail(p, "give either \"expiresIn\" or \"expiresAt\", not both")
    }
    let tokens = Tokens(
      idToken: try string(f["idToken"], join(p, "idToken")),
      refreshToken: try string(f["refreshToken"], join(p, "refreshToken")), expiresAt: expiry)
    return (tokens, relative)
  }

  /// A list of second factors (a challenge's `factors`, a session's or a reload's
  /// `secondFactors`).
  func secondFactors(_ value: JSONValue, _ p: String) throws -> [SecondFactor] {
    try array(value, p).enumerated().map { i, v in
      let fp = "\(p)[\(i)]"
      let ff = try object(v, fp, Declarations.secondFactor, what: "a second factor object")
      return SecondFactor(
        id: try string(ff["id"], join(fp, "id")),
        kind: try enumValue(ff["kind"], join(fp, "kind"), SecondFactor.Kind.self),
        displayName: try optionalString(ff["displayName"], join(fp, "displayName")),
        phoneHint: try optionalString(ff["phoneHint"], join(fp, "phoneHint")))
    }
  }

  /// A second-factor challenge, from a `secondFactorRequired` answer's fields.
  func challenge(_ f: [String: JSONValue], _ p: String) throws -> SecondFactorChallenge {
    let factors = try secondFactors(f["factors"] ?? .null, join(p, "factors"))
    guard !factors.isEmpty else { throw fail(join(p, "factors"), "give at least one factor") }
    return SecondFactorChallenge(
      pendingCredential: try string(f["pendingCredential"], join(p, "pendingCredential")),
      factors: factors, email: try optionalString(f["email"], join(p, "email")))
  }

  /// The account as the server has it, from an answer's fields.
  func profile(_ f: [String: JSONValue], _ p: String) throws -> Profile {
    Profile(
      email: try optionalString(f["email"], join(p, "email")),
      emailVerified: try bool(f["emailVerified"], join(p, "emailVerified"), default: false),
      providers: try strings(f["providers"], join(p, "providers")).map { ProviderID($0) },
      displayName: try optionalString(f["displayName"], join(p, "displayName")),
      photoURL: try optionalString(f["photoURL"], join(p, "photoURL")))
  }

  /// A session; the flag says whether `expiresAt` holds seconds relative to delivery.
  func session(_ value: JSONValue, _ p: String) throws -> (Session, Bool) {
    let f = try object(value, p, Declarations.session, what: "a session object")
    let relative: Bool
    let expiry: Instant
    switch (f["expiresIn"], f["expiresAt"]) {
    case (let seconds?, nil):
      (expiry, relative) = (Instant(try duration(seconds, join(p, "expiresIn"))), true)
    case (nil, let at?):
      (expiry, relative) = (try time(at, join(p, "expiresAt")), false)
    case (nil, nil):
      throw fail(p, "missing \"expiresIn\" (seconds from delivery) or \"expiresAt\" (ISO 8601)")
    case (.some, .some):
      throw fail(p, "give either \"expiresIn\" or \"expiresAt\", not both")
    }
    var cleanup: AnonymousCleanup? = nil
    if let c = f["pendingCleanup"], c != .null {
      let cp = join(p, "pendingCleanup")
      let cf = try object(c, cp, Declarations.cleanup)
      cleanup = AnonymousCleanup(
        uid: try string(cf["uid"], join(cp, "uid")),
        idToken: try string(cf["idToken"], join(cp, "idToken")),
        dataMoved: try bool(cf["dataMoved"], join(cp, "dataMoved"), default: false),
        refreshToken: try optionalString(cf["refreshToken"], join(cp, "refreshToken")),
        expiresAt: try cf["expiresAt"].map { try time($0, join(cp, "expiresAt")) })
    }
    var deletion: DeletionRecord? = nil
    if let d = f["pendingDeletion"], d != .null {
      let dp = join(p, "pendingDeletion")
      let df = try object(d, dp, Declarations.deletion)
      deletion = DeletionRecord(
        revoked: try (df["revoked"].map { try strings($0, join(dp, "revoked")) } ?? []).map {
          ProviderID($0)
        },
        deleting: try bool(df["deleting"], join(dp, "deleting"), default: false))
    }
    let session = Session(
      uid: try string(f["uid"], join(p, "uid")),
      anonymous: try bool(f["anonymous"], join(p, "anonymous"), default: false),
      providers: f["providers"] == nil
        ? [] : try strings(f["providers"], join(p, "providers")).map { ProviderID($0) },
      email: try optionalString(f["email"], join(p, "email")),
      idToken: try string(f["idToken"], join(p, "idToken")),
      refreshToken: try string(f["refreshToken"], join(p, "refreshToken")),
      expiresAt: expiry, pendingCleanup: cleanup,
      displayName: try optionalString(f["displayName"], join(p, "displayName")),
      pendingDeletion: deletion,
      emailVerified: try bool(f["emailVerified"], join(p, "emailVerified"), default: false),
      photoURL: try optionalString(f["photoURL"], join(p, "photoURL")),
      secondFactors: try f["secondFactors"].map { try secondFactors($0, join(p, "secondFactors")) }
        ?? [])
    return (session, relative)
  }

  /// A provider credential. Without `provider`, it is the provider of the request it answers
  /// (filled in when the result is delivered).
  func credential(_ value: JSONValue?, _ p: String, requireToken: Bool = true) throws
    -> IdPCredential
  {
    let f = try object(value ?? .null, p, Declarations.credential, what: "a credential object")
    // A conflict answer may carry nothing to retry with (the machine then asks the provider
    // again); a consent step's credential always carries a token.
    guard
      !requireToken || f["idToken"] != nil || f["accessToken"] != nil || f["pendingToken"] != nil
        || f["requestUri"] != nil
    else {
      throw fail(
        p,
        "missing required field \"idToken\" (or \"accessToken\", \"pendingToken\" or "
          + "\"requestUri\")")
    }
    func text(_ key: String) throws -> String? { try optionalString(f[key], join(p, key)) }
    return IdPCredential(
      provider: try f["provider"].map { try provider($0, join(p, "provider")) } ?? .unspecified,
      idToken: try text("idToken"), accessToken: try text("accessToken"),
      tokenSecret: try text("tokenSecret"), rawNonce: try text("rawNonce"),
      pendingToken: try text("pendingToken"), authorizationCode: try text("authorizationCode"),
      requestUri: try text("requestUri"), sessionId: try text("sessionId"),
      email: try text("email"),
      givenName: try text("givenName"), familyName: try text("familyName"))
  }

  func provider(_ value: JSONValue?, _ p: String) throws -> ProviderID {
    let s = try string(value, p)
    guard !s.isEmpty, !s.contains(where: \.isWhitespace) else {
      throw fail(
        p, "expected a provider id such as \"google.com\" or \"oidc.acme\", found \"\(s)\"")
    }
    return ProviderID(s)
  }

  func error(_ value: JSONValue?, _ p: String) throws -> AuthError {
    let f = try object(value ?? .null, p, Declarations.error, what: "an error object")
    return AuthError(
      code: try string(f["code"], join(p, "code")),
      message: try optionalString(f["message"], join(p, "message")))
  }
}

extension ProviderID {
  /// In a scenario file, a credential without `provider`: it takes the provider of the request
  /// it answers.
  static let unspecified = ProviderID("")
}

/// Reads an intent's fields from a scenario file, each by its declared type
/// (`Intent.Kind.fields`), with the scenario format's messages.
struct ScenarioIntentFields: IntentFieldReader {
  let reader: JSONReader
  let fields: [String: JSONValue]
  let path: String
  let declared: [IntentField]
  var index = 0

  mutating func next<T: Decodable & Sendable>() throws -> T {
    let (field, value) = try advance()
    return try read(field, value)
  }

  mutating func optional<T: Decodable & Sendable>() throws -> T? {
    let (field, value) = try advance()
    switch (value, field.type) {
    case (nil, _), (.null?, .text), (.null?, .appVerification): return nil
    default: return try read(field, value) as T
    }
  }

  private mutating func advance() throws -> (IntentField, JSONValue?) {
    guard index < declared.count else {
      throw reader.fail(path, "the intent reads more fields than it declares")
    }
    defer { index += 1 }
    return (declared[index], fields[declared[index].name])
  }

  private func read<T>(_ field: IntentField, _ value: JSONValue?) throws -> T {
    let p = reader.join(path, field.name)
    let read: Any? =
      switch field.type {
      case .text: try reader.string(value, p)
      case .provider: try reader.provider(value, p)
      case .flag: try reader.bool(value, p, default: false)
      case .migrationChoice: try reader.enumValue(value, p, MigrationChoice.self)
      case .tokenRequestID: TokenRequestID(try reader.integer(value, p))
      case .appVerification: try reader.appVerification(value, p)
      }
    guard let typed = read as? T else {
      throw reader.fail(p, "declared as \(field.type), read as \(T.self)")
    }
    return typed
  }
}
