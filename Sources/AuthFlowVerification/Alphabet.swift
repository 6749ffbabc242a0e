import AuthFlowCore
import AuthFlowScenarios

/// An abstract move, resolved against a concrete world: the model checker enumerates these, the
/// property tests draw them at random, and shrinking drops them without breaking request ids.
public enum Choice: Hashable, Sendable {
  /// Send this intent (an `idTokenRequested` gets a fresh request id).
  case intent(Intent)
  /// Answer the request the family awaits with the n-th result of its kind.
  case answer(RequestFamily, Int)
  /// Answer a request id that nothing awaits.
  case stale
  /// Answer again the k-th most recent issued request with the n-th result of its kind (a
  /// duplicate or late answer).
  case replay(Int, Int)
  /// Move time to the next scheduled timer and fire it.
  case advanceToTimer
  /// Move time forward by this many seconds (due timers fire).
  case advance(Double)
  /// Fire a timer now, due or not.
  case fire(TimerID)
  /// The process dies and the app starts again from the store (see `WorldEvent.relaunch`).
  case relaunch(lostLastWrite: Bool)
  /// The move, taken by a machine whose migration policy is this one. The policy is read in one
  /// place only (an upgrade's conflict answer), so the checker explores every policy by taking
  /// that answer under each, from the states of one exploration.
  indirect case underMigrationPolicy(MigrationPolicy, Choice)
  /// Another process writes the shared store.
  case storeChanged(StoreChange)
}

/// What another process writes to the shared store.
public enum StoreChange: Hashable, Sendable, CaseIterable {
  /// It signed out (or deleted the account): the store is cleared.
  case cleared
  /// It refreshed the same user's tokens (fresh ones, an hour long).
  case refreshed
  /// It signed in another user.
  case otherUser
  /// It wrote the same user's older tokens (it had not seen ours yet): a write that arrives
  /// after a newer one.
  case olderTokens
}

/// The finite alphabet of events: intents with a few fixed values, every result kind including
/// each class of error, time steps and stray timers.
public enum Alphabet {
  /// The intents, with placeholder ids for token requests.
  public static let intents: [Intent] = [
    .appLaunched, .signInAnonymouslyTapped, .signInWithGoogleTapped, .linkGoogleTapped,
    .signInWithEmail(email: "mike@example.com", password: "pw-1"),
    .createAccount(email: "new@example.com", password: "pw-2"),
    .sendPasswordReset(email: "mike@example.com"), .migrationDecided(choice: .merge),
    .migrationDecided(choice: .switchWithoutData), .migrationDecided(choice: .stayAnonymous),
    .migrationFinished, .reauthenticateTapped(), .signOutTapped(discardAnonymousData: false),
    .signOutTapped(discardAnonymousData: true), .deleteAccountTapped, .cancelTapped,
    .idTokenRequested(requestId: 0, forceRefresh: false),
    .idTokenRequested(requestId: 0, forceRefresh: true),
    // A second provider with other traits (a single-use nonce, revocation before deletion, a
    // conflict answer that may have to be asked for again), and unlinking.
    .signInWithProviderTapped(provider: .apple), .linkProviderTapped(provider: .apple),
    .unlinkProviderTapped(provider: .google),
    // A reload: the server's view of the account replaces what it owns. Email verification:
    // the mail, and a link's code (this user's or another account's).
    .reloadRequested, .sendEmailVerification, .applyActionCode(code: "oob-1"),
    // A password reset finished in the app: the code checked, then the new password.
    .checkActionCode(code: "oob-2"), .confirmPasswordReset(code: "oob-2", newPassword: "pw-3"),
    // A custom token from the app's backend: nobody signed in, the same user, or another.
    .signInWithCustomToken(token: "ct-1"),
    // A password change, and a reauthentication with the password; an email change.
    .changePassword(newPassword: "pw-4"), .reauthenticateWithPassword(password: "pw-1"),
    .changeEmail(newEmail: "new@example.com"),
    // A profile update (no recent login needed; an anonymous user may have a name too).
    .updateProfile(change: profileChange),
    // An email link: sent (nobody signed in, or a guest it upgrades), then opened with the
    // address the machine kept, or with one the app asked for.
    .sendSignInLink(email: "link@example.com"), .signInWithEmailLink(code: "oob-3", email: nil),
    .signInWithEmailLink(code: "oob-3", email: "link@example.com"),
    // A second factor: a code texted to the phone factor, then either factor's code (the phone
    // one before any was texted, too).
    .sendSecondFactorCode(factor: secondFactors[1].id, appVerification: nil),
    .submitSecondFactorCode(factor: secondFactors[0].id, verificationCode: "123456"),
    .submitSecondFactorCode(factor: secondFactors[1].id, verificationCode: "654321"),
    // An authenticator app enrolled: the secret asked for, then its first code.
    .enrollTotp, .submitTotpEnrollmentCode(verificationCode: "246810", displayName: nil),
    // A phone number enrolled: a code texted to it (with the app's proof), then that code.
    .enrollPhone(phoneNumber: phoneNumber, appVerification: .iosApp(receipt: "r-1", secret: "s-1")),
    .submitPhoneEnrollmentCode(verificationCode: "135790", displayName: nil),
    // A phone number's code: texted (to sign in, upgrade the guest or add the number; again
    // for a new one), then typed.
    .sendPhoneCode(phoneNumber: phoneNumber, appVerification: "rc-2"),
    .submitPhoneCode(verificationCode: "975310"),
    // A factor withdrawn (whether the account has it is the server's to say).
    .withdrawSecondFactor(factor: secondFactors[0].id),
  ]

