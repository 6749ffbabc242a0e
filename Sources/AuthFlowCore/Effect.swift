/// Work the machine asks its surroundings to do; plain data. Requests to the world (answered by
/// an `AuthInterpreter`) are typed apart from the local commands a runtime carries out itself.
public enum Effect: Hashable, Sendable {
  /// Send this request to the world; its answer comes back as `answer(_:)`, of the request's
  /// own kind.
  case request(RequestID, Request)
  /// Read the stored session; answered by `answer(.loadSession(id, …))`.
  case loadSession(requestId: RequestID)
  /// Store the session (replacing what was stored).
  case persistSession(session: Session)
  /// Remove the stored session.
  case clearSession
  /// Fire `timerFired{timer}` at `at`, replacing any earlier schedule of the same timer.
  case scheduleTimer(timer: TimerID, at: Instant)
  /// Forget a scheduled timer.
  case cancelTimer(timer: TimerID)
  /// Answer `idTokenRequested` calls.
  case deliverIDToken(requestIds: TokenRequestIDs, result: TokenResult)
  /// Sign out of a provider's SDK, so the next sign-in offers the account chooser; with
  /// `revoke` (after the account was deleted) also disconnect, revoking the SDK's own grant.
  case signOutProvider(provider: ProviderID, revoke: Bool)
  /// Tell the app something it must act on.
  case notify(notification: AuthNotification)
}

/// The answer to `idTokenRequested`.
public enum TokenResult: Hashable, Codable, Sendable {
  /// A valid ID token.
  case token(idToken: String)
  /// No token could be had.
  case failure(error: AuthError)
}

/// Something the app must act on.
public enum AuthNotification: Hashable, Codable, Sendable {
  /// Move the anonymous user's data from `from` to `to`, then send `migrationFinished`.
  case migrationReady(from: String, to: String)
  /// The server no longer accepts the session; the user is signed out.
  case sessionExpired
  /// An operation failed in a way that ended the session.
  case signedOutAfterError(error: AuthError)
  /// Reauthentication returned a different user; the original session stays.
  case userMismatch
  /// Something failed; show it.
  case error(error: AuthError)
  /// The password-reset email is on its way.
  case passwordResetSent(email: String)
  /// Another process signed out (or deleted the account): so is this one.
  case signedOutElsewhere
  /// Another process signed in someone else (`to`), replacing `from` (if anyone) here.
  case userChanged(from: String?, to: String)
  /// The verification email is on its way to `email`.
  case verificationEmailSent(email: String)
  /// A code from an email link was applied (for the account of `email`, when the server said).
  case actionCodeApplied(email: String?)
  /// What a code is for (`operation`: `PASSWORD_RESET`, `VERIFY_EMAIL`, …) and whose address.
  case actionCodeChecked(operation: String, email: String?)
  /// A password reset is done: sign in with the new password.
  case passwordResetConfirmed(email: String?)
  /// The signed-in account's password is the new one; its sessions elsewhere end.
  case passwordChanged
  /// The sign-in link is on its way to `email`.
  case signInLinkSent(email: String)
  /// A sign-in link was opened, but the machine does not know the address it was sent to (it
  /// was opened on another device, or after a relaunch): ask the user, then send
  /// `signInWithEmailLink` again with it.
  case emailNeededForLink
  /// An authenticator app is enrolled as a second factor: later sign-ins ask for its code.
  case totpEnrolled
  /// A phone number is enrolled as a second factor: later sign-ins can text a code to it.
  case phoneEnrolled
  /// A second factor was withdrawn from the account.
  case secondFactorWithdrawn
}

// MARK: - Names

