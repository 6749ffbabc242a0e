/// Where the machine is, as apps and scenario files see it: the phase and the user joined into
/// one value, each case with what is valid in it. `AuthMachine.state` builds it on demand.
public enum AuthState: Hashable, Codable, Sendable {
  /// Nothing known yet; never "signed out" before the stored session was read.
  case starting
  /// `loadSession` in flight (or, with `retryAt`, waiting to retry); ID-token requests wait.
  case restoring(request: RequestID, waiters: [TokenRequestID], retryAt: Instant?)
  /// No user.
  case signedOut
  /// `signUpAnonymously` in flight.
  case signingInAnonymously(request: RequestID)
  /// Signed in as a Firebase anonymous user.
  case anonymous(user: SignedInUser)
  /// A provider's consent step is up; `user` is who was signed in when it started.
  case awaitingProvider(
    provider: ProviderID, purpose: ProviderPurpose, request: RequestID, user: SignedInUser?)
  /// A Google credential is in hand and `signInWithIdp` is in flight.
  case googleAuthenticated(
    purpose: ProviderPurpose, request: RequestID, credential: IdPCredential, user: SignedInUser?)
  /// Another provider's credential is in hand and `signInWithIdp` is in flight.
  case providerAuthenticated(
    purpose: ProviderPurpose, request: RequestID, credential: IdPCredential, user: SignedInUser?)
  /// The anonymous user's provider account (or phone number) belongs to another user; waiting
  /// for the app. `proof` signs in to that user.
  case migrationRequired(proof: OwnerProof, email: String?, user: SignedInUser)
  /// Signing in to the existing account (asking the provider again first, when its answer
  /// cannot be retried); the anonymous account is kept until this succeeds.
  case migrating(migration: Migration, user: SignedInUser)
  /// Signed in with a permanent account.
  case firebaseAuthenticated(user: SignedInUser)
  /// A sensitive operation needs a recent sign-in; it waits here.
  case reauthenticationRequired(operation: SensitiveOperation, user: SignedInUser)
  /// Deleting the account: revoking what must be revoked, then `deleteAccount`.
  case deletingAccount(deletion: Deletion, user: SignedInUser)
  /// `unlinkProvider` in flight.
  case unlinkingProvider(unlink: Unlink, user: SignedInUser)
  /// `signInWithPassword` in flight; with `user`, the guest whose upgrade met this account
  /// waits for it (their data then moves to it).
  case signingInWithEmail(request: RequestID, email: String, user: SignedInUser? = nil)
  /// `signUpWithPassword` in flight; with `user`, it links the anonymous user.
  case creatingAccount(request: RequestID, email: String, user: SignedInUser?)
  /// `sendPasswordReset` in flight; with `user`, the guest waiting for the account.
  case sendingPasswordReset(request: RequestID, email: String, user: SignedInUser? = nil)
  /// `lookupAccount` in flight (a reload).
  case reloadingAccount(request: RequestID, user: SignedInUser)
  /// `sendVerificationEmail` in flight.
  case sendingVerificationEmail(request: RequestID, user: SignedInUser)
  /// `applyActionCode` in flight; `user` is whoever is signed in (anyone, or nobody).
  case applyingActionCode(request: RequestID, user: SignedInUser?)
  /// `checkActionCode` in flight; `user` is whoever is signed in.
  case checkingActionCode(request: RequestID, user: SignedInUser?)
  /// `confirmPasswordReset` in flight; `user` is whoever is signed in.
  case confirmingPasswordReset(request: RequestID, user: SignedInUser?)
  /// `signInWithCustomToken` in flight; `user` is whoever is signed in (the token must be
  /// theirs).
  case signingInWithCustomToken(request: RequestID, user: SignedInUser?)
  /// `signInWithPassword` with the account's email in flight: a reauthentication, resuming
  /// `resume` when it succeeds.
  case reauthenticatingWithPassword(
    request: RequestID, email: String, resume: SensitiveOperation?, user: SignedInUser)
  /// `updatePassword` in flight.
  case changingPassword(request: RequestID, newPassword: String, user: SignedInUser)
  /// `sendEmailChangeVerification` in flight: a link to `newEmail` is asked for; the session's
  /// email stays the old one until that link is applied.
  case changingEmail(request: RequestID, newEmail: String, user: SignedInUser)
  /// `updateProfile` in flight.
  case updatingProfile(request: RequestID, user: SignedInUser)
  /// `sendSignInLink` in flight: a sign-in link to `email` is asked for; `user` is the anonymous
  /// user it will upgrade, if any.
  case sendingSignInLink(request: RequestID, email: String, user: SignedInUser?)
  /// `signInWithEmailLink` in flight with `email`; with `user`, it upgrades the anonymous user.
  case signingInWithEmailLink(request: RequestID, email: String, user: SignedInUser?)
  /// A first factor passed and Firebase asks for a second: `step` holds the challenge (its
  /// factors), the flow it interrupts, the request in flight (if any) and a texted code's
  /// `sessionInfo`; `user` is the user a reauthentication proves again (nobody for a sign-in).
  case secondFactorRequired(step: SecondFactorStep, user: SignedInUser?)
  /// A provider's sign-in found an account with the same email that signs in another way
  /// (Firebase's `needConfirmation`): sign in that way (`link.providers`, as far as Firebase
  /// says), and the provider's credential is linked to the account. Nobody is signed in, or
  /// (`user`) the guest whose upgrade met the account: their data moves to it once signed in.
  case accountExistsWithDifferentCredential(link: PendingLink, user: SignedInUser? = nil)
  /// `startTotpEnrollment` in flight: a TOTP secret to enrol is asked for.
  case startingTotpEnrollment(request: RequestID, user: SignedInUser)
  /// `withdrawSecondFactor` in flight: the factor `factor` is being removed.
  case withdrawingSecondFactor(request: RequestID, factor: String, user: SignedInUser)
  /// A TOTP secret is shown; the first code the authenticator app makes with it is awaited, or
  /// (with `enrollment.request`) being checked by `finalizeTotpEnrollment`.
  case enrollingTotp(enrollment: TotpEnrollment, user: SignedInUser)
  /// `startPhoneEnrollment` in flight: a code is being texted to `phoneNumber`, to enrol it.
  case startingPhoneEnrollment(
    request: RequestID, phoneNumber: String, appVerification: AppVerification?, user: SignedInUser)
  /// A code was texted to the number being enrolled; it is awaited, or (with
  /// `enrollment.request`) being checked by `finalizePhoneEnrollment`.
  case enrollingPhone(enrollment: PhoneEnrollment, user: SignedInUser)
  /// `sendVerificationCode` in flight: a code is being texted to `flow.phoneNumber`, to sign in
  /// with (`user` nil), to upgrade the guest or to add to the account.
  case sendingPhoneCode(flow: PhoneSignIn, user: SignedInUser?)
  /// A texted code is awaited, or (with `flow.request`) being checked by
  /// `signInWithPhoneNumber`.
  case awaitingPhoneCode(flow: PhoneSignIn, user: SignedInUser?)
}