  /// The second factors an account with a second factor has: an authenticator app and a phone.
  static let secondFactors = [
    SecondFactor(id: "f-totp", kind: .totp, displayName: "Authenticator"),
    SecondFactor(id: "f-phone", kind: .phone, phoneHint: "+*******1234"),
  ]

  /// The number the alphabet enrols as a phone factor.
  static let phoneNumber = "+15555550100"

  /// The profile update the alphabet sends: a name and a photo.
  static let profileChange = ProfileChange(
    displayName: "Ada Example", photoURL: "https://example.com/ada.png")

  /// The intents a user would plausibly send in this state (the property tests favour them, so
  /// long flows are reached).
  public static func likelyIntents(_ machine: AuthMachine) -> [Intent] {
    let token = Intent.idTokenRequested(requestId: 0, forceRefresh: false)
    switch machine.stateName {
    case .starting: return [.appLaunched]
    case .signedOut:
      return [
        .signInAnonymouslyTapped, .signInWithGoogleTapped,
        .signInWithProviderTapped(provider: .apple),
        .signInWithEmail(email: "mike@example.com", password: "pw-1"),
        .createAccount(email: "new@example.com", password: "pw-2"), token,
        .applyActionCode(code: "oob-1"), .checkActionCode(code: "oob-2"),
        .confirmPasswordReset(code: "oob-2", newPassword: "pw-3"),
        .signInWithCustomToken(token: "ct-1"), .sendSignInLink(email: "link@example.com"),
        .signInWithEmailLink(code: "oob-3", email: nil),
        .sendPhoneCode(phoneNumber: phoneNumber, appVerification: "rc-2"),
      ]
    case .anonymous:
      return [
        .signInWithGoogleTapped, .signInWithProviderTapped(provider: .apple),
        .linkProviderTapped(provider: .apple),
        .createAccount(email: "new@example.com", password: "pw-2"), .deleteAccountTapped,
        .signOutTapped(discardAnonymousData: true), token, .reloadRequested,
        .signInWithCustomToken(token: "ct-1"), .sendSignInLink(email: "link@example.com"),
        .signInWithEmailLink(code: "oob-3", email: nil),
        .sendPhoneCode(phoneNumber: phoneNumber, appVerification: "rc-2"),
      ]
    case .firebaseAuthenticated:
      return [
        .linkGoogleTapped, .linkProviderTapped(provider: .apple), .reauthenticateTapped(),
        .deleteAccountTapped, .unlinkProviderTapped(provider: .google), .migrationFinished,
        .signOutTapped(discardAnonymousData: false), token,
        .idTokenRequested(requestId: 0, forceRefresh: true), .reloadRequested,
        .sendEmailVerification, .applyActionCode(code: "oob-1"),
        .signInWithCustomToken(token: "ct-1"), .changePassword(newPassword: "pw-4"),
        .reauthenticateWithPassword(password: "pw-1"), .changeEmail(newEmail: "new@example.com"),
        .updateProfile(change: profileChange), .enrollTotp,
        .withdrawSecondFactor(factor: secondFactors[0].id),
        .enrollPhone(
          phoneNumber: phoneNumber, appVerification: .iosApp(receipt: "r-1", secret: "s-1")),
        .sendPhoneCode(phoneNumber: phoneNumber, appVerification: "rc-2"),
      ]
    case .migrationRequired:
      return [
        .migrationDecided(choice: .merge), .migrationDecided(choice: .switchWithoutData),
        .migrationDecided(choice: .stayAnonymous), .cancelTapped,
      ]
    case .reauthenticationRequired:
      return [
        .reauthenticateTapped(), .reauthenticateWithPassword(password: "pw-1"), .cancelTapped,
      ]
    case .accountExistsWithDifferentCredential:
      return [
        .signInWithEmail(email: "mike@example.com", password: "pw-1"),
        .signInWithProviderTapped(provider: .apple), .cancelTapped, token,
      ]
    case .secondFactorRequired:
      return [
        .sendSecondFactorCode(factor: secondFactors[1].id, appVerification: nil),
        .submitSecondFactorCode(factor: secondFactors[0].id, verificationCode: "123456"),
        .submitSecondFactorCode(factor: secondFactors[1].id, verificationCode: "654321"),
        .cancelTapped, token,
      ]
    case .enrollingTotp:
      return [
        .submitTotpEnrollmentCode(verificationCode: "246810", displayName: nil), .cancelTapped,
        token,
      ]
    case .awaitingPhoneCode:
      return [
        .submitPhoneCode(verificationCode: "975310"),
        .sendPhoneCode(phoneNumber: phoneNumber, appVerification: "rc-2"), .cancelTapped, token,
      ]
    case .enrollingPhone:
      return [
        .submitPhoneEnrollmentCode(verificationCode: "135790", displayName: nil), .cancelTapped,
        token,
      ]
    case .restoring, .signingInAnonymously, .awaitingProvider, .googleAuthenticated,
      .providerAuthenticated, .migrating, .deletingAccount, .unlinkingProvider,
      .signingInWithEmail, .creatingAccount, .sendingPasswordReset, .reloadingAccount,
      .sendingVerificationEmail, .applyingActionCode, .checkingActionCode, .confirmingPasswordReset,
      .signingInWithCustomToken, .reauthenticatingWithPassword, .changingPassword, .changingEmail,
      .updatingProfile, .sendingSignInLink, .signingInWithEmailLink, .startingTotpEnrollment,
      .withdrawingSecondFactor, .startingPhoneEnrollment, .sendingPhoneCode:
      return [.cancelTapped, token, .signOutTapped(discardAnonymousData: true), .migrationFinished]
    }
  }

