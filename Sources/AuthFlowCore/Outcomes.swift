// What each answer type says about its own outcomes, declared once per type beside its cases:
// `Answer` asks these through one switch over the request kinds (`ask`, `changed`) instead of
// one switch per property, so a new request kind adds a line to those two switches, not a line
// to every property.

/// An answer type's outcomes: their names, the error, the failure, and the session or tokens
/// they carry.
public protocol RequestOutcome: Hashable, Codable, Sendable {
  /// The outcome's name, as scenario files spell it (the Swift case's own name).
  var name: String { get }
  /// Every outcome's name, in the order the cases are declared: the answers a request of this
  /// type's kind can get.
  static var names: [String] { get }
  /// The error, when the request failed.
  var error: AuthError? { get }
  /// The failure outcome (`providerFailed` for a consent step).
  static func failure(_ error: AuthError) -> Self
  /// The session it signed in with, if it is a sign-in's success.
  var signedInSession: Session? { get }
  /// The same outcome with the session, tokens and credential it carries passed through the
  /// given functions.
  func mapping(
    session: (Session) -> Session, tokens: (Tokens) -> Tokens,
    credential: (IdPCredential) -> IdPCredential
  ) -> Self
}

extension RequestOutcome {
  public var signedInSession: Session? { nil }

  public func mapping(
    session: (Session) -> Session, tokens: (Tokens) -> Tokens,
    credential: (IdPCredential) -> IdPCredential
  ) -> Self { self }
}

/// A question asked of an answer's outcome, whatever its type (`Answer.ask`): generic, so each
/// case's call is specialized and nothing is boxed.
protocol OutcomeQuestion {
  associatedtype Reply
  func ask<O: RequestOutcome>(_ outcome: O) -> Reply
}

/// A change to an answer's outcome that keeps its type (`Answer.changed`).
protocol OutcomeChange {
  func change<O: RequestOutcome>(_ outcome: O) -> O
}

extension LoadAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .sessionLoaded: "sessionLoaded"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["sessionLoaded", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }

  public func mapping(
    session: (Session) -> Session, tokens: (Tokens) -> Tokens,
    credential: (IdPCredential) -> IdPCredential
  ) -> Self {
    if case .sessionLoaded(let s?) = self { return .sessionLoaded(session: session(s)) }
    return self
  }
}

extension AuthorizeAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .providerSucceeded: "providerSucceeded"
    case .providerCancelled: "providerCancelled"
    case .providerFailed: "providerFailed"
    }
  }

  public static let names = ["providerSucceeded", "providerCancelled", "providerFailed"]

  public var error: AuthError? {
    if case .providerFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .providerFailed(error: error) }

  public func mapping(
    session: (Session) -> Session, tokens: (Tokens) -> Tokens,
    credential: (IdPCredential) -> IdPCredential
  ) -> Self {
    if case .providerSucceeded(let c) = self {
      return .providerSucceeded(credential: credential(c))
    }
    return self
  }
}

extension SessionAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .signedIn: "signedIn"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["signedIn", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }

  public var signedInSession: Session? {
    if case .signedIn(let s) = self { return s }
    return nil
  }

  public func mapping(
    session: (Session) -> Session, tokens: (Tokens) -> Tokens,
    credential: (IdPCredential) -> IdPCredential
  ) -> Self {
    if case .signedIn(let s) = self { return .signedIn(session: session(s)) }
    return self
  }
}

extension FirstFactorAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .signedIn: "signedIn"
    case .secondFactorRequired: "secondFactorRequired"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["signedIn", "secondFactorRequired", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }

  public var signedInSession: Session? {
    if case .signedIn(let s) = self { return s }
    return nil
  }

  public func mapping(
    session: (Session) -> Session, tokens: (Tokens) -> Tokens,
    credential: (IdPCredential) -> IdPCredential
  ) -> Self {
    if case .signedIn(let s) = self { return .signedIn(session: session(s)) }
    return self
  }
}

extension SecondFactorCodeAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .secondFactorCodeSent: "secondFactorCodeSent"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["secondFactorCodeSent", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }
}

extension SignInAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .signedIn: "signedIn"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["signedIn", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }

  public var signedInSession: Session? {
    if case .signedIn(let s) = self { return s }
    return nil
  }

  public func mapping(
    session: (Session) -> Session, tokens: (Tokens) -> Tokens,
    credential: (IdPCredential) -> IdPCredential
  ) -> Self {
    if case .signedIn(let s) = self { return .signedIn(session: session(s)) }
    return self
  }
}

