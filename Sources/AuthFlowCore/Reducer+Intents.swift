// Intents: what the user or the app did. Each method switches over the phases; an intent that
// means nothing in a phase is a benign race (a double tap, a stale button) and changes nothing.

extension AuthMachine {
  mutating func handleIntent(_ intent: Intent, now: Instant, fx: inout [Effect]) {
    switch intent {
    case .appLaunched:
      guard case .starting = phase else { return }  // Launch is said once; later ones are noise.
      let r = newRequest()
      phase = .restoring(Restore(request: r, waiters: [], retryAt: nil))
      fx.append(.loadSession(requestId: r))
    case .signInAnonymouslyTapped:
      guard case .resting = phase, user == nil else { return }
      phase = .signingInAnonymously(request: send(.signUpAnonymously, &fx))
    case .signInWithProviderTapped(let provider):
      providerTapped(provider, link: false, fx: &fx)
    case .linkProviderTapped(let provider):
      providerTapped(provider, link: true, fx: &fx)
    case .signInWithEmail(let email, let password):
      guard case .resting = phase else { return }
      guard let user else {
        let r = send(.signInWithPassword(email: email, password: password), &fx)
        phase = .emailFlow(EmailFlow(kind: .signIn, request: r, email: email))
        return
      }
      if user.session.anonymous {
        // Signing in elsewhere would orphan the anonymous data: upgrade, or sign out first.
        Self.report(AuthError(code: "ANONYMOUS_USER_SIGNED_IN"), &fx)
      }
    case .createAccount(let email, let password):
      guard case .resting = phase, user?.session.anonymous ?? true else { return }
      let r = send(
        .signUpWithPassword(email: email, password: password, linkTo: user?.session.idToken), &fx)
      phase = .emailFlow(EmailFlow(kind: .createAccount, request: r, email: email))
    case .sendPasswordReset(let email):
      guard case .resting = phase, user == nil else { return }
      let r = send(.sendPasswordReset(email: email), &fx)
      phase = .emailFlow(EmailFlow(kind: .passwordReset, request: r, email: email))
    case .migrationDecided(let choice):
      guard case .migrationRequired(let offer) = phase else { return }
      decideMigration(choice, credential: offer.credential, fx: &fx)
    case .migrationFinished:
      guard let cleanup = user?.session.pendingCleanup, !cleanup.dataMoved else { return }
      user?.session.pendingCleanup?.dataMoved = true
      if let session = user?.session { fx.append(.persistSession(session: session)) }
      startCleanupIfDue(fx: &fx)
    case .reauthenticateTapped(let chosen):
      reauthenticateTapped(chosen, fx: &fx)
    case .signOutTapped(let discard):
      signOutTapped(discardAnonymousData: discard, fx: &fx)
    case .deleteAccountTapped:
      guard case .resting = phase, let token = user?.session.idToken else { return }
      phase = .deletingAccount(request: send(.deleteAccount(idToken: token), &fx))
    case .cancelTapped:
      cancelTapped()
    case .idTokenRequested(let requestId, let force):
      requestToken(requestId, force: force, now: now, fx: &fx)
    }
  }

  /// Sign in with, or link, a provider: the new-user, upgrade and link cases start here.
  mutating func providerTapped(_ provider: ProviderID, link: Bool, fx: inout [Effect]) {
    guard case .resting = phase else { return }  // A flow is already under way.
    let purpose: ProviderPurpose
    switch (user?.session.anonymous, link) {
    case (nil, false): purpose = .signIn
    case (true?, _): purpose = .upgrade  // Either spelling upgrades an anonymous user.
    case (false?, true): purpose = .link
    case (nil, true), (false?, false): return  // Nothing to link to, or already signed in.
    }
    let intent: AuthorizationIntent = user == nil ? .signIn : .link
    let r = send(.authorize(provider: provider, intent: intent, loginHint: nil), &fx)
    phase = .providerFlow(
      ProviderFlow(provider: provider, purpose: purpose, request: r, credential: nil))
  }

  /// Reauthenticate a permanent user, resuming the operation that waits for it, if any.
  mutating func reauthenticateTapped(_ chosen: ProviderID?, fx: inout [Effect]) {
    guard let session = user?.session else { return }
    let resume: SensitiveOperation?
    switch phase {
    case .resting:
      guard !session.anonymous else { return }  // An anonymous user has nothing to prove.
      resume = nil
    case .reauthenticationRequired(let op): resume = op
    case .starting, .restoring, .signingInAnonymously, .providerFlow, .migrationRequired,
      .migrating, .deletingAccount, .emailFlow:
      return  // Busy: the tap is stale.
    }
    guard let provider = chosen ?? policy.providers.reauthenticationProvider(for: session) else {
      return
    }
    let r = send(
      .authorize(provider: provider, intent: .reauthenticate, loginHint: session.email), &fx)
    phase = .providerFlow(
      ProviderFlow(
        provider: provider, purpose: .reauthenticate(resume: resume), request: r, credential: nil))
  }

  /// Starts the sign-in to the existing account, or stays anonymous.
  mutating func decideMigration(
    _ choice: MigrationChoice, credential: IdPCredential, fx: inout [Effect]
  ) {
    switch choice {
    case .stayAnonymous:
      phase = .resting
    case .merge, .switchWithoutData:
      // The anonymous account is kept until this sign-in succeeds.
      let r = send(.signInWithIdp(credential: credential, linkTo: nil), &fx)
      phase = .migrating(Migration(choice: choice, request: r, credential: credential))
    }
  }

  mutating func signOutTapped(discardAnonymousData: Bool, fx: inout [Effect]) {
    switch phase {
    case .starting, .restoring:
      return  // Nothing to sign out of yet.
    case .resting, .signingInAnonymously, .providerFlow, .migrationRequired, .migrating,
      .reauthenticationRequired, .deletingAccount, .emailFlow:
      guard let user else {
        phase = .resting  // A sign-in in flight: abandon it; its result will be stale.
        return
      }
      if user.session.anonymous && !discardAnonymousData {
        Self.report(.discardConsentRequired, &fx)
        return
      }
      signOut(notification: nil, fx: &fx)
    }
  }

  mutating func cancelTapped() {
    switch phase {
    case .signingInAnonymously, .emailFlow, .migrationRequired, .migrating,
      .reauthenticationRequired:
      // Back to rest: signed out, or the user the flow started from (the anonymous user keeps
      // their account in a migration).
      phase = .resting
    case .providerFlow(let flow):
      phase = Self.origin(of: flow.purpose)
    case .starting, .restoring, .resting, .deletingAccount:
      return  // Nothing to cancel (a deletion already sent cannot be taken back).
    }
  }

  /// Where a provider flow returns to when it ends without a new session.
  static func origin(of purpose: ProviderPurpose) -> Phase {
    switch purpose {
    case .signIn, .upgrade, .link, .reauthenticate(nil): .resting
    case .reauthenticate(let resume?): .reauthenticationRequired(operation: resume)
    }
  }
}
