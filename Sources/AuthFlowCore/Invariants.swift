/// The model's invariants, by name. `number` is the contract's numbering, kept for the docs.
public enum Invariant: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// Every event is handled in every state, without a trap.
  case total
  /// An anonymous user leaves only by an explicit decision; their account is deleted only after
  /// the app moved its data.
  case anonymousDataKept
  /// At most one request per family (flow, refresh, cleanup) in flight; every request sent is
  /// awaited.
  case singleFlight
  /// The last write of a step matches the session the machine holds.
  case persistenceFollowsState
  /// Transient and throttled errors never sign anyone out.
  case transientNeverSignsOut
  /// A result nobody waits for changes nothing.
  case staleResultsIgnored
  /// `signedOut` is reachable from everywhere, and effects use only tokens the machine holds.
  case oldTokensUnused
  /// Reauthentication never switches users; the user changes only through a migration.
  case reauthenticationKeepsUser
  /// Every `idTokenRequested` is answered by exactly one `deliverIDToken`.
  case oneAnswerPerTokenRequest
  /// States, events and effects survive a JSON round-trip.
  case jsonRoundTrip
  /// A user is present exactly when the phase needs one.
  case userMatchesPhase
  /// Every timer is scheduled at a valid instant no earlier than now.
  case timersInFuture
  /// An (ID token, nonce) pair goes to Firebase at most once: a credential with a nonce is sent
  /// only in the step its consent step delivered it.
  case nonceSentOnce
  /// No local session is left for an account whose deletion succeeded.
  case noSessionAfterDeletion
  /// The refresh timer is at max(expiry − margin, now + half the remaining lifetime) when it is
  /// set for a fresh token, and at the end of the backoff while backing off.
  case refreshOnTime
  /// Retry delays double from `backoffBase` and stop at `backoffCap`; a throttled error waits at
  /// least `throttledDelay`; a restore that could not read the store retries after
  /// `backoffBase`.
  case backoffOnSchedule
  /// No ID token is handed out from inside the refresh margin, unless a refresh just issued it.
  case noTokenInsideMargin
  /// A session-dead answer ends the session it belongs to (or drops the cleanup it belongs to)
  /// and is never retried.
  case sessionDeadEnds
  /// A migration cleanup's "data moved" mark is set only by the app's `migrationFinished` or by
  /// its choice to switch without the data.
  case dataMovedByTheApp
  /// A pending migration cleanup leaves a session that stays signed in only by being answered.
  case cleanupFinishes
  /// A migration that leaves data behind announces `migrationReady` naming the anonymous user
  /// and the account it moved to, and no other migration notice names anyone else.
  case migrationNamesUsers
  /// An upgrade or a link always sends the current user's ID token as `linkTo`; a sign-in to
  /// another account never does.
  case upgradeLinks
  /// Ending a session signs out of every provider SDK that session used.
  case providerSignedOut
  /// An operation waiting for reauthentication is resumed, still waiting, or ended visibly (the
  /// app cancelled it, the user is gone, or a notification says why).
  case reauthenticationOutcome
  /// A launch that reads a stored session keeps its user (anonymous included): it is signed in
  /// again, refreshed, or its unfinished deletion is resumed, never silently dropped.
  case relaunchKeepsUser
  /// An account whose deletion succeeded never comes back: not in the store, not signed in,
  /// not after a relaunch (checked over a run's history).
  case deletedStaysDeleted
  /// No token of a session whose clearing reached the store is handed out or sent again
  /// (checked over a run's history).
  case clearedTokensUnused
  /// An unlink never removes the account's last way to sign in.
  case unlinkKeepsASignIn
  /// Another process's write to the shared store is followed: a cleared store signs out,
  /// another user's session replaces ours.
  case followsSharedStore
  /// A timer that fires early (a clock change) is armed again, or the work it stands for starts:
  /// it is never dropped.
  case earlyTimerRearmed
  /// An older write of the same user's (a peer that had not seen newer tokens) never replaces
  /// the newer tokens the machine holds.
  case olderWriteIgnored
  /// A failure answering a migration's sign-in is about the other account: the anonymous user
  /// stays signed in with their session, and nothing of theirs is deleted or cleared.
  case migrationFailureKeepsAnonymous
  /// After a link conflict the migration signs in with the conflict answer's own credential
  /// (its retry token, no nonce); a provider whose traits say "retry, then reauthorize" is asked
  /// again only when that is refused or absent, and at most once per migration.
  case conflictRetry
  /// The credential a consent step delivers is sent as delivered (its name included); a name,
  /// once in the session, is kept while the same user stays signed in, until the user removes it
  /// with a profile update.
  case nameKept
  /// A reload's answer replaces only what the server owns (email, its verification, the
  /// providers, a name the server has), keeps the tokens, the records and a name only the device
  /// has, and writes the session once when that changed, never when it did not.
  case reloadTakesTheProfile
  /// An email link's code is sent only when the app applies it; its answer, whatever it is,
  /// never ends or changes who is signed in; a code that verified the signed-in user's address
  /// marks the session verified and brings a fresh ID token, and another account's changes
  /// nothing here.
  case actionCodeKeepsSession
  /// A verification mail is asked for only for a signed-in account that has an address.
  case verificationMailHasAnAddress
  /// A custom token never switches users: signed in, an answer for the same uid renews that
  /// session with the answer's tokens, and another uid's answer is refused with `userMismatch`,
  /// leaving the session as it was and storing nothing; no failure of it ends the session.
  case customTokenKeepsUser
  /// A password change's answer for the signed-in user puts its new tokens in the session and
  /// stores them in the same step (Firebase ended the old ones); refused for an old login, the
  /// change waits in `reauthenticationRequired` with its new password.
  case passwordChangeStoresTokens
  /// An email change is verified first: the answer to `sendEmailChangeVerification` leaves the
  /// session as it was and writes nothing to the store (the email changes when the link mailed
  /// to the new address is applied); refused for an old login, the change waits in
  /// `reauthenticationRequired` with its new address.
  case emailChangeVerifiedFirst
  /// A profile update takes the display name and photo URL the server answered with (a removed
  /// one is gone), changes nothing else in the session, and writes it once when it changed.
  case profileUpdateTaken
  /// An email-link sign-in sends the address the app gave, else the one the last sign-in link
  /// was sent to; with neither it sends nothing and asks the app (`emailNeededForLink`). The
  /// kept address changes only when a link is sent (it becomes that link's address), and no
  /// address is kept while a permanent account is signed in.
  case emailLinkAddressKept
  /// A second-factor challenge is answered one request at a time, only with its own pending
  /// credential and only with what the app gave (a phone factor's code with the `sessionInfo`
  /// texted for that factor); a wrong code keeps it; an expired texted code is dropped; a
  /// session, an answer that ends it, or a cancel ends it for good: its credential is never sent
  /// again.
  case secondFactorAnsweredOnce
  /// The provider credential kept after Firebase's `needConfirmation` is linked at once to the
  /// account the user then signs in to when its email is the credential's, and never to
  /// another; it never signs anyone in; a sign-in from the wait that ends without a session
  /// comes back to it; cancelling the wait keeps nothing.
  case pendingCredentialLinked
  /// A TOTP enrolment shows the secret Firebase issued and sends it back only with a code the
  /// app gave, one at a time; enrolled, the answer's tokens are the same user's session, stored
  /// in the same step; a failure that leaves the enrolment session alive keeps the same secret
  /// for another code, one that ends it (`SESSION_EXPIRED` and its kin) returns to rest, and a
  /// login too old for either step waits in `reauthenticationRequired` to enrol again.
  case totpEnrollmentOutcome
  /// A withdrawn factor's answer, for the signed-in user: new tokens, when it brings them, are
  /// that user's session and stored in the same step (none: the session's tokens stay); the
  /// app is told and the account is reloaded in the same step for its factors; refused for a
  /// login too old, the withdrawal of the same factor waits in `reauthenticationRequired`.
  case withdrawalOutcome
  /// A first factor's challenge (the awaited `signInWithPassword`, `signInWithIdp` or
  /// `signInWithEmailLink` answered `secondFactorRequired`) is held, never a session: the user
  /// is the one before, nothing is stored or cleared, and the machine holds exactly that
  /// challenge with nothing in flight; only a link made for a signed-in user (a guest's email
  /// link, a provider's link or upgrade), which Firebase answers without one, reports it as
  /// `SECOND_FACTOR_REQUIRED` instead.
  case challengeHeld
  /// A phone enrolment sends the number and the proof the app gave, and finishes only with a
  /// code the app gave for the session Firebase texted, one at a time; a cancel while no code is
  /// being checked returns to rest; enrolled, the answer's
  /// tokens are the same user's session, stored in the same step; a failure that leaves the
  /// enrolment session alive keeps waiting for a code, one that ends it (`SESSION_EXPIRED` and
  /// its kin) or a login too old returns to rest (the proof was spent on the text), and a login
  /// too old for the start waits in `reauthenticationRequired` to text the same number with the
  /// same proof.
  case phoneEnrollmentOutcome
  /// A phone number's code is texted to the number the app gave, with its proof, and checked
  /// only with a code the app gave, for the session Firebase texted, one at a time, linked to
  /// the user signed in before (nobody: a sign-in); a cancel while no code is being checked
  /// returns to rest; a new text's session is the one awaited, and a failed new text keeps the
  /// one before; the answer's session is signed in and
  /// stored (a link keeps the user's uid); a wrong code keeps the texted session for another,
  /// and one that ended it (`SESSION_EXPIRED` and its kin) returns to rest.
  case phoneSignInOutcome

  /// The contract's number (11 and later were added after the contract).
  public var number: Int { (Self.allCases.firstIndex(of: self) ?? 0) + 1 }

  /// A short title.
  public var title: String {
    switch self {
    case .total: "total"
    case .anonymousDataKept: "no silent loss of anonymous data"
    case .singleFlight: "single flight"
    case .persistenceFollowsState: "persistence follows state"
    case .transientNeverSignsOut: "transient errors never sign out"
    case .staleResultsIgnored: "stale results change nothing"
    case .oldTokensUnused: "signedOut reachable; old tokens unused"
    case .reauthenticationKeepsUser: "reauthentication never switches users"
    case .oneAnswerPerTokenRequest: "one deliverIDToken per idTokenRequested"
    case .jsonRoundTrip: "JSON round-trip"
    case .userMatchesPhase: "a user is present exactly when the phase needs one"
    case .timersInFuture: "every timer is at a valid instant no earlier than now"
    case .nonceSentOnce: "an (id_token, nonce) pair is sent at most once"
    case .noSessionAfterDeletion: "no local session for an account whose deletion succeeded"
    case .refreshOnTime: "the refresh timer is set on time"
    case .backoffOnSchedule: "retries wait as the backoff policy says"
    case .noTokenInsideMargin: "no token from inside the margin without a refresh"
    case .sessionDeadEnds: "a session-dead error ends its session and is not retried"
    case .dataMovedByTheApp: "only the app marks a migration's data as moved"
    case .cleanupFinishes: "a pending migration cleanup is dropped only by finishing"
    case .migrationNamesUsers: "migrationReady names the right users"
    case .upgradeLinks: "an upgrade or link always sends linkTo"
    case .providerSignedOut: "ending a session signs out of its provider SDKs"
    case .reauthenticationOutcome: "an operation waiting for reauthentication is never dropped"
    case .relaunchKeepsUser: "a relaunch keeps the stored user"
    case .deletedStaysDeleted: "a deleted account never comes back"
    case .clearedTokensUnused: "no token of a cleared session is used"
    case .unlinkKeepsASignIn: "an unlink never removes the last way to sign in"
    case .followsSharedStore: "another process's sign-out or sign-in is followed"
    case .earlyTimerRearmed: "an early timer is armed again, never dropped"
    case .olderWriteIgnored: "an older write never replaces newer tokens"
    case .migrationFailureKeepsAnonymous: "a failed migration sign-in keeps the anonymous user"
    case .conflictRetry:
      "a conflict is retried with its own credential (a phone number's with its proof), reauthorized at most once"
    case .nameKept: "a provider's name is sent as given and kept"
    case .reloadTakesTheProfile: "a reload takes only the server's profile, written once"
    case .actionCodeKeepsSession: "an action code never ends the session and verifies only its own"
    case .verificationMailHasAnAddress:
      "a verification mail is asked for an account with an address"
    case .customTokenKeepsUser: "a custom token never switches users"
    case .passwordChangeStoresTokens:
      "a changed password's new tokens are stored at once; an old login waits for reauthentication"
    case .emailChangeVerifiedFirst:
      "an email changes only when the link to the new address is applied"
    case .profileUpdateTaken: "a profile update takes the server's name and photo, written once"
    case .emailLinkAddressKept:
      "an email link signs in with the address it was sent to, kept until someone permanent signs in"
    case .secondFactorAnsweredOnce:
      "a second factor is answered once at a time, with its own credential, never after it ended"
    case .pendingCredentialLinked:
      "a credential kept after needConfirmation is linked to the account signed in next, and only to it"
    case .totpEnrollmentOutcome:
      "a TOTP enrolment keeps its secret until enrolled or ended, and stores the tokens it gets"
    case .withdrawalOutcome:
      "a withdrawal takes and stores the tokens it gets, then reloads; an old login waits"
    case .challengeHeld:
      "a first factor's challenge is held, never a session; a link's is reported"
    case .phoneEnrollmentOutcome:
      "a phone enrolment waits for the texted code until enrolled or ended, and stores the tokens it gets"
    case .phoneSignInOutcome:
      "a phone code is checked once, as the app gave it, for the user before; a wrong one keeps the texted session; another account's number leaves the user as they were"
    }
  }

  public var description: String { rawValue }
}