extension Effect {
  /// Every effect name a scenario file may use. Google's consent step keeps its own spelling,
  /// `authorizeWithGoogle`; every other provider's is `authorize{provider}`.
  public enum Kind: String, Hashable, Sendable, CaseIterable {
    case loadSession, persistSession, clearSession, signUpAnonymously, authorizeWithGoogle
    case authorize, signInWithIdp, signInWithPassword, signUpWithPassword, sendPasswordReset
    case refreshToken, deleteAccount, revokeToken, unlinkProvider, lookupAccount
    case sendVerificationEmail, applyActionCode, checkActionCode, confirmPasswordReset
    case signInWithCustomToken, updatePassword, sendEmailChangeVerification, updateProfile
    case sendSignInLink, signInWithEmailLink, startSecondFactorSignIn, finalizeSecondFactorSignIn
    case startTotpEnrollment, finalizeTotpEnrollment, withdrawSecondFactor
    case startPhoneEnrollment, finalizePhoneEnrollment, sendVerificationCode, signInWithPhoneNumber
    case signInWithTemporaryProof
    case signOutProvider, scheduleTimer, cancelTimer, deliverIDToken, notify

    /// Whether this is a provider's consent step.
    public var isConsent: Bool { self == .authorizeWithGoogle || self == .authorize }

    /// Whether effects of this kind expect a result (and so are answered from a script).
    public var isRequest: Bool {
      switch self {
      case .loadSession, .signUpAnonymously, .authorizeWithGoogle, .authorize, .signInWithIdp,
        .signInWithPassword, .signUpWithPassword, .sendPasswordReset, .refreshToken,
        .deleteAccount, .revokeToken, .unlinkProvider, .lookupAccount, .sendVerificationEmail,
        .applyActionCode, .checkActionCode, .confirmPasswordReset, .signInWithCustomToken,
        .updatePassword, .sendEmailChangeVerification, .updateProfile, .sendSignInLink,
        .signInWithEmailLink, .startSecondFactorSignIn, .finalizeSecondFactorSignIn,
        .startTotpEnrollment, .finalizeTotpEnrollment, .withdrawSecondFactor,
        .startPhoneEnrollment, .finalizePhoneEnrollment, .sendVerificationCode,
        .signInWithPhoneNumber, .signInWithTemporaryProof:
        true
      case .persistSession, .clearSession, .signOutProvider, .scheduleTimer, .cancelTimer,
        .deliverIDToken, .notify:
        false
      }
    }
  }

  /// The effect's name.
  public var kind: Kind {
    switch self {
    case .request(_, let r): r.effectKind
    case .loadSession: .loadSession
    case .persistSession: .persistSession
    case .clearSession: .clearSession
    case .scheduleTimer: .scheduleTimer
    case .cancelTimer: .cancelTimer
    case .deliverIDToken: .deliverIDToken
    case .signOutProvider: .signOutProvider
    case .notify: .notify
    }
  }

  /// The effect's name, as used in scenario files.
  public var name: String { kind.rawValue }

  /// The request this effect sends to the world, if it is one.
  public var asRequest: Request? {
    if case .request(_, let r) = self { return r }
    return nil
  }

  /// The kind of answer this effect expects, if it expects one.
  public var requestKind: RequestKind? {
    switch self {
    case .request(_, let r): r.kind
    case .loadSession: .loadSession
    case .persistSession, .clearSession, .scheduleTimer, .cancelTimer, .deliverIDToken,
      .signOutProvider, .notify:
      nil
    }
  }

  /// The request id when this effect expects a result, else `nil`.
  public var requestId: RequestID? {
    switch self {
    case .request(let id, _), .loadSession(let id): id
    case .persistSession, .clearSession, .scheduleTimer, .cancelTimer, .deliverIDToken,
      .signOutProvider, .notify:
      nil
    }
  }
}

