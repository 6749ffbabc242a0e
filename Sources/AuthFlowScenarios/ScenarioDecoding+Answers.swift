import AuthFlowCore

// Each answer type reads its own answers from a scenario file, once: a request kind answered
// with an existing answer type needs nothing here, and the decoder learns which type a kind
// answers with from the kind itself (`RequestKind.outcomeType`).

/// An answer type as scenario files spell its outcomes.
protocol ScenarioOutcome: RequestOutcome {
  /// The outcome `name` (one of `names`, never the failure, which `JSONReader.result` reads for
  /// every type) from its fields `f` at `p`.
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
}

/// An outcome read from a file, with what the runner must do with it when it is delivered.
struct ReadOutcome<Outcome> {
  var outcome: Outcome
  /// The expiries are seconds from delivery (`expiresIn`).
  var relativeExpiry = false
  /// `sessionLoaded` with `"session": "stored"`: whatever the runner's store holds.
  var fromStore = false
}

extension JSONReader {
  /// The answer `name` to a request of `kind`, read by the kind's answer type.
  func outcome(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, kind: RequestKind)
    throws -> ResultTemplate
  {
    guard let type = kind.outcomeType as? any ScenarioOutcome.Type else {
      // A new answer type without its reader: the format's completeness test names it.
      throw fail(p, "\(kind.rawValue) cannot answer \(name.rawValue)")
    }
    return try template(type, name, f, p, kind: kind)
  }

  private func template<O: ScenarioOutcome>(
    _ type: O.Type, _ name: AnswerName, _ f: [String: JSONValue], _ p: String, kind: RequestKind
  ) throws -> ResultTemplate {
    let read = try O.read(name, f, p, self)
    guard let answer = Answer(kind, RequestID(0), outcome: read.outcome) else {
      throw fail(p, "\(kind.rawValue) cannot answer \(name.rawValue)")
    }
    var t = ResultTemplate(answer, relativeExpiry: read.relativeExpiry)
    t.fromStore = read.fromStore
    return t
  }

  /// The error for an outcome name its type does not have (the vocabulary and the type
  /// disagree: a bug, named by the format's completeness test).
  func unknown<O>(_ name: AnswerName, _ type: O.Type, _ p: String) -> ScenarioError {
    fail(p, "\(type) has no answer \(name.rawValue)")
  }

  /// An outcome that carries the session an answer's `session` field gives (its expiry relative
  /// when the file wrote `expiresIn`).
  func signedIn<O>(_ f: [String: JSONValue], _ p: String, _ make: (Session) -> O) throws
    -> ReadOutcome<O>
  {
    let (session, relative) = try session(f["session"] ?? .null, join(p, "session"))
    return ReadOutcome(outcome: make(session), relativeExpiry: relative)
  }

  /// An outcome that carries a second-factor challenge.
  func challenged<O>(_ f: [String: JSONValue], _ p: String, _ make: (SecondFactorChallenge) -> O)
    throws -> ReadOutcome<O>
  {
    ReadOutcome(outcome: make(try challenge(f, p)))
  }
}

extension LoadAnswer: ScenarioOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    guard name == .sessionLoaded else { throw r.unknown(name, Self.self, p) }
    guard let s = f["session"], s != .null else {
      return ReadOutcome(outcome: .sessionLoaded(session: nil))
    }
    if s == .string("stored") {
      return ReadOutcome(outcome: .sessionLoaded(session: nil), fromStore: true)
    }
    let (session, relative) = try r.session(s, r.join(p, "session"))
    return ReadOutcome(outcome: .sessionLoaded(session: session), relativeExpiry: relative)
  }
}

extension AuthorizeAnswer: ScenarioOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    switch name {
    case .providerSucceeded:
      ReadOutcome(
        outcome: .providerSucceeded(
          credential: try r.credential(f["credential"], r.join(p, "credential"))))
    case .providerCancelled: ReadOutcome(outcome: .providerCancelled)
    default: throw r.unknown(name, Self.self, p)
    }
  }
}

/// The answer types whose only success is a session.
protocol SignedInOutcome: ScenarioOutcome {
  static func signedIn(session: Session) -> Self
}

extension SignedInOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    guard name == .signedIn else { throw r.unknown(name, Self.self, p) }
    return try r.signedIn(f, p, Self.signedIn)
  }
}

extension SessionAnswer: SignedInOutcome {}
extension SignInAnswer: SignedInOutcome {}