/// A broken invariant: which one and what happened.
public struct Violation: Hashable, Sendable, CustomStringConvertible {
  /// The invariant.
  public var invariant: Invariant
  /// What went wrong in this step.
  public var message: String

  /// Creates a violation.
  public init(_ invariant: Invariant, _ message: String) {
    self.invariant = invariant
    self.message = message
  }

  public var description: String {
    "invariant \(invariant.number) \(invariant.rawValue) (\(invariant.title)): \(message)"
  }
}

extension Phase {
  /// The request the phase itself waits for (not counting refresh and cleanup).
  public var pendingRequest: RequestID? {
    switch self {
    case .starting, .resting, .migrationRequired, .reauthenticationRequired: nil
    case .restoring(let r): r.retryAt == nil ? r.request : nil  // A waiting retry is not in flight.
    case .signingInAnonymously(let r): r
    case .deletingAccount(let d): d.request
    case .unlinkingProvider(let u): u.request
    case .providerFlow(let f): f.request
    case .migrating(let m): m.request
    case .emailFlow(let e): e.request
    case .accountFlow(let f): f.request
    case .secondFactor(let step): step.request
    case .accountExists: nil
    case .totpEnrollment(let e): e.request
    case .phoneEnrollment(let e): e.request
    case .phoneSignIn(let f): f.request
    }
  }