/// Every top-level state name, as scenario files spell them: the one list the schema, the
/// documentation and the suggestions are derived from.
public enum StateName: String, Hashable, Sendable, CaseIterable {
  case starting, restoring, signedOut, signingInAnonymously, anonymous, awaitingProvider
  case googleAuthenticated, providerAuthenticated, migrationRequired, migrating
  case firebaseAuthenticated, reauthenticationRequired, deletingAccount, unlinkingProvider
  case signingInWithEmail, creatingAccount, sendingPasswordReset, reloadingAccount
  case sendingVerificationEmail, applyingActionCode, checkingActionCode, confirmingPasswordReset
  case signingInWithCustomToken, reauthenticatingWithPassword, changingPassword, changingEmail
  case updatingProfile, sendingSignInLink, signingInWithEmailLink, secondFactorRequired
  case accountExistsWithDifferentCredential, startingTotpEnrollment, enrollingTotp
  case withdrawingSecondFactor, startingPhoneEnrollment, enrollingPhone, sendingPhoneCode
  case awaitingPhoneCode
}

extension AuthState {
  /// The view of a phase and a user. The phase decides the case; for `resting` the user does.
  public init(phase: Phase, user: SignedInUser?) {
    switch phase {
    case .starting: self = .starting
    case .restoring(let r):
      self = .restoring(request: r.request, waiters: r.waiters, retryAt: r.retryAt)
    case .resting:
      guard let user else {
        self = .signedOut
        return
      }
      self = user.session.anonymous ? .anonymous(user: user) : .firebaseAuthenticated(user: user)
    case .signingInAnonymously(let r): self = .signingInAnonymously(request: r)
    case .providerFlow(let f):
      guard let credential = f.credential else {
        self = .awaitingProvider(
          provider: f.provider, purpose: f.purpose, request: f.request, user: user)
        return
      }
      self =
        f.provider.hasGoogleSpellings
        ? .googleAuthenticated(
          purpose: f.purpose, request: f.request, credential: credential, user: user)
        : .providerAuthenticated(
          purpose: f.purpose, request: f.request, credential: credential, user: user)
    case .migrationRequired(let o):
      self = .migrationRequired(proof: o.proof, email: o.email, user: user ?? .missing)
    case .migrating(let m): self = .migrating(migration: m, user: user ?? .missing)
    case .reauthenticationRequired(let op):
      self = .reauthenticationRequired(operation: op, user: user ?? .missing)
    case .deletingAccount(let d): self = .deletingAccount(deletion: d, user: user ?? .missing)
    case .unlinkingProvider(let u): self = .unlinkingProvider(unlink: u, user: user ?? .missing)
    case .emailFlow(let e):
      switch e.kind {
      case .signIn: self = .signingInWithEmail(request: e.request, email: e.email, user: user)
      case .createAccount: self = .creatingAccount(request: e.request, email: e.email, user: user)
      case .passwordReset:
        self = .sendingPasswordReset(request: e.request, email: e.email, user: user)
      case .reauthenticate:
        self = .reauthenticatingWithPassword(
          request: e.request, email: e.email, resume: e.resume, user: user ?? .missing)
      case .sendSignInLink:
        self = .sendingSignInLink(request: e.request, email: e.email, user: user)
      case .linkSignIn:
        self = .signingInWithEmailLink(request: e.request, email: e.email, user: user)
      }
    case .accountFlow(let f):
      switch f.kind {
      case .reload: self = .reloadingAccount(request: f.request, user: user ?? .missing)
      case .sendVerificationEmail:
        self = .sendingVerificationEmail(request: f.request, user: user ?? .missing)
      case .applyActionCode: self = .applyingActionCode(request: f.request, user: user)
      case .checkActionCode: self = .checkingActionCode(request: f.request, user: user)
      case .confirmPasswordReset: self = .confirmingPasswordReset(request: f.request, user: user)
      case .customTokenSignIn: self = .signingInWithCustomToken(request: f.request, user: user)
      case .changePassword:
        self = .changingPassword(
          request: f.request, newPassword: f.operation?.newPassword ?? "", user: user ?? .missing)
      case .changeEmail:
        self = .changingEmail(
          request: f.request, newEmail: f.operation?.newEmail ?? "", user: user ?? .missing)
      case .updateProfile: self = .updatingProfile(request: f.request, user: user ?? .missing)
      case .startTotpEnrollment:
        self = .startingTotpEnrollment(request: f.request, user: user ?? .missing)
      case .startPhoneEnrollment:
        var number = ""
        var proof: AppVerification?
        if case .enrollPhone(let n, let p)? = f.operation { (number, proof) = (n, p) }
        self = .startingPhoneEnrollment(
          request: f.request, phoneNumber: number, appVerification: proof, user: user ?? .missing)
      case .withdrawSecondFactor:
        var factor = ""
        if case .withdrawSecondFactor(let id)? = f.operation { factor = id }
        self = .withdrawingSecondFactor(request: f.request, factor: factor, user: user ?? .missing)
      }
    case .secondFactor(let step): self = .secondFactorRequired(step: step, user: user)
    case .accountExists(let link):
      self = .accountExistsWithDifferentCredential(link: link, user: user)
    case .totpEnrollment(let e): self = .enrollingTotp(enrollment: e, user: user ?? .missing)
    case .phoneEnrollment(let e): self = .enrollingPhone(enrollment: e, user: user ?? .missing)
    case .phoneSignIn(let f):
      self =
        f.sendingCode
        ? .sendingPhoneCode(flow: f, user: user) : .awaitingPhoneCode(flow: f, user: user)
    }
  }