extension FirstFactorAnswer: ScenarioOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    switch name {
    case .signedIn: return try r.signedIn(f, p, Self.signedIn)
    case .secondFactorRequired: return try r.challenged(f, p, Self.secondFactorRequired)
    default: throw r.unknown(name, Self.self, p)
    }
  }
}

extension IdPAnswer: ScenarioOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    switch name {
    case .signedIn: return try r.signedIn(f, p, Self.signedIn)
    case .secondFactorRequired: return try r.challenged(f, p, Self.secondFactorRequired)
    case .accountExistsWithDifferentCredential:
      return ReadOutcome(
        outcome: .accountExistsWithDifferentCredential(
          email: try r.optionalString(f["email"], r.join(p, "email")),
          providers: try (f["providers"].map { try r.strings($0, r.join(p, "providers")) } ?? [])
            .map { ProviderID($0) }))
    case .credentialAlreadyInUse:
      return ReadOutcome(
        outcome: .credentialAlreadyInUse(
          credential: try r.credential(
            f["credential"], r.join(p, "credential"), requireToken: false),
          email: try r.optionalString(f["email"], r.join(p, "email"))))
    default: throw r.unknown(name, Self.self, p)
    }
  }
}

extension PhoneSignInAnswer: ScenarioOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    switch name {
    case .signedIn: return try r.signedIn(f, p, Self.signedIn)
    case .phoneNumberInUse:
      return ReadOutcome(
        outcome: .phoneNumberInUse(
          phoneNumber: try r.string(f["phoneNumber"], r.join(p, "phoneNumber")),
          temporaryProof: try r.string(f["temporaryProof"], r.join(p, "temporaryProof"))))
    default: throw r.unknown(name, Self.self, p)
    }
  }
}

extension PasswordChangeAnswer: ScenarioOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    guard name == .passwordChanged else { throw r.unknown(name, Self.self, p) }
    return try r.signedIn(f, p, Self.passwordChanged)
  }
}

/// The answer types whose success carries a session code (`sessionInfo`).
protocol SessionInfoOutcome: ScenarioOutcome {
  static var sent: AnswerName { get }
  static func sent(sessionInfo: String) -> Self
}

extension SessionInfoOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    guard name == sent else { throw r.unknown(name, Self.self, p) }
    return ReadOutcome(
      outcome: sent(sessionInfo: try r.string(f["sessionInfo"], r.join(p, "sessionInfo"))))
  }
}

extension SecondFactorCodeAnswer: SessionInfoOutcome {
  static let sent = AnswerName.secondFactorCodeSent
  static func sent(sessionInfo: String) -> Self { .secondFactorCodeSent(sessionInfo: sessionInfo) }
}

extension PhoneCodeAnswer: SessionInfoOutcome {
  static let sent = AnswerName.verificationCodeSent
  static func sent(sessionInfo: String) -> Self { .verificationCodeSent(sessionInfo: sessionInfo) }
}

/// The answer types whose success carries new tokens.
protocol TokensOutcome: ScenarioOutcome {
  static var success: AnswerName { get }
  static func success(_ tokens: Tokens) -> Self
}

extension TokensOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    guard name == success else { throw r.unknown(name, Self.self, p) }
    let (tokens, relative) = try r.tokens(f, p)
    return ReadOutcome(outcome: success(tokens), relativeExpiry: relative)
  }
}

extension RefreshAnswer: TokensOutcome {
  static let success = AnswerName.tokenRefreshed
  static func success(_ tokens: Tokens) -> Self { .tokenRefreshed(tokens) }
}

extension TotpEnrollmentAnswer: TokensOutcome {
  static let success = AnswerName.totpEnrolled
  static func success(_ tokens: Tokens) -> Self { .totpEnrolled(tokens) }
}

extension PhoneEnrollmentAnswer: TokensOutcome {
  static let success = AnswerName.phoneEnrolled
  static func success(_ tokens: Tokens) -> Self { .phoneEnrolled(tokens) }
}

extension SecondFactorWithdrawnAnswer: ScenarioOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    guard name == .secondFactorWithdrawn else { throw r.unknown(name, Self.self, p) }
    guard
      f["idToken"] != nil || f["refreshToken"] != nil || f["expiresIn"] != nil
        || f["expiresAt"] != nil
    else { return ReadOutcome(outcome: .secondFactorWithdrawn(nil)) }
    let (tokens, relative) = try r.tokens(f, p)
    return ReadOutcome(outcome: .secondFactorWithdrawn(tokens), relativeExpiry: relative)
  }
}