  /// Whether the phase is consistent with `user`: present exactly when the phase needs one, and
  /// anonymous where only an anonymous user can be.
  public func accepts(_ user: SignedInUser?) -> Bool {
    switch self {
    case .starting, .restoring, .signingInAnonymously: return user == nil
    case .resting, .phoneSignIn: return true
    case .providerFlow(let f):
      switch f.purpose {
      case .signIn: return user == nil
      case .upgrade: return user?.session.anonymous == true
      case .link: return user?.session.anonymous == false
      case .reauthenticate: return user != nil
      }
    case .migrationRequired, .migrating: return user?.session.anonymous == true
    case .reauthenticationRequired, .deletingAccount: return user != nil
    case .accountExists(let link):
      // Nobody, or the guest whose upgrade met the account.
      guard let guest = link.guest else { return user == nil }
      return user?.session.anonymous == true && user?.session.uid == guest
    case .totpEnrollment, .phoneEnrollment: return user?.session.anonymous == false
    case .secondFactor(let step):
      // No session while a sign-in waits for its second factor; a reauthentication proves the
      // signed-in user again (a guest's too, as a provider's reauthentication does).
      switch step.resume {
      case .signIn: return user == nil
      case .reauthenticate, .deleteAccount: return user != nil
      case .migrate: return user?.session.anonymous == true
      }
    case .unlinkingProvider: return user?.session.anonymous == false
    case .emailFlow(let e):
      switch e.kind {
      // Nobody, or a guest (only the one whose upgrade met an account: `pendingCredentialLinked`).
      case .signIn, .passwordReset: return user?.session.anonymous ?? true
      case .createAccount, .sendSignInLink, .linkSignIn: return user?.session.anonymous ?? true
      case .reauthenticate: return user?.session.anonymous == false
      }
    case .accountFlow(let f):
      switch f.kind {
      case .reload, .sendVerificationEmail, .updateProfile: return user != nil
      case .changePassword, .changeEmail, .startTotpEnrollment, .startPhoneEnrollment,
        .withdrawSecondFactor:
        return user?.session.anonymous == false
      case .applyActionCode, .checkActionCode, .confirmPasswordReset, .customTokenSignIn:
        return true
      }
    }
  }
}

