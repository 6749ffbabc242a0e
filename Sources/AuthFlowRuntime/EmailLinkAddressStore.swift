import Foundation

/// Where `AuthModel` keeps the address of the last sign-in link between launches, so a link
/// opened after the app was relaunched (iOS often ends an app while the user reads their mail)
/// signs in without asking for the address again. The machine keeps the address only in the
/// process; this store is the app's side of it, as Firebase's own guide keeps it in
/// `UserDefaults`. It holds an email address, never a token.
public protocol EmailLinkAddressStore: Sendable {
  /// The address kept, `nil` when none is (or what is stored is not one).
  func load() async -> String?
  /// Keeps `address`; `nil` forgets it.
  func save(_ address: String?) async
}

/// The longest address kept: RFC 5321 allows 254 characters; anything longer read back from
/// storage is not an address this process wrote, and is ignored.
let maximumEmailLinkAddressLength = 254

/// A stored value read back: an address if it looks like one this process could have written
/// (non-empty, at most 254 characters, one line, an `@`), else `nil`.
func keptEmailLinkAddress(_ value: Any?) -> String? {
  guard let s = value as? String, !s.isEmpty, s.count <= maximumEmailLinkAddressLength,
    s.contains("@"), !s.contains(where: \.isNewline)
  else { return nil }
  return s
}

/// Keeps the address in memory: for tests, and for apps that do not want it to outlive the
/// process (the user is then asked for it after a relaunch).
public actor InMemoryEmailLinkAddressStore: EmailLinkAddressStore {
  private var address: String?
  /// How many saves it has seen.
  public private(set) var writes = 0

  /// A store holding `address`.
  public init(_ address: String? = nil) { self.address = address }

  public func load() -> String? { address }

  public func save(_ address: String?) {
    self.address = address
    writes += 1
  }
}

/// Keeps the address in `UserDefaults` (the standard defaults, or a suite such as an app
/// group's, so an extension sees it too), under `key`.
public struct UserDefaultsEmailLinkAddressStore: EmailLinkAddressStore {
  /// The suite's name; `nil` is `UserDefaults.standard`.
  public let suiteName: String?
  /// The key the address is kept under.
  public let key: String

  public init(suiteName: String? = nil, key: String = "AuthFlow.emailLinkAddress") {
    self.suiteName = suiteName
    self.key = key
  }

  private var defaults: UserDefaults? {
    suiteName.map { UserDefaults(suiteName: $0) } ?? UserDefaults.standard
  }

  public func load() async -> String? { keptEmailLinkAddress(defaults?.object(forKey: key)) }

  public func save(_ address: String?) async {
    guard let defaults else { return }
    if let address {
      defaults.set(address, forKey: key)
    } else {
      defaults.removeObject(forKey: key)
    }
  }
}
