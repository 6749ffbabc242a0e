import AuthFlowCore

/// An interpreter for trying `AuthRuntime` in a test or a preview: it answers each request
/// kind from answers you queue, or from a closure, and records what it was asked.
///
/// ```swift
/// let interpreter = TestInterpreter()
/// await interpreter.answer(.signUpAnonymously, with: .signedIn(session: session))
/// await interpreter.answer(.refreshToken, with: .requestFailed(error: AuthError(code: "NETWORK")))
/// let runtime = AuthRuntime(interpreter: interpreter, store: InMemorySessionStore())
/// ```
///
/// Each request kind (`Queue`'s static members: `signUpAnonymously`, `authorize`,
/// `signInWithIdp`, `signInWithPassword`, `signUpWithPassword`, `sendPasswordReset`,
/// `refreshToken`, `deleteAccount`, `revokeToken`, `unlinkProvider`, `lookupAccount`,
/// `sendVerificationEmail`, `applyActionCode`, `checkActionCode`, `confirmPasswordReset`,
/// `signInWithCustomToken`, `updatePassword`, `sendEmailChangeVerification`, `updateProfile`,
/// `sendSignInLink`, `signInWithEmailLink`, `startSecondFactorSignIn`,
/// `finalizeSecondFactorSignIn`, `startTotpEnrollment`, `finalizeTotpEnrollment`,
/// `withdrawSecondFactor`, `startPhoneEnrollment`, `finalizePhoneEnrollment`,
/// `sendVerificationCode`, `signInWithPhoneNumber`, `signInWithTemporaryProof`) takes only its own answer
/// type, so an answer of the wrong shape does not compile. A request with nothing queued and no
/// closure is answered `requestFailed(NOT_SCRIPTED)` (`providerFailed` for a consent step),
/// naming the request, so a missing answer shows up as an error notification rather than a
/// request that never ends.
public actor TestInterpreter: AuthInterpreter {
  /// A request kind and the type of answer it takes.
  public struct Queue<Answer: Sendable>: Sendable {
    /// The request kind.
    public let kind: RequestKind
  }

  private var queued: [RequestKind: [any Sendable]] = [:]
  private var handlers: [RequestKind: @Sendable (Request) async -> any Sendable] = [:]
  private var held: [RequestKind: [CheckedContinuation<Void, Never>]] = [:]
  private var holding: Set<RequestKind> = []

  /// Every request performed, in order.
  public private(set) var requests: [Request] = []
  /// Every provider signed out of, in order.
  public private(set) var signedOut: [ProviderID] = []
  /// The providers also disconnected (their grant revoked) when signed out after a deletion.
  public private(set) var disconnected: [ProviderID] = []

  /// An interpreter with nothing queued.
  public init() {}

  /// Queues `answers` for requests of `queue`'s kind, one per request in order.
  public func answer<A>(_ queue: Queue<A>, with answers: A...) {
    queued[queue.kind, default: []] += answers.map { $0 as any Sendable }
  }

  /// Answers every request of `queue`'s kind that finds nothing queued by calling `handler`.
  public func answer<A>(_ queue: Queue<A>, using handler: @escaping @Sendable (Request) async -> A)
  {
    handlers[queue.kind] = { await handler($0) }
  }

  /// Holds requests of `kind` unanswered until `release(_:)`: to see what the app shows while
  /// a request is in flight, or to make several callers wait for one refresh.
  public func hold(_ kind: RequestKind) { holding.insert(kind) }

  /// Lets the held requests of `kind` (and later ones) go on.
  public func release(_ kind: RequestKind) {
    holding.remove(kind)
    for c in held.removeValue(forKey: kind) ?? [] { c.resume() }
  }

  /// How many requests of `kind` were performed.
  public func count(_ kind: RequestKind) -> Int { requests.filter { $0.kind == kind }.count }

  /// The next answer for `request`: queued, from the handler, or `missing`.
  private func next<A>(_ request: Request, missing: (AuthError) -> A) async -> A {
    requests.append(request)
    let kind = request.kind
    if holding.contains(kind) {
      await withCheckedContinuation { held[kind, default: []].append($0) }
    }
    if var list = queued[kind], !list.isEmpty {
      let first = list.removeFirst()
      queued[kind] = list
      if let a = first as? A { return a }
    }
    if let handler = handlers[kind], let a = await handler(request) as? A { return a }
    return missing(
      AuthError(code: "NOT_SCRIPTED", message: "no answer queued for \(kind.rawValue)"))
  }

  public func signUpAnonymously() async -> SessionAnswer {
    await next(.signUpAnonymously) { .requestFailed(error: $0) }
  }

  public func authorize(provider: ProviderID, intent: AuthorizationIntent, loginHint: String?)
    async -> AuthorizeAnswer
  {
    await next(.authorize(provider: provider, intent: intent, loginHint: loginHint)) {
      .providerFailed(error: $0)
    }
  }

  public func signInWithIdp(credential: IdPCredential, linkTo: String?) async -> IdPAnswer {
    await next(.signInWithIdp(credential: credential, linkTo: linkTo)) {
      .requestFailed(error: $0)
    }
  }

  public func signInWithPassword(email: String, password: String) async -> FirstFactorAnswer {
    await next(.signInWithPassword(email: email, password: password)) {
      .requestFailed(error: $0)
    }
  }

  public func signUpWithPassword(email: String, password: String, linkTo: String?) async
    -> SessionAnswer
  {
    await next(.signUpWithPassword(email: email, password: password, linkTo: linkTo)) {
      .requestFailed(error: $0)
    }
  }

  public func sendPasswordReset(email: String) async -> ResetAnswer {
    await next(.sendPasswordReset(email: email)) { .requestFailed(error: $0) }
  }

  public func refreshToken(_ refreshToken: String) async -> RefreshAnswer {
    await next(.refreshToken(refreshToken: refreshToken)) { .requestFailed(error: $0) }
  }

  public func deleteAccount(idToken: String) async -> DeleteAnswer {
    await next(.deleteAccount(idToken: idToken)) { .requestFailed(error: $0) }
  }

  public func revokeToken(provider: ProviderID, authorizationCode: String, idToken: String) async
    -> RevokeAnswer
  {
    await next(
      .revokeToken(provider: provider, authorizationCode: authorizationCode, idToken: idToken)
    ) { .requestFailed(error: $0) }
  }

  public func unlinkProvider(provider: ProviderID, idToken: String) async -> UnlinkAnswer {
    await next(.unlinkProvider(provider: provider, idToken: idToken)) {
      .requestFailed(error: $0)
    }
  }

  public func lookupAccount(idToken: String) async -> LookupAnswer {
    await next(.lookupAccount(idToken: idToken)) { .requestFailed(error: $0) }
  }

  public func sendVerificationEmail(idToken: String) async -> VerificationEmailAnswer {
    await next(.sendVerificationEmail(idToken: idToken)) { .requestFailed(error: $0) }
  }

  public func applyActionCode(code: String) async -> ActionCodeAnswer {
    await next(.applyActionCode(code: code)) { .requestFailed(error: $0) }
  }

  public func checkActionCode(code: String) async -> CheckCodeAnswer {
    await next(.checkActionCode(code: code)) { .requestFailed(error: $0) }
  }

  public func confirmPasswordReset(code: String, newPassword: String) async
    -> PasswordResetAnswer
  {
    await next(.confirmPasswordReset(code: code, newPassword: newPassword)) {
      .requestFailed(error: $0)
    }
  }

  public func signInWithCustomToken(token: String) async -> SignInAnswer {
    await next(.signInWithCustomToken(token: token)) { .requestFailed(error: $0) }
  }

  public func updatePassword(idToken: String, newPassword: String) async -> PasswordChangeAnswer {
    await next(.updatePassword(idToken: idToken, newPassword: newPassword)) {
      .requestFailed(error: $0)
    }
  }

  public func sendEmailChangeVerification(idToken: String, newEmail: String) async
    -> VerificationEmailAnswer
  {
    await next(.sendEmailChangeVerification(idToken: idToken, newEmail: newEmail)) {
      .requestFailed(error: $0)
    }
  }

  public func updateProfile(idToken: String, change: ProfileChange) async -> ProfileAnswer {
    await next(.updateProfile(idToken: idToken, change: change)) { .requestFailed(error: $0) }
  }

  public func sendSignInLink(email: String) async -> SignInLinkAnswer {
    await next(.sendSignInLink(email: email)) { .requestFailed(error: $0) }
  }

  public func signInWithEmailLink(email: String, code: String, linkTo: String?) async
    -> FirstFactorAnswer
  {
    await next(.signInWithEmailLink(email: email, code: code, linkTo: linkTo)) {
      .requestFailed(error: $0)
    }
  }

  public func startSecondFactorSignIn(
    pendingCredential: String, factor: String, appVerification: AppVerification?
  ) async -> SecondFactorCodeAnswer {
    await next(
      .startSecondFactorSignIn(
        pendingCredential: pendingCredential, factor: factor, appVerification: appVerification)
    ) { .requestFailed(error: $0) }
  }

  public func finalizeSecondFactorSignIn(
    pendingCredential: String, factor: String, sessionInfo: String?, verificationCode: String,
    displayName: String?
  ) async -> SessionAnswer {
    await next(
      .finalizeSecondFactorSignIn(
        pendingCredential: pendingCredential, factor: factor, sessionInfo: sessionInfo,
        verificationCode: verificationCode, displayName: displayName)
    ) { .requestFailed(error: $0) }
  }

  public func startTotpEnrollment(idToken: String) async -> TotpSecretAnswer {
    await next(.startTotpEnrollment(idToken: idToken)) { .requestFailed(error: $0) }
  }

  public func finalizeTotpEnrollment(
    idToken: String, sessionInfo: String, verificationCode: String, displayName: String
  ) async -> TotpEnrollmentAnswer {
    await next(
      .finalizeTotpEnrollment(
        idToken: idToken, sessionInfo: sessionInfo, verificationCode: verificationCode,
        displayName: displayName)
    ) { .requestFailed(error: $0) }
  }

  public func withdrawSecondFactor(idToken: String, factor: String) async
    -> SecondFactorWithdrawnAnswer
  {
    await next(.withdrawSecondFactor(idToken: idToken, factor: factor)) {
      .requestFailed(error: $0)
    }
  }

  public func startPhoneEnrollment(
    idToken: String, phoneNumber: String, appVerification: AppVerification?
  )
    async -> SecondFactorCodeAnswer
  {
    await next(
      .startPhoneEnrollment(
        idToken: idToken, phoneNumber: phoneNumber, appVerification: appVerification)
    ) { .requestFailed(error: $0) }
  }

  public func finalizePhoneEnrollment(
    idToken: String, sessionInfo: String, verificationCode: String, displayName: String
  ) async -> PhoneEnrollmentAnswer {
    await next(
      .finalizePhoneEnrollment(
        idToken: idToken, sessionInfo: sessionInfo, verificationCode: verificationCode,
        displayName: displayName)
    ) { .requestFailed(error: $0) }
  }

  public func sendVerificationCode(phoneNumber: String, appVerification: AppVerification?) async
    -> PhoneCodeAnswer
  {
    await next(.sendVerificationCode(phoneNumber: phoneNumber, appVerification: appVerification)) {
      .requestFailed(error: $0)
    }
  }

  public func signInWithPhoneNumber(sessionInfo: String, verificationCode: String, linkTo: String?)
    async -> PhoneSignInAnswer
  {
    await next(
      .signInWithPhoneNumber(
        sessionInfo: sessionInfo, verificationCode: verificationCode, linkTo: linkTo)
    ) { .requestFailed(error: $0) }
  }

  public func signInWithTemporaryProof(_ proof: PhoneProof) async -> SessionAnswer {
    await next(.signInWithTemporaryProof(proof)) { .requestFailed(error: $0) }
  }

  public func signOut(of provider: ProviderID, revoke: Bool) async {
    signedOut.append(provider)
    if revoke { disconnected.append(provider) }
  }
}