/// The invariants, checked on one step: the machine before, the event, the machine after and
/// the effects. Every check is local to the step, so it needs no history: the same function
/// serves the scenario runner, the property tests (on sequences) and the model checker (on
/// transitions).
///
/// Not checked here: `total` (a trap would crash the checker itself), the first half of
/// `oldTokensUnused` (reachability of `signedOut`, a property of the whole graph) and
/// `jsonRoundTrip` (needs Foundation; the verification module checks it).
public enum Invariants {
  /// The request each family awaits in `machine`.
  public static func awaited(_ machine: AuthMachine) -> Awaited {
    var out = Awaited()
    out.flow = machine.phase.pendingRequest
    out.refresh = machine.user?.refreshRequest
    out.cleanup = machine.user?.cleanupRequest
    return out
  }

  /// The app's `idTokenRequested` ids the machine holds unanswered.
  public static func heldTokenRequests(_ machine: AuthMachine) -> [TokenRequestID] {
    if case .restoring(let r) = machine.phase { return r.waiters }
    return machine.user?.tokenWaiters ?? []
  }

  /// Every violation in one step.
  public static func check(
    before: AuthMachine, event: Event, after: AuthMachine, effects: [Effect], now: Instant
  ) -> [Violation] {
    // The machines are compared last, only where the answer would matter.
    let same =
      effects.isEmpty && !event.isAnswer && !isStoreChange(event) && before == after
    return check(before: before, event: event, after: after, effects: effects, now: now, same: same)
  }

