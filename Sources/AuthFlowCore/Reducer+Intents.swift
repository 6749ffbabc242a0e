// Intents: what the user or the app did. Each method switches over the states; an intent that
// means nothing in a state is a benign race (a double tap, a stale button) and changes nothing.

extension AuthMachine {
  mutating func handleIntent(_ intent: Intent, now: Instant, fx: inout [Effect]) {
    switch intent {
    case .appLaunched:
      guard case .starting = state else { return }  // Launch is said once; later ones are noise.
      let r = newRequest()
      state = .restoring(request: r, waiters: [], retryAt: nil)
      fx.append(.loadSession(requestId: r))
    case .signInAnonymouslyTapped:
      guard case .signedOut = state else { return }
      let r = newRequest()
      state = .signingInAnonymously(request: r)
      fx.append(.signUpAnonymously(requestId: r))
    case .signInWithGoogleTapped, .linkGoogleTapped:
      googleTapped(intent, fx: &fx)
    case .signInWithEmail(let email, let password):
      switch state {
      case .signedOut:
        let r = newRequest()
        state = .signingInWithEmail(request: r, email: email)
        fx.append(.signInWithPassword(requestId: r, email: email, password: password))
      case .anonymous:
        // Signing in elsewhere would orphan the anonymous data: upgrade, or sign out first.
        Self.report(AuthError(code: "ANONYMOUS_USER_SIGNED_IN"), &fx)
      default: return
      }
    case .createAccount(let email, let password):
      let user: SignedInUser?
      switch state {
      case .signedOut: user = nil
      case .anonymous(let u): user = u
      default: return
      }
      let r = newRequest()
      state = .creatingAccount(request: r, email: email, user: user)
      fx.append(
        .signUpWithPassword(
          requestId: r, email: email, password: password, linkTo: user?.session.idToken))
    case .sendPasswordReset(let email):
      guard case .signedOut = state else { return }
      let r = newRequest()
      state = .sendingPasswordReset(request: r, email: email)
      fx.append(.sendPasswordReset(requestId: r, email: email))
    case .migrationDecided(let choice):
      guard case .migrationRequired(let credential, _, let user) = state else { return }
      decideMigration(choice, credential: credential, user: user, fx: &fx)
    case .migrationFinished:
      guard var user = state.user, var cleanup = user.session.pendingCleanup, !cleanup.dataMoved
      else { return }
      cleanup.dataMoved = true
      user.session.pendingCleanup = cleanup
      fx.append(.persistSession(session: user.session))
      state.replaceUser(user)
      startCleanupIfDue(fx: &fx)
    case .reauthenticateTapped:
      let resume: SensitiveOperation?
      let user: SignedInUser
      switch state {
      case .firebaseAuthenticated(let u): (resume, user) = (nil, u)
      case .reauthenticationRequired(let op, let u): (resume, user) = (op, u)
      default: return
      }
      let r = newRequest()
      state = .awaitingProvider(purpose: .reauthenticate(resume: resume), request: r, user: user)
      fx.append(
        .authorizeWithGoogle(
          requestId: r, intent: .reauthenticate, loginHint: user.session.email))
    case .signOutTapped(let discard):
      signOutTapped(discardAnonymousData: discard, fx: &fx)
    case .deleteAccountTapped:
      switch state {
      case .anonymous(let user), .firebaseAuthenticated(let user):
        let r = newRequest()
        state = .deletingAccount(request: r, user: user)
        fx.append(.deleteAccount(requestId: r, idToken: user.session.idToken))
      default: return
      }
    case .cancelTapped:
      cancelTapped()
    case .idTokenRequested(let requestId, let force):
      requestToken(requestId, force: force, now: now, fx: &fx)
    }
  }

  /// `signInWithGoogleTapped` / `linkGoogleTapped`: the five cases start here.
  mutating func googleTapped(_ intent: Intent, fx: inout [Effect]) {
    let purpose: ProviderPurpose
    let user: SignedInUser?
    switch (state, intent) {
    case (.signedOut, .signInWithGoogleTapped): (purpose, user) = (.signIn, nil)
    case (.anonymous(let u), _): (purpose, user) = (.upgrade, u)
    case (.firebaseAuthenticated(let u), .linkGoogleTapped): (purpose, user) = (.link, u)
    default: return  // Already signed in with a permanent account, or a flow is under way.
    }
    let r = newRequest()
    state = .awaitingProvider(purpose: purpose, request: r, user: user)
    fx.append(
      .authorizeWithGoogle(requestId: r, intent: user == nil ? .signIn : .link, loginHint: nil))
  }

  /// Starts the sign-in to the existing account, or stays anonymous.
  mutating func decideMigration(
    _ choice: MigrationChoice, credential: GoogleCredential, user: SignedInUser,
    fx: inout [Effect]
  ) {
    switch choice {
    case .stayAnonymous:
      state = .anonymous(user: user)
    case .merge, .switchWithoutData:
      // The anonymous account is kept until this sign-in succeeds.
      let r = newRequest()
      state = .migrating(choice: choice, request: r, credential: credential, user: user)
      fx.append(.signInWithIdp(requestId: r, credential: credential, linkTo: nil))
    }
  }

  mutating func signOutTapped(discardAnonymousData: Bool, fx: inout [Effect]) {
    switch state {
    case .starting, .restoring, .signedOut:
      return  // Nothing to sign out of yet.
    default:
      guard let user = state.user else {
        state = .signedOut  // A sign-in in flight: abandon it; its result will be stale.
        return
      }
      if user.session.anonymous && !discardAnonymousData {
        Self.report(.discardConsentRequired, &fx)
        return
      }
      signOut(user, notification: nil, fx: &fx)
    }
  }

  mutating func cancelTapped() {
    switch state {
    case .signingInAnonymously, .signingInWithEmail, .sendingPasswordReset:
      state = .signedOut
    case .awaitingProvider(let purpose, _, let user),
      .googleAuthenticated(let purpose, _, _, let user):
      state = Self.origin(of: purpose, user: user)
    case .migrationRequired(_, _, let user), .migrating(_, _, _, let user):
      state = .anonymous(user: user)
    case .reauthenticationRequired(_, let user):
      state = .firebaseAuthenticated(user: user)
    case .creatingAccount(_, _, let user):
      state = user.map(Self.resting) ?? .signedOut
    case .starting, .restoring, .signedOut, .anonymous, .firebaseAuthenticated, .deletingAccount:
      return  // Nothing to cancel (a deletion already sent cannot be taken back).
    }
  }

  /// Where a Google flow returns to when it ends without a new session.
  static func origin(of purpose: ProviderPurpose, user: SignedInUser?) -> AuthState {
    guard let user else { return .signedOut }
    switch purpose {
    case .signIn, .upgrade, .link: return resting(user)
    case .reauthenticate(let resume?):
      return .reauthenticationRequired(operation: resume, user: user)
    case .reauthenticate(nil): return .firebaseAuthenticated(user: user)
    }
  }
}