extension TestInterpreter.Queue where Answer == SessionAnswer {
  /// `signUpAnonymously`.
  public static var signUpAnonymously: Self { Self(kind: .signUpAnonymously) }
  /// `signUpWithPassword`.
  public static var signUpWithPassword: Self { Self(kind: .signUpWithPassword) }
  /// `finalizeSecondFactorSignIn`.
  public static var finalizeSecondFactorSignIn: Self { Self(kind: .finalizeSecondFactorSignIn) }
  /// `signInWithTemporaryProof`.
  public static var signInWithTemporaryProof: Self { Self(kind: .signInWithTemporaryProof) }
}

extension TestInterpreter.Queue where Answer == PhoneSignInAnswer {
  /// `signInWithPhoneNumber`.
  public static var signInWithPhoneNumber: Self { Self(kind: .signInWithPhoneNumber) }
}

extension TestInterpreter.Queue where Answer == PhoneCodeAnswer {
  /// `sendVerificationCode`.
  public static var sendVerificationCode: Self { Self(kind: .sendVerificationCode) }
}

extension TestInterpreter.Queue where Answer == FirstFactorAnswer {
  /// `signInWithPassword`.
  public static var signInWithPassword: Self { Self(kind: .signInWithPassword) }
  /// `signInWithEmailLink`.
  public static var signInWithEmailLink: Self { Self(kind: .signInWithEmailLink) }
}