extension Request {
  /// The request's effect name (Google's consent step keeps its own spelling).
  public var effectKind: Effect.Kind {
    switch self {
    case .signUpAnonymously: .signUpAnonymously
    case .authorize(let p, _, _): p.hasGoogleSpellings ? .authorizeWithGoogle : .authorize
    case .signInWithIdp: .signInWithIdp
    case .signInWithPassword: .signInWithPassword
    case .signUpWithPassword: .signUpWithPassword
    case .sendPasswordReset: .sendPasswordReset
    case .refreshToken: .refreshToken
    case .deleteAccount: .deleteAccount
    case .revokeToken: .revokeToken
    case .unlinkProvider: .unlinkProvider
    case .lookupAccount: .lookupAccount
    case .sendVerificationEmail: .sendVerificationEmail
    case .applyActionCode: .applyActionCode
    case .checkActionCode: .checkActionCode
    case .confirmPasswordReset: .confirmPasswordReset
    case .signInWithCustomToken: .signInWithCustomToken
    case .updatePassword: .updatePassword
    case .sendEmailChangeVerification: .sendEmailChangeVerification
    case .updateProfile: .updateProfile
    case .sendSignInLink: .sendSignInLink
    case .signInWithEmailLink: .signInWithEmailLink
    case .startSecondFactorSignIn: .startSecondFactorSignIn
    case .finalizeSecondFactorSignIn: .finalizeSecondFactorSignIn
    case .startTotpEnrollment: .startTotpEnrollment
    case .finalizeTotpEnrollment: .finalizeTotpEnrollment
    case .withdrawSecondFactor: .withdrawSecondFactor
    case .startPhoneEnrollment: .startPhoneEnrollment
    case .finalizePhoneEnrollment: .finalizePhoneEnrollment
    case .sendVerificationCode: .sendVerificationCode
    case .signInWithPhoneNumber: .signInWithPhoneNumber
    case .signInWithTemporaryProof: .signInWithTemporaryProof
    }
  }

  /// The request's effect name.
  public var name: String { effectKind.rawValue }
}

extension AuthNotification {
  /// Every notification name.
  public enum Kind: String, Hashable, Sendable, CaseIterable {
    case migrationReady, sessionExpired, signedOutAfterError, userMismatch, error
    case passwordResetSent, signedOutElsewhere, userChanged, verificationEmailSent
    case actionCodeApplied, actionCodeChecked, passwordResetConfirmed, passwordChanged
    case signInLinkSent, emailNeededForLink, totpEnrolled, secondFactorWithdrawn, phoneEnrolled
  }

  /// The notification's name.
  public var kind: Kind {
    switch self {
    case .migrationReady: .migrationReady
    case .sessionExpired: .sessionExpired
    case .signedOutAfterError: .signedOutAfterError
    case .userMismatch: .userMismatch
    case .error: .error
    case .passwordResetSent: .passwordResetSent
    case .signedOutElsewhere: .signedOutElsewhere
    case .userChanged: .userChanged
    case .verificationEmailSent: .verificationEmailSent
    case .actionCodeApplied: .actionCodeApplied
    case .actionCodeChecked: .actionCodeChecked
    case .passwordResetConfirmed: .passwordResetConfirmed
    case .passwordChanged: .passwordChanged
    case .signInLinkSent: .signInLinkSent
    case .emailNeededForLink: .emailNeededForLink
    case .totpEnrolled: .totpEnrolled
    case .secondFactorWithdrawn: .secondFactorWithdrawn
    case .phoneEnrolled: .phoneEnrolled
    }
  }
}

// MARK: - JSON