extension TotpSecretAnswer: ScenarioOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    guard name == .totpSecretIssued else { throw r.unknown(name, Self.self, p) }
    func count(_ key: String, _ fallback: Int, _ range: ClosedRange<Int>) throws -> Int {
      guard let v = f[key] else { return fallback }
      let n = try r.integer(v, r.join(p, key))
      guard range.contains(n) else {
        throw r.fail(
          r.join(p, key), "\(n) is out of range (\(range.lowerBound) to \(range.upperBound))")
      }
      return n
    }
    return ReadOutcome(
      outcome: .totpSecretIssued(
        secret: TotpSecret(
          sharedSecretKey: try r.string(f["sharedSecretKey"], r.join(p, "sharedSecretKey")),
          sessionInfo: try r.string(f["sessionInfo"], r.join(p, "sessionInfo")),
          codeLength: try count("codeLength", 6, 1...10),
          periodSeconds: try count("periodSeconds", 30, 1...3600),
          hashingAlgorithm: try r.optionalString(
            f["hashingAlgorithm"], r.join(p, "hashingAlgorithm")) ?? "SHA1")))
  }
}

/// The answer types whose success is a bare confirmation.
protocol ConfirmationOutcome: ScenarioOutcome {
  static var confirmed: Self { get }
}

extension ConfirmationOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    guard name.rawValue == confirmed.name else { throw r.unknown(name, Self.self, p) }
    return ReadOutcome(outcome: confirmed)
  }
}

extension DeleteAnswer: ConfirmationOutcome { static let confirmed = Self.accountDeleted }
extension ResetAnswer: ConfirmationOutcome { static let confirmed = Self.passwordResetSent }
extension SignInLinkAnswer: ConfirmationOutcome { static let confirmed = Self.signInLinkSent }
extension RevokeAnswer: ConfirmationOutcome { static let confirmed = Self.tokenRevoked }
extension VerificationEmailAnswer: ConfirmationOutcome {
  static let confirmed = Self.verificationEmailSent
}

extension UnlinkAnswer: ScenarioOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    guard name == .providerUnlinked else { throw r.unknown(name, Self.self, p) }
    return ReadOutcome(
      outcome: .providerUnlinked(
        providers: try r.strings(f["providers"], r.join(p, "providers")).map { ProviderID($0) }))
  }
}

extension ActionCodeAnswer: ScenarioOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    guard name == .actionCodeApplied else { throw r.unknown(name, Self.self, p) }
    return ReadOutcome(
      outcome: .actionCodeApplied(
        email: try r.optionalString(f["email"], r.join(p, "email")),
        emailVerified: try r.bool(f["emailVerified"], r.join(p, "emailVerified"), default: true)))
  }
}

extension CheckCodeAnswer: ScenarioOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    guard name == .actionCodeChecked else { throw r.unknown(name, Self.self, p) }
    return ReadOutcome(
      outcome: .actionCodeChecked(
        operation: try r.string(f["operation"], r.join(p, "operation")),
        email: try r.optionalString(f["email"], r.join(p, "email"))))
  }
}

extension PasswordResetAnswer: ScenarioOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    guard name == .passwordResetConfirmed else { throw r.unknown(name, Self.self, p) }
    return ReadOutcome(
      outcome: .passwordResetConfirmed(email: try r.optionalString(f["email"], r.join(p, "email"))))
  }
}

extension LookupAnswer: ScenarioOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    guard name == .accountReloaded else { throw r.unknown(name, Self.self, p) }
    var reloaded = try r.profile(f, p)
    reloaded.secondFactors = try f["secondFactors"].map {
      try r.secondFactors($0, r.join(p, "secondFactors"))
    }
    return ReadOutcome(outcome: .accountReloaded(profile: reloaded))
  }
}

extension ProfileAnswer: ScenarioOutcome {
  static func read(_ name: AnswerName, _ f: [String: JSONValue], _ p: String, _ r: JSONReader)
    throws -> ReadOutcome<Self>
  {
    guard name == .profileUpdated else { throw r.unknown(name, Self.self, p) }
    return ReadOutcome(outcome: .profileUpdated(profile: try r.profile(f, p)))
  }
}