extension TestInterpreter.Queue where Answer == SecondFactorCodeAnswer {
  /// `startSecondFactorSignIn`.
  public static var startSecondFactorSignIn: Self { Self(kind: .startSecondFactorSignIn) }
  /// `startPhoneEnrollment`.
  public static var startPhoneEnrollment: Self { Self(kind: .startPhoneEnrollment) }
}

extension TestInterpreter.Queue where Answer == PhoneEnrollmentAnswer {
  /// `finalizePhoneEnrollment`.
  public static var finalizePhoneEnrollment: Self { Self(kind: .finalizePhoneEnrollment) }
}

extension TestInterpreter.Queue where Answer == TotpSecretAnswer {
  /// `startTotpEnrollment`.
  public static var startTotpEnrollment: Self { Self(kind: .startTotpEnrollment) }
}

extension TestInterpreter.Queue where Answer == TotpEnrollmentAnswer {
  /// `finalizeTotpEnrollment`.
  public static var finalizeTotpEnrollment: Self { Self(kind: .finalizeTotpEnrollment) }
}

extension TestInterpreter.Queue where Answer == SecondFactorWithdrawnAnswer {
  /// `withdrawSecondFactor`.
  public static var withdrawSecondFactor: Self { Self(kind: .withdrawSecondFactor) }
}