extension Effect: Codable {
  /// The wire form: one flat case per effect name, a request's id beside its fields.
  private enum Wire: Codable {
    case loadSession(requestId: RequestID)
    case persistSession(session: Session)
    case clearSession
    case signUpAnonymously(requestId: RequestID)
    case authorizeWithGoogle(requestId: RequestID, intent: AuthorizationIntent, loginHint: String?)
    case authorize(
      requestId: RequestID, provider: ProviderID, intent: AuthorizationIntent, loginHint: String?)
    case signInWithIdp(requestId: RequestID, credential: IdPCredential, linkTo: String?)
    case signInWithPassword(requestId: RequestID, email: String, password: String)
    case signUpWithPassword(requestId: RequestID, email: String, password: String, linkTo: String?)
    case sendPasswordReset(requestId: RequestID, email: String)
    case refreshToken(requestId: RequestID, refreshToken: String)
    case deleteAccount(requestId: RequestID, idToken: String)
    case revokeToken(
      requestId: RequestID, provider: ProviderID, authorizationCode: String, idToken: String)
    case unlinkProvider(requestId: RequestID, provider: ProviderID, idToken: String)
    case lookupAccount(requestId: RequestID, idToken: String)
    case sendVerificationEmail(requestId: RequestID, idToken: String)
    case applyActionCode(requestId: RequestID, code: String)
    case checkActionCode(requestId: RequestID, code: String)
    case confirmPasswordReset(requestId: RequestID, code: String, newPassword: String)
    case signInWithCustomToken(requestId: RequestID, token: String)
    case updatePassword(requestId: RequestID, idToken: String, newPassword: String)
    case sendEmailChangeVerification(requestId: RequestID, idToken: String, newEmail: String)
    case updateProfile(
      requestId: RequestID, idToken: String, displayName: String?, photoURL: String?)
    case sendSignInLink(requestId: RequestID, email: String)
    case signInWithEmailLink(requestId: RequestID, email: String, code: String, linkTo: String?)
    case startSecondFactorSignIn(
      requestId: RequestID, pendingCredential: String, factor: String,
      appVerification: AppVerification?)
    case finalizeSecondFactorSignIn(
      requestId: RequestID, pendingCredential: String, factor: String, sessionInfo: String?,
      verificationCode: String, displayName: String?)
    case startTotpEnrollment(requestId: RequestID, idToken: String)
    case finalizeTotpEnrollment(
      requestId: RequestID, idToken: String, sessionInfo: String, verificationCode: String,
      displayName: String)
    case withdrawSecondFactor(requestId: RequestID, idToken: String, factor: String)
    case startPhoneEnrollment(
      requestId: RequestID, idToken: String, phoneNumber: String, appVerification: AppVerification?)
    case finalizePhoneEnrollment(
      requestId: RequestID, idToken: String, sessionInfo: String, verificationCode: String,
      displayName: String)
    case sendVerificationCode(
      requestId: RequestID, phoneNumber: String, appVerification: AppVerification?)
    case signInWithPhoneNumber(
      requestId: RequestID, sessionInfo: String, verificationCode: String, linkTo: String?)
    case signInWithTemporaryProof(requestId: RequestID, phoneNumber: String, temporaryProof: String)
    case signOutProvider(provider: ProviderID, revoke: Bool?)
    case scheduleTimer(timer: TimerID, at: Instant)
    case cancelTimer(timer: TimerID)
    case deliverIDToken(requestIds: TokenRequestIDs, result: TokenResult)
    case notify(notification: AuthNotification)
  }