  /// The phase and user this view stands for (the inverse of `init(phase:user:)`).
  public var split: (phase: Phase, user: SignedInUser?) {
    switch self {
    case .starting: (.starting, nil)
    case .restoring(let r, let w, let at):
      (.restoring(Restore(request: r, waiters: w, retryAt: at)), nil)
    case .signedOut: (.resting, nil)
    case .signingInAnonymously(let r): (.signingInAnonymously(request: r), nil)
    case .anonymous(let u), .firebaseAuthenticated(let u): (.resting, u)
    case .awaitingProvider(let p, let purpose, let r, let u):
      (.providerFlow(ProviderFlow(provider: p, purpose: purpose, request: r, credential: nil)), u)
    case .googleAuthenticated(let purpose, let r, let c, let u),
      .providerAuthenticated(let purpose, let r, let c, let u):
      (
        .providerFlow(
          ProviderFlow(provider: c.provider, purpose: purpose, request: r, credential: c)), u
      )
    case .migrationRequired(let c, let e, let u):
      (.migrationRequired(MigrationOffer(proof: c, email: e)), u)
    case .migrating(let m, let u): (.migrating(m), u)
    case .reauthenticationRequired(let op, let u): (.reauthenticationRequired(operation: op), u)
    case .deletingAccount(let d, let u): (.deletingAccount(d), u)
    case .unlinkingProvider(let unlink, let u): (.unlinkingProvider(unlink), u)
    case .signingInWithEmail(let r, let e, let u):
      (.emailFlow(EmailFlow(kind: .signIn, request: r, email: e)), u)
    case .creatingAccount(let r, let e, let u):
      (.emailFlow(EmailFlow(kind: .createAccount, request: r, email: e)), u)
    case .sendingPasswordReset(let r, let e, let u):
      (.emailFlow(EmailFlow(kind: .passwordReset, request: r, email: e)), u)
    case .reloadingAccount(let r, let u): (.accountFlow(AccountFlow(kind: .reload, request: r)), u)
    case .sendingVerificationEmail(let r, let u):
      (.accountFlow(AccountFlow(kind: .sendVerificationEmail, request: r)), u)
    case .applyingActionCode(let r, let u):
      (.accountFlow(AccountFlow(kind: .applyActionCode, request: r)), u)
    case .checkingActionCode(let r, let u):
      (.accountFlow(AccountFlow(kind: .checkActionCode, request: r)), u)
    case .confirmingPasswordReset(let r, let u):
      (.accountFlow(AccountFlow(kind: .confirmPasswordReset, request: r)), u)
    case .signingInWithCustomToken(let r, let u):
      (.accountFlow(AccountFlow(kind: .customTokenSignIn, request: r)), u)
    case .reauthenticatingWithPassword(let r, let e, let resume, let u):
      (.emailFlow(EmailFlow(kind: .reauthenticate, request: r, email: e, resume: resume)), u)
    case .changingPassword(let r, let p, let u):
      (
        .accountFlow(
          AccountFlow(kind: .changePassword, request: r, operation: .changePassword(newPassword: p))
        ), u
      )
    case .updatingProfile(let r, let u):
      (.accountFlow(AccountFlow(kind: .updateProfile, request: r)), u)
    case .startingTotpEnrollment(let r, let u):
      (.accountFlow(AccountFlow(kind: .startTotpEnrollment, request: r, operation: .enrollTotp)), u)
    case .enrollingTotp(let e, let u): (.totpEnrollment(e), u)
    case .startingPhoneEnrollment(let r, let n, let p, let u):
      (
        .accountFlow(
          AccountFlow(
            kind: .startPhoneEnrollment, request: r,
            operation: .enrollPhone(phoneNumber: n, appVerification: p))), u
      )
    case .enrollingPhone(let e, let u): (.phoneEnrollment(e), u)
    case .sendingPhoneCode(let f, let u), .awaitingPhoneCode(let f, let u): (.phoneSignIn(f), u)
    case .withdrawingSecondFactor(let r, let f, let u):
      (
        .accountFlow(
          AccountFlow(
            kind: .withdrawSecondFactor, request: r, operation: .withdrawSecondFactor(factor: f))),
        u
      )
    case .sendingSignInLink(let r, let e, let u):
      (.emailFlow(EmailFlow(kind: .sendSignInLink, request: r, email: e)), u)
    case .signingInWithEmailLink(let r, let e, let u):
      (.emailFlow(EmailFlow(kind: .linkSignIn, request: r, email: e)), u)
    case .changingEmail(let r, let e, let u):
      (
        .accountFlow(
          AccountFlow(kind: .changeEmail, request: r, operation: .changeEmail(newEmail: e))), u
      )
    case .secondFactorRequired(let step, let u): (.secondFactor(step), u)
    case .accountExistsWithDifferentCredential(let link, let u): (.accountExists(link), u)
    }
  }