  /// The same check for a caller that has compared the machines already: `same` says the step
  /// emitted nothing and left the machine equal to `before` (the model checker's world compares
  /// them once per step, for the check and for the edge it names, instead of twice). For an
  /// answer or another process's write it does not matter: those steps are checked whole.
  package static func check(
    before: AuthMachine, event: Event, after: AuthMachine, effects: [Effect], now: Instant,
    same: Bool
  ) -> [Violation] {
    if same, !event.isAnswer, !isStoreChange(event) {
      return checkUnchanged(before, event, now)
    }
    return checkStep(before: before, event: event, after: after, effects: effects, now: now)
  }

  /// The rules a step can break when it changed nothing and emitted nothing on an intent, a
  /// timer or a failed write: the state's own (a user exactly when the phase needs one, the
  /// address an email link keeps, a credential waiting after `needConfirmation`) and the events
  /// that must do something (a token asked for, a timer fired, a migration decided, a cancel, an
  /// email link opened). Every other rule needs an effect, a change, an answer or another
  /// process's write; the model checker's most frequent step (an intent the state ignores)
  /// costs these alone. `checkStep` is the whole check, and a test compares the two on every
  /// such step of a bounded space.
  static func checkUnchanged(_ machine: AuthMachine, _ event: Event, _ now: Instant)
    -> [Violation]
  {
    var out: [Violation] = []
    userMatchesPhase(machine, &out)
    switch event {
    case .intent(.idTokenRequested): tokenRequests(machine, event, machine, [], &out)
    case .timerFired: Promises.earlyTimer(machine, event, machine, [], now, &out)
    case .intent(.migrationDecided): Promises.conflictRetry(machine, event, machine, [], &out)
    default: break
    }
    Promises.emailLink(machine, event, machine, [], &out)
    if case .intent(.cancelTapped) = event {
      Promises.secondFactor(machine, event, machine, [], &out)
      Promises.phoneEnrollment(machine, event, machine, [], &out)
      Promises.phoneSignIn(machine, event, machine, [], &out)
    }
    Promises.pendingLink(machine, event, machine, [], &out)
    return out
  }

  static func userMatchesPhase(_ after: AuthMachine, _ out: inout [Violation]) {
    if !after.phase.accepts(after.user) {
      out.append(
        Violation(
          .userMatchesPhase,
          "\(after.stateName) with \(after.user.map { "user \($0.session.uid)" } ?? "no user")"))
    }
    // A guest signs in with a password (or resets one) only for the account their upgrade met.
    if case .emailFlow(let e) = after.phase, e.kind == .signIn || e.kind == .passwordReset,
      let u = after.user, u.session.uid != after.pendingLink?.guest
    {
      out.append(
        Violation(
          .userMatchesPhase,
          "\(after.stateName) with guest \(u.session.uid), who waits for no account"))
    }
  }