extension TestInterpreter.Queue where Answer == SignInLinkAnswer {
  /// `sendSignInLink`.
  public static var sendSignInLink: Self { Self(kind: .sendSignInLink) }
}

extension TestInterpreter.Queue where Answer == AuthorizeAnswer {
  /// A provider's consent step (`authorize`, Google's included).
  public static var authorize: Self { Self(kind: .authorize) }
}

extension TestInterpreter.Queue where Answer == IdPAnswer {
  /// `signInWithIdp`.
  public static var signInWithIdp: Self { Self(kind: .signInWithIdp) }
}

extension TestInterpreter.Queue where Answer == SignInAnswer {
  /// `signInWithCustomToken`.
  public static var signInWithCustomToken: Self { Self(kind: .signInWithCustomToken) }
}

extension TestInterpreter.Queue where Answer == ResetAnswer {
  /// `sendPasswordReset`.
  public static var sendPasswordReset: Self { Self(kind: .sendPasswordReset) }
}

extension TestInterpreter.Queue where Answer == RefreshAnswer {
  /// `refreshToken`.
  public static var refreshToken: Self { Self(kind: .refreshToken) }
}

extension TestInterpreter.Queue where Answer == DeleteAnswer {
  /// `deleteAccount`.
  public static var deleteAccount: Self { Self(kind: .deleteAccount) }
}

extension TestInterpreter.Queue where Answer == RevokeAnswer {
  /// `revokeToken`.
  public static var revokeToken: Self { Self(kind: .revokeToken) }
}

extension TestInterpreter.Queue where Answer == UnlinkAnswer {
  /// `unlinkProvider`.
  public static var unlinkProvider: Self { Self(kind: .unlinkProvider) }
}

extension TestInterpreter.Queue where Answer == LookupAnswer {
  /// `lookupAccount` (a reload).
  public static var lookupAccount: Self { Self(kind: .lookupAccount) }
}

extension TestInterpreter.Queue where Answer == ProfileAnswer {
  /// `updateProfile`.
  public static var updateProfile: Self { Self(kind: .updateProfile) }
}

extension TestInterpreter.Queue where Answer == VerificationEmailAnswer {
  /// `sendVerificationEmail`.
  public static var sendVerificationEmail: Self { Self(kind: .sendVerificationEmail) }
  /// `sendEmailChangeVerification`.
  public static var sendEmailChangeVerification: Self {
    Self(kind: .sendEmailChangeVerification)
  }
}

extension TestInterpreter.Queue where Answer == ActionCodeAnswer {
  /// `applyActionCode`.
  public static var applyActionCode: Self { Self(kind: .applyActionCode) }
}

extension TestInterpreter.Queue where Answer == CheckCodeAnswer {
  /// `checkActionCode`.
  public static var checkActionCode: Self { Self(kind: .checkActionCode) }
}

extension TestInterpreter.Queue where Answer == PasswordChangeAnswer {
  /// `updatePassword`.
  public static var updatePassword: Self { Self(kind: .updatePassword) }
}

extension TestInterpreter.Queue where Answer == PasswordResetAnswer {
  /// `confirmPasswordReset`.
  public static var confirmPasswordReset: Self { Self(kind: .confirmPasswordReset) }
}