  /// Every move available in `world`, in a fixed order.
  public static func choices(_ world: World) -> [Choice] {
    var out = intents.map(Choice.intent)
    let awaited = Invariants.awaited(world.machine)
    for family in RequestFamily.allCases {
      guard awaited[family] != nil, let name = effectName(family, world.machine) else {
        continue
      }
      for i in 0..<resultCount(name, in: world) { out.append(.answer(family, i)) }
    }
    out.append(.stale)
    if !world.timers.isEmpty { out.append(.advanceToTimer) }
    out.append(.fire(.tokenRefresh))
    out.append(.fire(.restoreRetry))
    // The process dies here (every write having reached the store): a fresh machine restores.
    if world.machine.stateName != .starting { out.append(.relaunch(lostLastWrite: false)) }
    // Another process writes the store.
    out += StoreChange.allCases.map(Choice.storeChanged)
    return out
  }

  /// The effect that issued the request a family awaits in `machine`.
  public static func effectName(_ family: RequestFamily, _ machine: AuthMachine) -> String? {
    switch family {
    case .refresh: return Effect.Kind.request(.refreshToken).rawValue
    case .cleanup:
      return
        (machine.user?.cleanupRefreshing == true
        ? RequestKind.refreshToken : .deleteAccount)
        .rawValue
    case .flow:
      // A consent step's effect name depends on its provider (`authorizeWithGoogle`); every other
      // request's is its kind's.
      func consent(_ p: ProviderID, _ intent: AuthorizationIntent) -> String {
        Request.authorize(provider: p, intent: intent, loginHint: nil).effectKind.rawValue
      }
      let kind: RequestKind?
      switch machine.phase {
      case .restoring: kind = .loadSession
      case .signingInAnonymously: kind = .signUpAnonymously
      case .providerFlow(let f):
        if f.credential == nil { return consent(f.provider, .signIn) }
        kind = .signInWithIdp
      case .migrating(let m):
        switch m.proof {
        case nil: return consent(m.provider, .signIn)
        case .credential?: kind = .signInWithIdp
        case .phoneNumber?: kind = .signInWithTemporaryProof
        }
      case .deletingAccount(let d):
        switch d.step {
        case .authorizing(let p): return consent(p, .reauthenticate)
        case .reauthenticating: kind = .signInWithIdp
        case .revoking: kind = .revokeToken
        case .deleting: kind = .deleteAccount
        case .waitingForToken: kind = nil
        }
      case .unlinkingProvider: kind = .unlinkProvider
      case .accountFlow(let f):
        switch f.kind {
        case .reload: kind = .lookupAccount
        case .sendVerificationEmail: kind = .sendVerificationEmail
        case .applyActionCode: kind = .applyActionCode
        case .checkActionCode: kind = .checkActionCode
        case .confirmPasswordReset: kind = .confirmPasswordReset
        case .customTokenSignIn: kind = .signInWithCustomToken
        case .changePassword: kind = .updatePassword
        case .changeEmail: kind = .sendEmailChangeVerification
        case .updateProfile: kind = .updateProfile
        case .startTotpEnrollment: kind = .startTotpEnrollment
        case .withdrawSecondFactor: kind = .withdrawSecondFactor
        case .startPhoneEnrollment: kind = .startPhoneEnrollment
        }
      case .emailFlow(let e):
        switch e.kind {
        case .signIn: kind = .signInWithPassword
        case .createAccount: kind = .signUpWithPassword
        case .passwordReset: kind = .sendPasswordReset
        case .reauthenticate: kind = .signInWithPassword
        case .sendSignInLink: kind = .sendSignInLink
        case .linkSignIn: kind = .signInWithEmailLink
        }
      case .accountExists: kind = nil
      case .totpEnrollment(let e): kind = e.request == nil ? nil : .finalizeTotpEnrollment
      case .phoneEnrollment(let e):
        kind = e.request == nil ? nil : .finalizePhoneEnrollment
      case .phoneSignIn(let f):
        kind =
          f.request == nil
          ? nil : f.sendingCode ? .sendVerificationCode : .signInWithPhoneNumber
      case .secondFactor(let step):
        kind =
          step.request == nil
          ? nil
          : step.sendingCode
            ? .startSecondFactorSignIn : .finalizeSecondFactorSignIn
      case .starting, .resting, .migrationRequired, .reauthenticationRequired: kind = nil
      }
      return kind?.rawValue
    }
  }