  /// Every rule on one step, whatever it did.
  static func checkStep(
    before: AuthMachine, event: Event, after: AuthMachine, effects: [Effect], now: Instant
  ) -> [Violation] {
    var out: [Violation] = []
    for case .scheduleTimer(let timer, let at) in effects where !at.isValid || at < now.clamped {
      out.append(
        Violation(.timersInFuture, "\(timer.rawValue) scheduled at \(at), before now (\(now))"))
    }
    let bs = before.user?.session
    let ase = after.user?.session
    let awaitedBefore = awaited(before)

    userMatchesPhase(after, &out)

    if let id = event.answer?.id, !awaitedBefore.contains(id) {
      if before != after || !effects.isEmpty {
        out.append(
          Violation(
            .staleResultsIgnored, "stale result #\(id) changed the machine or emitted effects"))
      }
      return out
    }

    // An anonymous user leaves only by an explicit decision.
    if let s = bs, s.anonymous, ase?.uid != s.uid, !anonymousExitAllowed(before, event) {
      out.append(
        Violation(
          .anonymousDataKept,
          "anonymous user \(s.uid) was dropped by \(describe(event)) in \(before.stateName)"))
    }
    for case .request(_, .deleteAccount(let token)) in effects {
      if let c = ase?.pendingCleanup, c.idToken == token {
        // The migrated anonymous account: only once the app moved its data (or chose to drop it).
        if !c.dataMoved {
          out.append(
            Violation(
              .anonymousDataKept, "anonymous account \(c.uid) deleted before its data was moved"))
        }
        continue
      }
      let anonymousToken =
        (bs?.anonymous == true && bs?.idToken == token)
        || (ase?.anonymous == true && ase?.idToken == token)
      if anonymousToken, !deleteOfAnonymousAllowed(before, event) {
        out.append(
          Violation(
            .anonymousDataKept, "deleteAccount for an anonymous user without deleteAccountTapped"))
      }
    }

    // One request per family in flight; every request sent is awaited.
    var sent = (flow: 0, refresh: 0, cleanup: 0)
    let awaitedAfter = awaited(after)
    for effect in effects {
      guard let id = effect.requestId else { continue }
      let family: RequestFamily
      if awaitedAfter.cleanup == id {
        family = .cleanup
      } else if case .request(_, .refreshToken) = effect {
        family = .refresh
      } else {
        family = .flow
      }
      switch family {
      case .flow: sent.flow += 1
      case .refresh: sent.refresh += 1
      case .cleanup: sent.cleanup += 1
      }
      if awaitedAfter[family] != id {
        out.append(Violation(.singleFlight, "\(effect.name) #\(id) was sent but is not awaited"))
      }
      if let earlier = awaitedBefore[family], earlier != id, !answers(event, earlier) {
        out.append(
          Violation(.singleFlight, "\(effect.name) #\(id) sent while #\(earlier) is in flight"))
      }
    }
    if sent.flow > 1 {
      out.append(Violation(.singleFlight, "\(sent.flow) flow requests sent in one step"))
    }
    if sent.refresh > 1 {
      out.append(Violation(.singleFlight, "\(sent.refresh) refresh requests sent in one step"))
    }
    if sent.cleanup > 1 {
      out.append(Violation(.singleFlight, "\(sent.cleanup) cleanup requests sent in one step"))
    }

    // The last write matches the machine's session.
    var lastWrite: Session?? = nil
    for effect in effects {
      if case .persistSession(let s) = effect { lastWrite = .some(s) }
      if case .clearSession = effect { lastWrite = .some(nil) }
    }
    if let written = lastWrite {
      if written != ase {
        out.append(
          Violation(
            .persistenceFollowsState,
            "the last write (\(written?.uid ?? "clear")) differs from the machine's session"))
      }
    } else if ase != bs, !isRestore(before, event), !isStoreChange(event) {
      out.append(Violation(.persistenceFollowsState, "the session changed without being written"))
    }

    // Transient and throttled errors never sign anyone out, nor clear the store (restore
    // included), nor sign out of a provider SDK, nor delete an account, nor forget a deletion
    // whose request may have reached the server (a record at its last step).
    if let error = failure(in: event), error.kind.isRetryable {
      if let s = bs, ase?.uid != s.uid {
        out.append(Violation(.transientNeverSignsOut, "\(error.code) signed out \(s.uid)"))
      }
      if let s = bs, s.pendingDeletion?.deleting == true, ase?.uid == s.uid,
        ase?.pendingDeletion?.deleting != true
      {
        out.append(
          Violation(.transientNeverSignsOut, "\(error.code) dropped \(s.uid)'s deletion record"))
      }
      for effect in effects {
        switch effect {
        case .clearSession, .signOutProvider, .notify(.sessionExpired),
          .notify(.signedOutAfterError), .request(_, .deleteAccount):
          out.append(
            Violation(.transientNeverSignsOut, "\(error.code) led to \(effect.name)"))
        default: break
        }
      }
    }

    // Another process's write is followed: a cleared store signs out; another user's session
    // replaces ours (the launch reads the store itself, so it is exempt).
    if case .storeChanged(let stored) = event, !before.phase.isLaunching {
      if stored.map({ $0.hasValidTimes(at: now.clamped) }) != true {
        if let s = ase {
          out.append(
            Violation(.followsSharedStore, "the store was cleared and \(s.uid) stays signed in"))
        }
      } else if let stored, bs?.uid != stored.uid, ase?.uid != stored.uid {
        out.append(
          Violation(
            .followsSharedStore,
            "another process signed in \(stored.uid); the machine has \(ase?.uid ?? "nobody")"))
      }
    }

    // Effects only use tokens the machine holds (so none after sign-out).
    for effect in effects {
      if let token = usedToken(effect), !holds(bs, token), !holds(ase, token) {
        out.append(Violation(.oldTokensUnused, "\(effect.name) uses a token of no current session"))
      }
      if case .deliverIDToken(_, .token(let t)) = effect, t != ase?.idToken {
        out.append(
          Violation(.oldTokensUnused, "deliverIDToken hands out a token that is not the session's"))
      }
    }

    // The user changes only through a migration.
    if let s = bs, let t = ase, s.uid != t.uid, !isMigrating(before), !isStoreChange(event) {
      out.append(
        Violation(
          .reauthenticationKeepsUser,
          "the user changed from \(s.uid) to \(t.uid) in \(before.stateName)"))
    }

    tokenRequests(before, event, after, effects, &out)
    Timing.check(before, event, after, effects, now, awaitedBefore, &out)
    Behaviour.check(before, event, after, effects, now, awaitedBefore, &out)
    Promises.check(before, event, after, effects, now, awaitedBefore, &out)
    return out
  }

