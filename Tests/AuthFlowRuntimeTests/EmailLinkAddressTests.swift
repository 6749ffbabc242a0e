import AuthFlowCore
import AuthFlowRuntime
import Foundation
import Testing

@Suite("AuthModel keeps a sign-in link's address across a relaunch")
struct EmailLinkAddressTests {
  static let address = "lee@example.com"

  /// A runtime with nothing stored whose link requests succeed: the link is sent, and a link
  /// sign-in signs `address` in.
  func runtime() async -> (AuthRuntime, TestInterpreter) {
    let clock = ManualClock()
    let interpreter = await heldRefreshInterpreter(clock: clock)
    await interpreter.answer(.sendSignInLink) { _ in .signInLinkSent }
    await interpreter.answer(.signInWithEmailLink) { _ in
      .signedIn(
        session: Session(
          uid: "user-lee", anonymous: false, providers: ["password"], email: Self.address,
          idToken: "id-lee", refreshToken: "rt-lee", expiresAt: clock.now() + 3600))
    }
    let runtime = AuthRuntime(
      interpreter: interpreter, store: InMemorySessionStore(), clock: clock)
    return (runtime, interpreter)
  }

  @Test("the address written when the link is sent signs in after a relaunch, then is forgotten")
  @MainActor
  func relaunch() async {
    let addresses = InMemoryEmailLinkAddressStore()
    let (first, _) = await runtime()
    let before = AuthModel(runtime: first, emailLinkAddresses: addresses)
    before.start()
    #expect(await eventually { @MainActor in before.state == .signedOut })
    before.sendSignInLink(to: Self.address)
    #expect(await eventually { await addresses.load() == Self.address })
    before.stop()

    // The process ends; a new one opens the link without knowing where it was sent.
    let (second, interpreter) = await runtime()
    let after = AuthModel(runtime: second, emailLinkAddresses: addresses)
    after.start()
    #expect(await eventually { @MainActor in after.emailLinkAddress == Self.address })
    #expect(await eventually { @MainActor in after.state == .signedOut })
    after.signIn(emailLink: "oob-1")
    #expect(await eventually { @MainActor in after.session?.uid == "user-lee" })
    #expect(!after.needsEmailForLink)
    let sent = await interpreter.requests.filter { $0.kind == .signInWithEmailLink }
    #expect(sent == [.signInWithEmailLink(email: Self.address, code: "oob-1", linkTo: nil)])
    // A permanent account needs no link's address: the model and the store forget it.
    #expect(await eventually { await addresses.load() == nil })
    #expect(after.emailLinkAddress == nil)
    after.stop()
  }

  @Test("without a store, a link opened after a relaunch asks the app for the address")
  @MainActor
  func noStore() async {
    let (runtime, interpreter) = await runtime()
    let model = AuthModel(runtime: runtime)
    model.start()
    #expect(await eventually { @MainActor in model.state == .signedOut })
    model.signIn(emailLink: "oob-1")
    #expect(await eventually { @MainActor in model.needsEmailForLink })
    #expect(await interpreter.count(.signInWithEmailLink) == 0)
    model.signIn(emailLink: "oob-1", email: Self.address)
    #expect(await eventually { @MainActor in model.session?.uid == "user-lee" })
    model.stop()
  }

  @Test("a kept address found with a permanent account signed in is dropped, not used")
  @MainActor
  func permanentAtLaunch() async {
    let addresses = InMemoryEmailLinkAddressStore(Self.address)
    let clock = ManualClock()
    let runtime = AuthRuntime(
      interpreter: await heldRefreshInterpreter(clock: clock),
      store: InMemorySessionStore(Sessions.permanent(expiresIn: 3600, at: clock.now())),
      clock: clock)
    let model = AuthModel(runtime: runtime, emailLinkAddresses: addresses)
    model.start()
    #expect(await eventually { await addresses.load() == nil })
    #expect(model.emailLinkAddress == nil)
    #expect(model.session?.uid == "user-1")
    model.stop()
  }

  @Test("UserDefaults keeps an address, forgets it, and ignores what is not one")
  func userDefaults() async {
    let suite = "authflow-tests-\(UUID().uuidString)"
    let store = UserDefaultsEmailLinkAddressStore(suiteName: suite)
    #expect(await store.load() == nil)
    await store.save(Self.address)
    #expect(await store.load() == Self.address)
    await store.save(nil)
    #expect(await store.load() == nil)
    let defaults = UserDefaults(suiteName: suite)!
    defer { defaults.removePersistentDomain(forName: suite) }
    for garbage: Any in [
      42, "", "no-at-sign", String(repeating: "a", count: 300) + "@example.com",
      "a@b.c\nsecond line", ["lee@example.com"],
    ] {
      defaults.set(garbage, forKey: store.key)
      #expect(await store.load() == nil, "\(garbage)")
    }
  }
}