  /// The event that sends an intent: as it is, but for a token request, which takes a fresh id.
  static func send(_ intent: Intent, in world: inout World) -> WorldEvent {
    if case .idTokenRequested(_, let force) = intent {
      world.counter += 1
      return .send(.idTokenRequested(requestId: TokenRequestID(world.counter), forceRefresh: force))
    }
    return .send(intent)
  }

  /// Turns a move into a concrete event, or `nil` when it does not apply in `world`.
  public static func resolve(_ choice: Choice, in world: inout World) -> WorldEvent? {
    switch choice {
    case .intent(let intent):
      return send(intent, in: &world)
    case .answer(let family, let i):
      guard let answers = answers(for: family, in: &world) else { return nil }
      return answers.event(i)
    case .stale:
      return .respond(
        to: RequestKind.deleteAccount.rawValue, with: .deleteAccount(0, .accountDeleted))
    case .replay(let k, let i):
      guard !world.issued.isEmpty else { return nil }
      let request = world.issued[world.issued.count - 1 - k % world.issued.count]
      let options = results(request.name, id: request.id, in: &world)
      return .respond(to: request.name, with: options[i % options.count])
    case .advanceToTimer:
      guard let (_, at) = world.timers.earliest() else { return nil }
      return .advance(max(0, at - world.now))
    case .advance(let seconds):
      return .advance(seconds)
    case .fire(let timer):
      return .fire(timer)
    case .relaunch(let lost):
      return .relaunch(lostLastWrite: lost)
    case .underMigrationPolicy(_, let inner):
      return resolve(inner, in: &world)
    case .storeChanged(let change):
      return storeChange(change, in: &world).map(WorldEvent.storeChanged)
    }
  }

  /// The session another process writes, or `nil` when the change does not apply (a refresh
  /// with nobody signed in). `.cleared` gives `.some(nil)`.
  static func storeChange(_ change: StoreChange, in world: inout World) -> Session?? {
    switch change {
    case .cleared:
      return .some(nil)
    case .refreshed:
      guard var s = world.machine.user?.session else { return nil }
      s.idToken = world.fresh("id-")
      s.refreshToken = world.fresh("rt-")
      s.expiresAt = world.now + 3600
      return .some(s)
    case .olderTokens:
      guard var s = world.machine.user?.session else { return nil }
      s.idToken = world.fresh("id-")
      s.refreshToken = world.fresh("rt-")
      s.expiresAt = s.expiresAt - 600
      return .some(s)
    case .otherUser:
      // Another process cannot sign in to an account the server deleted.
      let uid = ["user-5", "user-6", "user-7"].first { !world.history.deleted.contains($0) }
      return .some(
        Session(
          uid: uid ?? "user-8", anonymous: false, providers: ["google.com"],
          email: "eve@example.com",
          idToken: world.fresh("id-"), refreshToken: world.fresh("rt-"),
          expiresAt: world.now + 3600))
    }
  }

  /// The answers to an upgrade's `signInWithIdp` that are conflicts: the moves the migration
  /// policy decides.
  public static func conflictAnswers(_ world: World) -> [Int] {
    guard case .providerFlow(let f) = world.machine.phase, f.purpose == .upgrade,
      f.credential != nil
    else { return [] }
    var w = world
    guard let answers = answers(for: .flow, in: &w) else { return [] }
    return answers.results.indices.filter {
      if case .signInWithIdp(_, .credentialAlreadyInUse) = answers.results[$0] { return true }
      return false
    }
  }

  /// Every answer the request a family awaits may get, built once (fresh tokens drawn from
  /// `world`); `event(i)` is the same event `resolve(.answer(family, i))` gives.
  public struct Answers: Sendable {
    public var name: String
    public var requestId: RequestID
    public var results: [Answer]

    public func event(_ i: Int) -> WorldEvent {
      .respond(to: name, with: results[i % results.count])
    }
  }

  /// The answers for the request `family` awaits in `world`, or `nil` when it awaits none.
  public static func answers(for family: RequestFamily, in world: inout World) -> Answers? {
    guard let id = Invariants.awaited(world.machine)[family],
      let name = effectName(family, world.machine)
    else { return nil }
    return Answers(name: name, requestId: id, results: results(name, id: id, in: &world))
  }