  /// Every idTokenRequested gets exactly one deliverIDToken: the requests held after the step
  /// are those held before, plus the one sent now, minus those answered.
  static func tokenRequests(
    _ before: AuthMachine, _ event: Event, _ after: AuthMachine, _ effects: [Effect],
    _ out: inout [Violation]
  ) {
    let heldBefore = heldTokenRequests(before)
    var asked: TokenRequestID?
    if case .intent(.idTokenRequested(let id, _)) = event { asked = id }
    func inPool(_ id: TokenRequestID) -> Bool { id == asked || heldBefore.contains(id) }
    let heldAfter = heldTokenRequests(after)
    var deliveries = 0
    for case .deliverIDToken(let ids, _) in effects { deliveries += ids.count }
    if deliveries == 0, heldAfter.count == heldBefore.count + (asked == nil ? 0 : 1) {
      // Nothing answered: the same requests, in the same order, the new one last.
      var same = heldAfter.starts(with: heldBefore)
      if let asked, heldAfter.last != asked { same = false }
      if !same {
        out.append(
          Violation(
            .oneAnswerPerTokenRequest,
            "token requests lost or invented (\(describe(event)) in \(before.stateName))"))
      }
    } else {
      var delivered: [TokenRequestID] = []
      delivered.reserveCapacity(deliveries)
      for case .deliverIDToken(let ids, _) in effects { delivered += ids }
      if delivered.indices.contains(where: { i in delivered[..<i].contains(delivered[i]) }) {
        out.append(
          Violation(.oneAnswerPerTokenRequest, "a token request was answered twice in one step"))
      }
      for id in delivered where !inPool(id) {
        out.append(
          Violation(
            .oneAnswerPerTokenRequest, "deliverIDToken for #\(id), which nobody was waiting for"))
      }
      // As sets: held after = (held before + asked) − delivered.
      let kept = heldAfter.allSatisfy { inPool($0) && !delivered.contains($0) }
      let nothingLost =
        heldBefore.allSatisfy { delivered.contains($0) || heldAfter.contains($0) }
        && asked.map { delivered.contains($0) || heldAfter.contains($0) } ?? true
      if !kept || !nothingLost {
        out.append(
          Violation(
            .oneAnswerPerTokenRequest,
            "token requests lost or invented (\(describe(event)) in \(before.stateName))"))
      }
    }
  }

  /// Whether `event` reports another process's write to the shared store.
  static func isStoreChange(_ event: Event) -> Bool {
    if case .storeChanged = event { return true }
    return false
  }

  /// Whether a migration's sign-in is under way: in flight, or waiting for the owner's second
  /// factor.
  static func isMigrating(_ machine: AuthMachine) -> Bool {
    if case .migrating = machine.phase { return true }
    if case .secondFactor(let step) = machine.phase, case .migrate = step.resume { return true }
    // A guest's password sign-in to the account their upgrade met is a migration's.
    if case .emailFlow(let e) = machine.phase, e.kind == .signIn, machine.guestWaitsForAccount {
      return true
    }
    return false
  }