  public init(from decoder: any Decoder) throws {
    switch try Wire(from: decoder) {
    case .loadSession(let id): self = .loadSession(requestId: id)
    case .persistSession(let s): self = .persistSession(session: s)
    case .clearSession: self = .clearSession
    case .signUpAnonymously(let id): self = .request(id, .signUpAnonymously)
    case .authorizeWithGoogle(let id, let i, let h):
      self = .request(id, .authorize(provider: .google, intent: i, loginHint: h))
    case .authorize(let id, let p, let i, let h):
      self = .request(id, .authorize(provider: p, intent: i, loginHint: h))
    case .signInWithIdp(let id, let c, let l):
      self = .request(id, .signInWithIdp(credential: c, linkTo: l))
    case .signInWithPassword(let id, let e, let p):
      self = .request(id, .signInWithPassword(email: e, password: p))
    case .signUpWithPassword(let id, let e, let p, let l):
      self = .request(id, .signUpWithPassword(email: e, password: p, linkTo: l))
    case .sendPasswordReset(let id, let e): self = .request(id, .sendPasswordReset(email: e))
    case .refreshToken(let id, let t): self = .request(id, .refreshToken(refreshToken: t))
    case .deleteAccount(let id, let t): self = .request(id, .deleteAccount(idToken: t))
    case .revokeToken(let id, let p, let c, let t):
      self = .request(id, .revokeToken(provider: p, authorizationCode: c, idToken: t))
    case .unlinkProvider(let id, let p, let t):
      self = .request(id, .unlinkProvider(provider: p, idToken: t))
    case .lookupAccount(let id, let t): self = .request(id, .lookupAccount(idToken: t))
    case .sendVerificationEmail(let id, let t):
      self = .request(id, .sendVerificationEmail(idToken: t))
    case .applyActionCode(let id, let c): self = .request(id, .applyActionCode(code: c))
    case .checkActionCode(let id, let c): self = .request(id, .checkActionCode(code: c))
    case .confirmPasswordReset(let id, let c, let p):
      self = .request(id, .confirmPasswordReset(code: c, newPassword: p))
    case .signInWithCustomToken(let id, let t):
      self = .request(id, .signInWithCustomToken(token: t))
    case .updatePassword(let id, let t, let p):
      self = .request(id, .updatePassword(idToken: t, newPassword: p))
    case .sendEmailChangeVerification(let id, let t, let e):
      self = .request(id, .sendEmailChangeVerification(idToken: t, newEmail: e))
    case .updateProfile(let id, let t, let n, let u):
      self = .request(
        id, .updateProfile(idToken: t, change: ProfileChange(displayName: n, photoURL: u)))
    case .sendSignInLink(let id, let e): self = .request(id, .sendSignInLink(email: e))
    case .signInWithEmailLink(let id, let e, let c, let l):
      self = .request(id, .signInWithEmailLink(email: e, code: c, linkTo: l))
    case .startSecondFactorSignIn(let id, let p, let f, let v):
      self = .request(
        id, .startSecondFactorSignIn(pendingCredential: p, factor: f, appVerification: v))
    case .finalizeSecondFactorSignIn(let id, let p, let f, let i, let c, let n):
      self = .request(
        id,
        .finalizeSecondFactorSignIn(
          pendingCredential: p, factor: f, sessionInfo: i, verificationCode: c, displayName: n))
    case .startTotpEnrollment(let id, let t): self = .request(id, .startTotpEnrollment(idToken: t))
    case .finalizeTotpEnrollment(let id, let t, let i, let c, let n):
      self = .request(
        id,
        .finalizeTotpEnrollment(idToken: t, sessionInfo: i, verificationCode: c, displayName: n))
    case .withdrawSecondFactor(let id, let t, let f):
      self = .request(id, .withdrawSecondFactor(idToken: t, factor: f))
    case .startPhoneEnrollment(let id, let t, let p, let v):
      self = .request(
        id, .startPhoneEnrollment(idToken: t, phoneNumber: p, appVerification: v))
    case .finalizePhoneEnrollment(let id, let t, let i, let c, let n):
      self = .request(
        id,
        .finalizePhoneEnrollment(idToken: t, sessionInfo: i, verificationCode: c, displayName: n))
    case .sendVerificationCode(let id, let p, let v):
      self = .request(id, .sendVerificationCode(phoneNumber: p, appVerification: v))
    case .signInWithPhoneNumber(let id, let i, let c, let l):
      self = .request(
        id, .signInWithPhoneNumber(sessionInfo: i, verificationCode: c, linkTo: l))
    case .signInWithTemporaryProof(let id, let p, let t):
      self = .request(
        id, .signInWithTemporaryProof(PhoneProof(phoneNumber: p, temporaryProof: t)))
    case .signOutProvider(let p, let revoke):
      self = .signOutProvider(provider: p, revoke: revoke ?? false)
    case .scheduleTimer(let t, let at): self = .scheduleTimer(timer: t, at: at)
    case .cancelTimer(let t): self = .cancelTimer(timer: t)
    case .deliverIDToken(let ids, let r): self = .deliverIDToken(requestIds: ids, result: r)
    case .notify(let n): self = .notify(notification: n)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    let wire: Wire
    switch self {
    case .request(let id, let request):
      switch request {
      case .signUpAnonymously: wire = .signUpAnonymously(requestId: id)
      case .authorize(let p, let i, let h):
        wire =
          p.hasGoogleSpellings
          ? .authorizeWithGoogle(requestId: id, intent: i, loginHint: h)
          : .authorize(requestId: id, provider: p, intent: i, loginHint: h)
      case .signInWithIdp(let c, let l):
        wire = .signInWithIdp(requestId: id, credential: c, linkTo: l)
      case .signInWithPassword(let e, let p):
        wire = .signInWithPassword(requestId: id, email: e, password: p)
      case .signUpWithPassword(let e, let p, let l):
        wire = .signUpWithPassword(requestId: id, email: e, password: p, linkTo: l)
      case .sendPasswordReset(let e): wire = .sendPasswordReset(requestId: id, email: e)
      case .refreshToken(let t): wire = .refreshToken(requestId: id, refreshToken: t)
      case .deleteAccount(let t): wire = .deleteAccount(requestId: id, idToken: t)
      case .revokeToken(let p, let c, let t):
        wire = .revokeToken(requestId: id, provider: p, authorizationCode: c, idToken: t)
      case .unlinkProvider(let p, let t):
        wire = .unlinkProvider(requestId: id, provider: p, idToken: t)
      case .lookupAccount(let t): wire = .lookupAccount(requestId: id, idToken: t)
      case .sendVerificationEmail(let t): wire = .sendVerificationEmail(requestId: id, idToken: t)
      case .applyActionCode(let c): wire = .applyActionCode(requestId: id, code: c)
      case .checkActionCode(let c): wire = .checkActionCode(requestId: id, code: c)
      case .confirmPasswordReset(let c, let p):
        wire = .confirmPasswordReset(requestId: id, code: c, newPassword: p)
      case .signInWithCustomToken(let t): wire = .signInWithCustomToken(requestId: id, token: t)
      case .updatePassword(let t, let p):
        wire = .updatePassword(requestId: id, idToken: t, newPassword: p)
      case .sendEmailChangeVerification(let t, let e):
        wire = .sendEmailChangeVerification(requestId: id, idToken: t, newEmail: e)
      case .updateProfile(let t, let c):
        wire = .updateProfile(
          requestId: id, idToken: t, displayName: c.displayName, photoURL: c.photoURL)
      case .sendSignInLink(let e): wire = .sendSignInLink(requestId: id, email: e)
      case .signInWithEmailLink(let e, let c, let l):
        wire = .signInWithEmailLink(requestId: id, email: e, code: c, linkTo: l)
      case .startSecondFactorSignIn(let p, let f, let v):
        wire = .startSecondFactorSignIn(
          requestId: id, pendingCredential: p, factor: f, appVerification: v)
      case .finalizeSecondFactorSignIn(let p, let f, let i, let c, let n):
        wire = .finalizeSecondFactorSignIn(
          requestId: id, pendingCredential: p, factor: f, sessionInfo: i, verificationCode: c,
          displayName: n)
      case .startTotpEnrollment(let t): wire = .startTotpEnrollment(requestId: id, idToken: t)
      case .finalizeTotpEnrollment(let t, let i, let c, let n):
        wire = .finalizeTotpEnrollment(
          requestId: id, idToken: t, sessionInfo: i, verificationCode: c, displayName: n)
      case .sendVerificationCode(let p, let v):
        wire = .sendVerificationCode(requestId: id, phoneNumber: p, appVerification: v)
      case .signInWithPhoneNumber(let i, let c, let l):
        wire = .signInWithPhoneNumber(
          requestId: id, sessionInfo: i, verificationCode: c, linkTo: l)
      case .signInWithTemporaryProof(let p):
        wire = .signInWithTemporaryProof(
          requestId: id, phoneNumber: p.phoneNumber, temporaryProof: p.temporaryProof)
      case .withdrawSecondFactor(let t, let f):
        wire = .withdrawSecondFactor(requestId: id, idToken: t, factor: f)
      case .startPhoneEnrollment(let t, let p, let v):
        wire = .startPhoneEnrollment(
          requestId: id, idToken: t, phoneNumber: p, appVerification: v)
      case .finalizePhoneEnrollment(let t, let i, let c, let n):
        wire = .finalizePhoneEnrollment(
          requestId: id, idToken: t, sessionInfo: i, verificationCode: c, displayName: n)
      }
    case .loadSession(let id): wire = .loadSession(requestId: id)
    case .persistSession(let s): wire = .persistSession(session: s)
    case .clearSession: wire = .clearSession
    case .scheduleTimer(let t, let at): wire = .scheduleTimer(timer: t, at: at)
    case .cancelTimer(let t): wire = .cancelTimer(timer: t)
    case .deliverIDToken(let ids, let r): wire = .deliverIDToken(requestIds: ids, result: r)
    case .signOutProvider(let p, let revoke):
      // `revoke` is written only when true, so a plain sign-out reads as it always did.
      wire = .signOutProvider(provider: p, revoke: revoke ? true : nil)
    case .notify(let n): wire = .notify(notification: n)
    }
    try wire.encode(to: encoder)
  }
}