  static let errors: [String: [String]] = [
    "loadSession": ["STORAGE_UNAVAILABLE", "CORRUPT_SESSION"],
    "signUpAnonymously": ["NETWORK", "ADMIN_ONLY_OPERATION"],
    "authorizeWithGoogle": ["NETWORK"], "authorize": ["NETWORK"],
    "signInWithIdp": [
      "NETWORK", "TOO_MANY_ATTEMPTS_TRY_LATER", "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "TOKEN_EXPIRED",
      "INVALID_ID_TOKEN", "INVALID_IDP_RESPONSE", "MISSING_OR_INVALID_NONCE",
    ],
    "signInWithPassword": ["INVALID_PASSWORD", "USER_DISABLED", "NETWORK"],
    "signUpWithPassword": ["EMAIL_EXISTS", "NETWORK", "TOKEN_EXPIRED"],
    "sendPasswordReset": ["EMAIL_NOT_FOUND", "NETWORK"],
    "refreshToken": [
      "NETWORK", "TOO_MANY_ATTEMPTS_TRY_LATER", "TOKEN_EXPIRED", "INVALID_REFRESH_TOKEN",
      "INVALID_GRANT_TYPE",
    ],
    "deleteAccount": [
      "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "NETWORK", "USER_NOT_FOUND", "INVALID_ID_TOKEN",
    ],
    "revokeToken": ["NETWORK", "INVALID_CREDENTIAL", "REVOCATION_UNSUPPORTED"],
    "unlinkProvider": ["CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "NETWORK", "TOKEN_EXPIRED"],
    "lookupAccount": ["NETWORK", "USER_DISABLED", "INVALID_ID_TOKEN"],
    "sendVerificationEmail": ["TOO_MANY_ATTEMPTS_TRY_LATER", "TOKEN_EXPIRED"],
    "applyActionCode": ["INVALID_OOB_CODE", "USER_DISABLED", "NETWORK"],
    "checkActionCode": ["EXPIRED_OOB_CODE"],
    "confirmPasswordReset": ["WEAK_PASSWORD", "USER_DISABLED"],
    "signInWithCustomToken": ["INVALID_CUSTOM_TOKEN", "USER_DISABLED"],
    "updatePassword": ["CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "WEAK_PASSWORD", "TOKEN_EXPIRED"],
    "sendEmailChangeVerification": [
      "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "EMAIL_EXISTS", "TOKEN_EXPIRED",
    ],
    "updateProfile": ["NETWORK", "TOKEN_EXPIRED"],
    // The send carries no token: a session-dead answer to it is no verdict on the session.
    "sendSignInLink": ["INVALID_EMAIL", "TOKEN_EXPIRED"],
    "signInWithEmailLink": ["EXPIRED_OOB_CODE", "EMAIL_EXISTS", "TOKEN_EXPIRED", "NETWORK"],
    // A refused or expired challenge ends it; a network failure leaves it.
    "startSecondFactorSignIn": ["INVALID_MFA_PENDING_CREDENTIAL", "NETWORK"],
    // A wrong code (try again), a texted code expired (text another), the challenge timed out
    // (back to the start), the account disabled meanwhile.
    "finalizeSecondFactorSignIn": [
      "INVALID_CODE", "SESSION_EXPIRED", "TOTP_CHALLENGE_TIMEOUT", "USER_DISABLED",
    ],
    // No verified email (nothing changes), a login too old (reauthenticate, then start again),
    // the session dead.
    "startTotpEnrollment": ["UNVERIFIED_EMAIL", "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "TOKEN_EXPIRED"],
    // A wrong code (the secret stays), the enrolment session over, a login too old, a network
    // failure (the secret stays).
    "finalizeTotpEnrollment": [
      "INVALID_CODE", "SESSION_EXPIRED", "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "NETWORK",
    ],
    // A number Firebase refuses (nothing changes), a login too old (reauthenticate, then text
    // again), the session dead.
    "startPhoneEnrollment": [
      "INVALID_PHONE_NUMBER", "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "TOKEN_EXPIRED",
    ],
    // A wrong code (keep waiting), the texted code expired (the enrolment session over), a
    // login too old, a network failure (keep waiting).
    "finalizePhoneEnrollment": [
      "INVALID_CODE", "SESSION_EXPIRED", "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "NETWORK",
    ],
    // A number Firebase refuses (a new text that fails keeps the one before).
    "sendVerificationCode": ["INVALID_PHONE_NUMBER"],
    // A wrong code (keep waiting), the texted code expired (text another), a link's session
    // dead.
    "signInWithPhoneNumber": ["INVALID_CODE", "SESSION_EXPIRED", "TOKEN_EXPIRED"],
    // The number's proof refused (expired, used): the guest stays.
    "signInWithTemporaryProof": ["INVALID_TEMPORARY_PROOF"],
    // Not a factor of the account's, a login too old, the session dead.
    "withdrawSecondFactor": [
      "MFA_ENROLLMENT_NOT_FOUND", "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "TOKEN_EXPIRED",
    ],
  ]

  static let successCount: [String: Int] = [
    "loadSession": 8, "signUpAnonymously": 1, "authorizeWithGoogle": 3, "authorize": 3,
    "signInWithIdp": 7, "signInWithPassword": 2, "signUpWithPassword": 1, "sendPasswordReset": 1,
    "refreshToken": 2, "deleteAccount": 1, "revokeToken": 1, "unlinkProvider": 1,
    "lookupAccount": 3, "sendVerificationEmail": 1, "applyActionCode": 2, "checkActionCode": 1,
    "confirmPasswordReset": 1, "signInWithCustomToken": 2, "updatePassword": 1,
    "sendEmailChangeVerification": 1, "updateProfile": 2, "sendSignInLink": 1,
    "signInWithEmailLink": 2, "startSecondFactorSignIn": 1, "finalizeSecondFactorSignIn": 2,
    "startTotpEnrollment": 1, "finalizeTotpEnrollment": 1, "withdrawSecondFactor": 2,
    "startPhoneEnrollment": 1, "finalizePhoneEnrollment": 1, "sendVerificationCode": 1,
    "signInWithPhoneNumber": 2, "signInWithTemporaryProof": 1,
  ]

  /// How many of those results are successes (they come first).
  public static func successes(_ name: String, in world: World) -> Int {
    if name == RequestKind.loadSession.rawValue, world.storeKnown { return 1 }
    return successCount[name] ?? 0
  }

  /// How many results the alphabet has for requests of this effect (one is of the wrong kind).
  public static func resultCount(_ name: String, in world: World) -> Int {
    if name == RequestKind.loadSession.rawValue, world.storeKnown {
      return 1 + (errors[name]?.count ?? 0) + 1  // What the store holds, or cannot be read.
    }
    let emailExists = name == RequestKind.signInWithIdp.rawValue && linking(world.machine) ? 1 : 0
    return (successCount[name] ?? 0) + (errors[name]?.count ?? 0) + emailExists + 1
  }

  /// Whether the machine waits for a provider's link (a guest's upgrade or a permanent user's
  /// link): only a link is answered `EMAIL_EXISTS` when the provider's email is another
  /// account's.
  static func linking(_ machine: AuthMachine) -> Bool {
    guard case .providerFlow(let f) = machine.phase else { return false }
    return f.purpose == .upgrade || f.purpose == .link
  }

  /// The answers an interpreter may give request `id` of this effect, built with fresh tokens.
  public static func results(_ name: String, id: RequestID, in world: inout World) -> [Answer] {
    let now = world.now
    let current = world.machine.user?.session
    var provider = ProviderID.google
    switch world.machine.phase {
    case .providerFlow(let f): provider = f.provider
    case .migrating(let m): provider = m.provider
    case .deletingAccount(let d):
      if case .authorizing(let p) = d.step { provider = p }
      if case .reauthenticating(let c) = d.step { provider = c.provider }
    default: break
    }
    let traits = world.machine.policy.providers[provider]
    let singleUse = traits.nonce == .hashed
    func session(
      _ uid: String, anonymous: Bool = false, providers: [ProviderID] = ["google.com"],
      expiresIn: Double = 3600, cleanup: AnonymousCleanup? = nil
    ) -> Session {
      Session(
        uid: uid, anonymous: anonymous, providers: providers,
        email: anonymous ? nil : "mike@example.com", idToken: world.fresh("id-"),
        refreshToken: world.fresh("rt-"), expiresAt: now + expiresIn, pendingCleanup: cleanup)
    }
    /// Fresh tokens, an hour long (an enrolment's or a withdrawal's answer).
    func tokens() -> Tokens {
      Tokens(idToken: world.fresh("id-"), refreshToken: world.fresh("rt-"), expiresAt: now + 3600)
    }
    guard let kind = Vocabulary.requestKind(name) else { return [] }
    func failed(_ code: String) -> Answer { .failed(kind, id, AuthError(code: code)) }
    if let uid = current?.uid, world.history.deleted.contains(uid),
      [
        "refreshToken", "deleteAccount", "revokeToken", "unlinkProvider", "lookupAccount",
        "sendVerificationEmail",
      ].contains(name)
    {
      // The server deleted this account (the machine may not know: a relaunch lost the write
      // that said so): it answers as Firebase does for a deleted user.
      return [failed("USER_NOT_FOUND"), failed("NETWORK")]
    }
    var out: [Answer]
    switch kind {
    case .loadSession where world.storeKnown:
      // A relaunch reads what the last process left.
      out = [.loadSession(id, .sessionLoaded(session: world.store))]
    case .loadSession:
      let sessions: [Session?] = [
        nil, session("anon-1", anonymous: true, providers: []), session("user-1"),
        session("user-1", expiresIn: 100),
        session(
          "user-1",
          cleanup: AnonymousCleanup(uid: "anon-1", idToken: world.fresh("id-"), dataMoved: false)),
        session(
          "user-1",
          cleanup: AnonymousCleanup(uid: "anon-1", idToken: world.fresh("id-"), dataMoved: true)),
        {
          // A name given once by a provider that gives it once, kept in the stored session.
          var s = session("user-4", providers: ["apple.com", "google.com"])
          s.displayName = "Mike Example"
          return s
        }(),
        {
          var s = session("user-4", providers: ["apple.com"])
          s.pendingDeletion = DeletionRecord(revoked: [.apple], deleting: true)
          return s
        }(),
      ]
      out = sessions.map { .loadSession(id, .sessionLoaded(session: $0)) }
    case .signUpAnonymously:
      out = [
        .signUpAnonymously(
          id, .signedIn(session: session("anon-1", anonymous: true, providers: [])))
      ]
    case .authorize:
      // A provider with a single-use nonce gets a fresh nonce and authorization code each time.
      out = [
        .authorize(
          id,
          .providerSucceeded(
            credential: IdPCredential(
              provider: provider, idToken: world.fresh("g-"),
              rawNonce: singleUse ? world.fresh("n-") : nil,
              authorizationCode: singleUse ? world.fresh("c-") : nil, email: "mike@example.com",
              // A provider that gives the name only once gives it here (as at a first consent).
              givenName: traits.givesNameOnce ? "Mike" : nil,
              familyName: traits.givesNameOnce ? "Example" : nil))),
        .authorize(id, .providerCancelled),
        .authorize(id, .providerFailed(error: AuthError(code: "access_denied"))),
      ]
    case .signInWithIdp:
      out = [
        .signInWithIdp(
          id,
          .signedIn(session: session(current?.uid ?? "user-1", providers: [provider]))),
        .signInWithIdp(id, .signedIn(session: session("user-2", providers: [provider]))),
        // The conflict's credential keeps the name a provider that gives it once gave (the
        // HTTP interpreter copies it from the credential it sent).
        .signInWithIdp(
          id,
          .credentialAlreadyInUse(
            credential: IdPCredential(
              provider: provider, idToken: world.fresh("g-"),
              givenName: traits.givesNameOnce ? "Mike" : nil,
              familyName: traits.givesNameOnce ? "Example" : nil),
            email: "mike@example.com")),
        // A conflict answer with nothing to retry with.
        .signInWithIdp(
          id, .credentialAlreadyInUse(credential: IdPCredential(provider: provider), email: nil)),
        // Another account has the credential's email and signs in with a password (only a
        // sign-in waits for it; anything else reports it).
        .signInWithIdp(
          id,
          .accountExistsWithDifferentCredential(email: "mike@example.com", providers: ["password"])),
        // ... or another address than the account the user then signs in to (nothing linked).
        .signInWithIdp(
          id,
          .accountExistsWithDifferentCredential(email: "ana@example.com", providers: ["password"])),
        // The account has second factors (a sign-in, a reauthentication, a migration's sign-in
        // to the owner; a link is never answered so).
        .signInWithIdp(
          id,
          .secondFactorRequired(
            challenge: SecondFactorChallenge(
              pendingCredential: world.fresh("mp-"), factors: secondFactors,
              email: "mike@example.com"))),
      ]
      if linking(world.machine) {
        // A link whose provider email is another account's (a guest's upgrade waits for it).
        out.append(
          .signInWithIdp(
            id, .requestFailed(error: AuthError(code: "EMAIL_EXISTS", message: "mike@example.com")))
        )
      }
    case .revokeToken:
      out = [.revokeToken(id, .tokenRevoked)]
    case .unlinkProvider:
      out = [
        .unlinkProvider(
          id,
          .providerUnlinked(providers: (current?.providers ?? []).filter { $0 != "google.com" }))
      ]
    case .lookupAccount:
      // The server's view: the email verified since (and no name on the server: a name given
      // once stays), exactly what the session says (nothing to write), or the email no longer
      // verified (changed on another device).
      let providers = current?.providers ?? []
      out = [
        .lookupAccount(
          id,
          .accountReloaded(
            profile: Profile(
              email: current?.email, emailVerified: true, providers: providers,
              displayName: nil, photoURL: current?.photoURL))),
        .lookupAccount(
          id,
          .accountReloaded(
            profile: Profile(
              email: current?.email, emailVerified: current?.emailVerified ?? false,
              providers: providers, displayName: current?.displayName,
              photoURL: current?.photoURL))),
        .lookupAccount(
          id,
          .accountReloaded(
            profile: Profile(
              email: current?.email, emailVerified: false, providers: providers,
              displayName: current?.displayName, photoURL: current?.photoURL))),
      ]
    case .updateProfile:
      // The account as the server has it after the change: as the session already says (nothing
      // to write), or with no name and no photo (a removal: a write, and a name that goes only
      // because the user asked). Both lead to profiles the space already has, so the update adds
      // its in-flight states only; setting a new value is the scenarios' and the live test's.
      func answer(_ name: String?, _ photo: String?) -> Answer {
        .updateProfile(
          id,
          .profileUpdated(
            profile: Profile(
              email: current?.email, emailVerified: current?.emailVerified ?? false,
              providers: current?.providers ?? [], displayName: name, photoURL: photo)))
      }
      out = [answer(current?.displayName, current?.photoURL), answer(nil, nil)]
    case .sendVerificationEmail:
      out = [.sendVerificationEmail(id, .verificationEmailSent)]
    case .sendEmailChangeVerification:
      out = [.sendEmailChangeVerification(id, .verificationEmailSent)]
    case .applyActionCode:
      // The code verified this user's address, or another account's (a link opened by someone
      // else, or on a device where another account is signed in).
      out = [
        .applyActionCode(
          id, .actionCodeApplied(email: current?.email ?? "mike@example.com", emailVerified: true)),
        .applyActionCode(id, .actionCodeApplied(email: "ana@example.com", emailVerified: true)),
      ]
    case .checkActionCode:
      out = [
        .checkActionCode(
          id, .actionCodeChecked(operation: "PASSWORD_RESET", email: "mike@example.com"))
      ]
    case .confirmPasswordReset:
      out = [.confirmPasswordReset(id, .passwordResetConfirmed(email: "mike@example.com"))]
    case .signInWithCustomToken:
      // The token is the signed-in user's (or, nobody signed in, someone's), or another's.
      out = [
        .signInWithCustomToken(
          id, .signedIn(session: session(current?.uid ?? "user-9", providers: []))),
        .signInWithCustomToken(id, .signedIn(session: session("user-2", providers: []))),
      ]
    case .signInWithPassword:
      // A reauthentication is answered for the signed-in user (the password was theirs), a
      // sign-in for user-1, and a guest's sign-in from the wait for the account their upgrade
      // met for the owner a guest's provider migration signs in to (user-2, in the shape that
      // migration reaches: which providers it lists changes nothing the machine does with it).
      let answer: Session
      switch current {
      case let s? where !s.anonymous: answer = session(s.uid, providers: s.providers)
      case _?: answer = session("user-2", providers: [provider])
      case nil: answer = session("user-1", providers: ["password"])
      }
      out = [
        .signInWithPassword(id, .signedIn(session: answer)),
        // The account has second factors: the password was only the first.
        .signInWithPassword(
          id,
          .secondFactorRequired(
            challenge: SecondFactorChallenge(
              pendingCredential: world.fresh("mp-"), factors: secondFactors,
              email: "mike@example.com"))),
      ]
    case .startSecondFactorSignIn:
      out = [.startSecondFactorSignIn(id, .secondFactorCodeSent(sessionInfo: world.fresh("si-")))]
    case .finalizeSecondFactorSignIn:
      // The account the first factor named (the signed-in user's, in a reauthentication), or,
      // from a broken server, another.
      out = [
        .finalizeSecondFactorSignIn(
          id,
          .signedIn(
            session: session(
              current?.uid ?? "user-1", providers: current?.providers ?? ["password"]))),
        .finalizeSecondFactorSignIn(
          id, .signedIn(session: session("user-2", providers: ["password"]))),
      ]
    case .updatePassword:
      out = [
        .updatePassword(
          id,
          .passwordChanged(
            session: session(
              current?.uid ?? "user-1", providers: current?.providers ?? ["password"])))
      ]
    case .signUpWithPassword:
      out = [
        .signUpWithPassword(
          id, .signedIn(session: session(current?.uid ?? "user-3", providers: ["password"])))
      ]
    case .sendPasswordReset:
      out = [.sendPasswordReset(id, .passwordResetSent)]
    case .sendSignInLink:
      out = [.sendSignInLink(id, .signInLinkSent)]
    case .signInWithEmailLink:
      // The guest's own account, upgraded; nobody signed in, the address's account (as an
      // account created with a password is: the same states).
      out = [
        .signInWithEmailLink(
          id, .signedIn(session: session(current?.uid ?? "user-3", providers: ["password"]))),
        // The address's account has second factors (a guest's link is never answered so: the
        // machine reports it).
        .signInWithEmailLink(
          id,
          .secondFactorRequired(
            challenge: SecondFactorChallenge(
              pendingCredential: world.fresh("mp-"), factors: secondFactors,
              email: "mike@example.com"))),
      ]
    case .refreshToken:
      out = [3600.0, 120].map {
        .refreshToken(
          id,
          .tokenRefreshed(
            Tokens(
              idToken: world.fresh("id-"), refreshToken: world.fresh("rt-"), expiresAt: now + $0)
          ))
      }
    case .deleteAccount:
      out = [.deleteAccount(id, .accountDeleted)]
    case .startTotpEnrollment:
      out = [
        .startTotpEnrollment(
          id,
          .totpSecretIssued(
            secret: TotpSecret(sharedSecretKey: world.fresh("K"), sessionInfo: world.fresh("ts-"))))
      ]
    case .withdrawSecondFactor:
      // With new tokens, or with none (the session's stay).
      out = [
        .withdrawSecondFactor(id, .secondFactorWithdrawn(tokens())),
        .withdrawSecondFactor(id, .secondFactorWithdrawn(nil)),
      ]
    case .finalizeTotpEnrollment:
      out = [
        .finalizeTotpEnrollment(id, .totpEnrolled(tokens()))
      ]
    case .startPhoneEnrollment:
      out = [.startPhoneEnrollment(id, .secondFactorCodeSent(sessionInfo: world.fresh("ps-")))]
    case .finalizePhoneEnrollment:
      out = [.finalizePhoneEnrollment(id, .phoneEnrolled(tokens()))]
    case .sendVerificationCode:
      out = [.sendVerificationCode(id, .verificationCodeSent(sessionInfo: world.fresh("pv-")))]
    case .signInWithPhoneNumber:
      // The number's account: the signed-in user's own (an upgrade, a link), or, for nobody,
      // the account the number signs in to. The shapes are the email sign-up's (nobody: a new
      // account; a guest: upgraded in place) and a permanent account's own: which providers an
      // account lists changes nothing the machine does with a phone number, and a new shape of
      // user would explore every flow of a signed-in account again (Docs/Verification.md).
      let providers: [ProviderID] =
        current.map { $0.anonymous ? ["password"] : $0.providers } ?? ["password"]
      out = [
        .signInWithPhoneNumber(
          id, .signedIn(session: session(current?.uid ?? "user-3", providers: providers))),
        // The number is another account's: Firebase's proof for it (one value: the proof is
        // opaque to the machine).
        .signInWithPhoneNumber(
          id, .phoneNumberInUse(phoneNumber: "+15555550100", temporaryProof: "tp-1")),
      ]
    case .signInWithTemporaryProof:
      // The number's owner, in the shape a provider's migration signs in to (which providers
      // the owner lists changes nothing the migration does).
      out = [
        .signInWithTemporaryProof(
          id, .signedIn(session: session("user-2", providers: [.google])))
      ]
    }
    out += (errors[name] ?? []).map(failed)
    // An interpreter that broke the protocol: what every boundary makes of an answer of the
    // wrong shape (the machine must treat it as an error).
    out.append(failed(AuthError.unexpectedResponse.code))
    return out
  }
}
