/// Work the machine asks its surroundings to do; plain data. Requests to the world (answered by
/// an `AuthInterpreter`) are typed apart from the local commands a runtime carries out itself.
public enum Effect: Hashable, Sendable {
  /// Send this request to the world; its answer comes back as `answer(_:)`, of the request's
  /// own kind.
  indirect case request(RequestID, Request)
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
  /// Every effect name a scenario file may use: a request's (`RequestKind`, the stored
  /// session's read included), Google's consent step under its own spelling,
  /// `authorizeWithGoogle` (every other provider's is `authorize{provider}`), and the local
  /// commands. A new request kind is a new effect name with nothing to write here.
  public enum Kind: Hashable, Sendable, CaseIterable, RawRepresentable {
    /// A request that gets an answer.
    case request(RequestKind)
    /// Google's consent step (`authorize` with Google's spellings).
    case authorizeWithGoogle
    case persistSession, clearSession, signOutProvider, scheduleTimer, cancelTimer
    case deliverIDToken, notify

    /// Every effect name, in the order the scenario format's tables list them.
    public static let allCases: [Kind] =
      [
        .request(.loadSession), .persistSession, .clearSession, .request(.signUpAnonymously),
        .authorizeWithGoogle,
      ]
      + RequestKind.allCases.filter { $0 != .loadSession && $0 != .signUpAnonymously }
      .map(Kind.request)
      + [.signOutProvider, .scheduleTimer, .cancelTimer, .deliverIDToken, .notify]

    public init?(rawValue: String) {
      guard let kind = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
      self = kind
    }

    /// The name, as scenario files write it.
    public var rawValue: String {
      switch self {
      case .request(let kind): kind.rawValue
      case .authorizeWithGoogle: "authorizeWithGoogle"
      case .persistSession: "persistSession"
      case .clearSession: "clearSession"
      case .signOutProvider: "signOutProvider"
      case .scheduleTimer: "scheduleTimer"
      case .cancelTimer: "cancelTimer"
      case .deliverIDToken: "deliverIDToken"
      case .notify: "notify"
      }
    }

    /// Whether this is a provider's consent step.
    public var isConsent: Bool { self == .authorizeWithGoogle || self == .request(.authorize) }

    /// Whether effects of this kind expect a result (and so are answered from a script).
    public var isRequest: Bool { requestKind != nil }

    /// The kind of request an effect of this kind sends, if it sends one.
    public var requestKind: RequestKind? {
      switch self {
      case .request(let kind): kind
      case .authorizeWithGoogle: .authorize
      case .persistSession, .clearSession, .signOutProvider, .scheduleTimer, .cancelTimer,
        .deliverIDToken, .notify:
        nil
      }
    }

    /// The fields an effect of this kind has, as scenario files name them.
    public var fields: [String] {
      switch self {
      case .request(let kind): ["requestId"] + kind.fields
      case .authorizeWithGoogle:
        ["requestId"] + RequestKind.authorize.fields.filter { $0 != "provider" }
      case .persistSession: ["session"]
      case .clearSession: []
      case .signOutProvider: ["provider", "revoke"]
      case .scheduleTimer: ["timer", "at"]
      case .cancelTimer: ["timer"]
      case .deliverIDToken: ["requestIds", "result"]
      case .notify: ["notification"]
      }
    }
  }

  /// The effect's name.
  public var kind: Kind {
    switch self {
    case .request(_, let r): r.effectKind
    case .loadSession: .request(.loadSession)
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
    if case .authorize(let p, _, _) = self, p.hasGoogleSpellings { return .authorizeWithGoogle }
    return .request(kind)
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
  /// The wire form of the local commands: one case per effect name. A request is written as
  /// `{name: {requestId, its fields}}` from its kind's declared fields (`RequestKind.fields`).
  private enum Wire: Codable {
    case persistSession(session: Session)
    case clearSession
    case signOutProvider(provider: ProviderID, revoke: Bool?)
    case scheduleTimer(timer: TimerID, at: Instant)
    case cancelTimer(timer: TimerID)
    case deliverIDToken(requestIds: TokenRequestIDs, result: TokenResult)
    case notify(notification: AuthNotification)
  }

  public init(from decoder: any Decoder) throws {
    let outer = try decoder.container(keyedBy: FieldKey.self)
    if outer.allKeys.count == 1, let key = outer.allKeys.first,
      let kind = Kind(rawValue: key.stringValue)?.requestKind
    {
      let inner = try outer.nestedContainer(keyedBy: FieldKey.self, forKey: key)
      let id = try inner.decode(RequestID.self, forKey: FieldKey("requestId"))
      let google = key.stringValue == Kind.authorizeWithGoogle.rawValue
      var reader = KeyedFieldReader(
        container: inner,
        names: google ? kind.fields.filter { $0 != "provider" } : kind.fields)
      if google {
        self = .request(
          id,
          .authorize(provider: .google, intent: try reader.next(), loginHint: try reader.optional())
        )
      } else if let request = try Request(kind, &reader) {
        self = .request(id, request)
      } else {
        self = .loadSession(requestId: id)
      }
      return
    }
    switch try Wire(from: decoder) {
    case .persistSession(let s): self = .persistSession(session: s)
    case .clearSession: self = .clearSession
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
      try Self.encode(id, request.effectKind, request.fieldValues, to: encoder)
      return
    case .loadSession(let id):
      try Self.encode(id, .request(.loadSession), [], to: encoder)
      return
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

  /// `{kind: {requestId, fields…}}`, the fields named by the kind (Google's consent step
  /// leaves its provider out).
  private static func encode(
    _ id: RequestID, _ kind: Kind, _ values: [(any Encodable & Sendable)?], to encoder: any Encoder
  ) throws {
    var outer = encoder.container(keyedBy: FieldKey.self)
    var inner = outer.nestedContainer(keyedBy: FieldKey.self, forKey: FieldKey(kind.rawValue))
    try inner.encode(id, forKey: FieldKey("requestId"))
    let names = Array(kind.fields.dropFirst())
    let skipped = kind == .authorizeWithGoogle ? 1 : 0  // the provider, first
    for (name, value) in zip(names, values.dropFirst(skipped)) {
      if let value { try inner.encode(value, forKey: FieldKey(name)) }
    }
  }
}