  /// The top-level state's name.
  public var kind: StateName {
    switch self {
    case .starting: .starting
    case .restoring: .restoring
    case .signedOut: .signedOut
    case .signingInAnonymously: .signingInAnonymously
    case .anonymous: .anonymous
    case .awaitingProvider: .awaitingProvider
    case .googleAuthenticated: .googleAuthenticated
    case .providerAuthenticated: .providerAuthenticated
    case .migrationRequired: .migrationRequired
    case .migrating: .migrating
    case .firebaseAuthenticated: .firebaseAuthenticated
    case .reauthenticationRequired: .reauthenticationRequired
    case .deletingAccount: .deletingAccount
    case .unlinkingProvider: .unlinkingProvider
    case .signingInWithEmail: .signingInWithEmail
    case .creatingAccount: .creatingAccount
    case .sendingPasswordReset: .sendingPasswordReset
    case .reloadingAccount: .reloadingAccount
    case .sendingVerificationEmail: .sendingVerificationEmail
    case .applyingActionCode: .applyingActionCode
    case .checkingActionCode: .checkingActionCode
    case .confirmingPasswordReset: .confirmingPasswordReset
    case .signingInWithCustomToken: .signingInWithCustomToken
    case .reauthenticatingWithPassword: .reauthenticatingWithPassword
    case .changingPassword: .changingPassword
    case .changingEmail: .changingEmail
    case .updatingProfile: .updatingProfile
    case .sendingSignInLink: .sendingSignInLink
    case .signingInWithEmailLink: .signingInWithEmailLink
    case .secondFactorRequired: .secondFactorRequired
    case .accountExistsWithDifferentCredential: .accountExistsWithDifferentCredential
    case .startingTotpEnrollment: .startingTotpEnrollment
    case .enrollingTotp: .enrollingTotp
    case .withdrawingSecondFactor: .withdrawingSecondFactor
    case .startingPhoneEnrollment: .startingPhoneEnrollment
    case .enrollingPhone: .enrollingPhone
    case .sendingPhoneCode: .sendingPhoneCode
    case .awaitingPhoneCode: .awaitingPhoneCode
    }
  }

  /// The top-level state name, as used in scenario files.
  public var name: String { kind.rawValue }

  /// The signed-in user this state carries, if any.
  public var user: SignedInUser? { split.user }

  /// The session this state stands for (what must be stored), if any.
  public var session: Session? { user?.session }
}

extension SignedInUser {
  /// Stands in for a user a phase needs but the machine lacks: only reachable by breaking the
  /// `userMatchesPhase` invariant, which the checks report; the view shows it rather than trap.
  static let missing = SignedInUser(
    session: Session(
      uid: "", anonymous: false, idToken: "", refreshToken: "", expiresAt: Instant(0)))
}