  static func anonymousExitAllowed(_ before: AuthMachine, _ event: Event) -> Bool {
    switch (before.phase, event) {
    case (_, .storeChanged): return true  // Another process decided.
    case (_, .intent(.signOutTapped(discardAnonymousData: true))): return true
    case (.deletingAccount, .answer(let a)) where a.isAccountDeleted: return true
    case (.migrating, .answer(let a)) where a.signedInSession != nil: return true
    // A dead session ends; but a failure answering a migration's sign-in is about the other
    // account, never the anonymous user's.
    case (.migrating(let m), .answer(let a)) where a.id == m.request: return false
    case (.secondFactor(let step), .answer(let a))
    where isMigrating(before) && a.id == step.request:
      // The owner's second factor: a session is the migration's end, a failure is about the
      // owner's account.
      return a.signedInSession != nil
    case (.emailFlow(let e), .answer(let a))
    where isMigrating(before) && a.id == e.request:
      return a.signedInSession != nil  // As a migration's sign-in: a failure is the account's.
    case (_, .answer(let a)) where a.error?.kind == .sessionDead: return true
    default: return false
    }
  }

  static func deleteOfAnonymousAllowed(_ before: AuthMachine, _ event: Event) -> Bool {
    if case .intent(.deleteAccountTapped) = event { return true }
    // A deletion under way goes on (the saga's next step, or one resumed at launch).
    if case .deletingAccount = before.phase { return true }
    if case let s?? = event.answer?.loadedSession, s.pendingDeletion != nil { return true }
    if case .providerFlow(let f) = before.phase, f.credential != nil,
      f.purpose == .reauthenticate(resume: .deleteAccount)
    {
      return true
    }
    return false
  }

  static func answers(_ event: Event, _ id: RequestID) -> Bool {
    if let r = event.answer?.id { return r == id }
    return false
  }

  static func isRestore(_ before: AuthMachine, _ event: Event) -> Bool {
    if case .restoring = before.phase, event.answer?.loadedSession != nil { return true }
    return false
  }

  static func failure(in event: Event) -> AuthError? {
    switch event {
    case .answer(let a): return a.error
    case .persistFailed(let e): return e
    case .intent, .timerFired, .storeChanged: return nil
    }
  }

  static func tokens(_ s: Session?) -> [String] {
    guard let s else { return [] }
    if let c = s.pendingCleanup {
      return [s.idToken, s.refreshToken, c.idToken] + (c.refreshToken.map { [$0] } ?? [])
    }
    return [s.idToken, s.refreshToken]
  }

  /// Whether `token` is one of the session's (its own or its pending cleanup's).
  static func holds(_ s: Session?, _ token: String) -> Bool {
    guard let s else { return false }
    if s.idToken == token || s.refreshToken == token { return true }
    guard let c = s.pendingCleanup else { return false }
    return c.idToken == token || c.refreshToken == token
  }

  /// The token an effect sends to a server, if any.
  static func usedToken(_ effect: Effect) -> String? { effect.asRequest?.sentToken }

  static func describe(_ event: Event) -> String {
    switch event {
    case .intent(let i): return "intent \(i.kind.rawValue)"
    case .answer(let a): return "answer #\(a.id) \(a.outcomeName)"
    case .timerFired(let t): return "timer \(t.rawValue)"
    case .persistFailed(let e): return "persistFailed \(e.code)"
    case .storeChanged(let s): return "storeChanged \(s?.uid ?? "cleared")"
    }
  }
}

/// The request each family awaits, if any.
public struct Awaited: Hashable, Sendable {
  /// The flow's own request.
  public var flow: RequestID?
  /// The token refresh.
  public var refresh: RequestID?
  /// The migration cleanup.
  public var cleanup: RequestID?

  /// Nothing awaited.
  public init() {}

  /// The request a family awaits.
  public subscript(family: RequestFamily) -> RequestID? {
    switch family {
    case .flow: flow
    case .refresh: refresh
    case .cleanup: cleanup
    }
  }

  /// Whether any family awaits `id`.
  public func contains(_ id: RequestID) -> Bool { flow == id || refresh == id || cleanup == id }
}

/// The kinds of request that may each have one in flight.
public enum RequestFamily: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// The request the current flow waits for (sign-in, link, delete, …).
  case flow
  /// The ID token refresh.
  case refresh
  /// The deletion of a migrated anonymous account.
  case cleanup

  public var description: String { rawValue }
}