extension IdPAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .signedIn: "signedIn"
    case .credentialAlreadyInUse: "credentialAlreadyInUse"
    case .secondFactorRequired: "secondFactorRequired"
    case .accountExistsWithDifferentCredential: "accountExistsWithDifferentCredential"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = [
    "signedIn", "credentialAlreadyInUse", "secondFactorRequired",
    "accountExistsWithDifferentCredential", "requestFailed",
  ]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }

  public var signedInSession: Session? {
    if case .signedIn(let s) = self { return s }
    return nil
  }

  public func mapping(
    session: (Session) -> Session, tokens: (Tokens) -> Tokens,
    credential: (IdPCredential) -> IdPCredential
  ) -> Self {
    switch self {
    case .signedIn(let s): .signedIn(session: session(s))
    case .credentialAlreadyInUse(let c, let email):
      .credentialAlreadyInUse(credential: credential(c), email: email)
    case .secondFactorRequired, .accountExistsWithDifferentCredential, .requestFailed: self
    }
  }
}

extension RefreshAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .tokenRefreshed: "tokenRefreshed"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["tokenRefreshed", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }

  public func mapping(
    session: (Session) -> Session, tokens: (Tokens) -> Tokens,
    credential: (IdPCredential) -> IdPCredential
  ) -> Self {
    if case .tokenRefreshed(let t) = self { return .tokenRefreshed(tokens(t)) }
    return self
  }
}

extension ResetAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .passwordResetSent: "passwordResetSent"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["passwordResetSent", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }
}

extension SignInLinkAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .signInLinkSent: "signInLinkSent"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["signInLinkSent", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }
}

extension DeleteAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .accountDeleted: "accountDeleted"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["accountDeleted", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }
}

extension RevokeAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .tokenRevoked: "tokenRevoked"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["tokenRevoked", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }
}

extension UnlinkAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .providerUnlinked: "providerUnlinked"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["providerUnlinked", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }
}

extension ProfileAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .profileUpdated: "profileUpdated"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["profileUpdated", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }
}

extension LookupAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .accountReloaded: "accountReloaded"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["accountReloaded", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }
}

extension VerificationEmailAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .verificationEmailSent: "verificationEmailSent"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["verificationEmailSent", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }
}

extension ActionCodeAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .actionCodeApplied: "actionCodeApplied"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["actionCodeApplied", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }
}

extension CheckCodeAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .actionCodeChecked: "actionCodeChecked"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["actionCodeChecked", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }
}

extension PasswordResetAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .passwordResetConfirmed: "passwordResetConfirmed"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["passwordResetConfirmed", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }
}

extension PasswordChangeAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .passwordChanged: "passwordChanged"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["passwordChanged", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }

  public var signedInSession: Session? {
    if case .passwordChanged(let s) = self { return s }
    return nil
  }

  public func mapping(
    session: (Session) -> Session, tokens: (Tokens) -> Tokens,
    credential: (IdPCredential) -> IdPCredential
  ) -> Self {
    if case .passwordChanged(let s) = self { return .passwordChanged(session: session(s)) }
    return self
  }
}

extension TotpSecretAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .totpSecretIssued: "totpSecretIssued"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["totpSecretIssued", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }
}

extension SecondFactorWithdrawnAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .secondFactorWithdrawn: "secondFactorWithdrawn"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["secondFactorWithdrawn", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }

  public func mapping(
    session: (Session) -> Session, tokens: (Tokens) -> Tokens,
    credential: (IdPCredential) -> IdPCredential
  ) -> Self {
    if case .secondFactorWithdrawn(let t?) = self { return .secondFactorWithdrawn(tokens(t)) }
    return self
  }
}

extension TotpEnrollmentAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .totpEnrolled: "totpEnrolled"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["totpEnrolled", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }

  public func mapping(
    session: (Session) -> Session, tokens: (Tokens) -> Tokens,
    credential: (IdPCredential) -> IdPCredential
  ) -> Self {
    if case .totpEnrolled(let t) = self { return .totpEnrolled(tokens(t)) }
    return self
  }
}

extension PhoneCodeAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .verificationCodeSent: "verificationCodeSent"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["verificationCodeSent", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }
}

extension PhoneSignInAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .signedIn: "signedIn"
    case .phoneNumberInUse: "phoneNumberInUse"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["signedIn", "phoneNumberInUse", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }

  public var signedInSession: Session? {
    if case .signedIn(let s) = self { return s }
    return nil
  }

  public func mapping(
    session: (Session) -> Session, tokens: (Tokens) -> Tokens,
    credential: (IdPCredential) -> IdPCredential
  ) -> Self {
    if case .signedIn(let s) = self { return .signedIn(session: session(s)) }
    return self
  }
}

extension PhoneEnrollmentAnswer: RequestOutcome {
  public var name: String {
    switch self {
    case .phoneEnrolled: "phoneEnrolled"
    case .requestFailed: "requestFailed"
    }
  }

  public static let names = ["phoneEnrolled", "requestFailed"]

  public var error: AuthError? {
    if case .requestFailed(let e) = self { return e }
    return nil
  }

  public static func failure(_ error: AuthError) -> Self { .requestFailed(error: error) }

  public func mapping(
    session: (Session) -> Session, tokens: (Tokens) -> Tokens,
    credential: (IdPCredential) -> IdPCredential
  ) -> Self {
    if case .phoneEnrolled(let t) = self { return .phoneEnrolled(tokens(t)) }
    return self
  }
}
