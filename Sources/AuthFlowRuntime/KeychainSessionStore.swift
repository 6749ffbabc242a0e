#if canImport(Security)
  import AuthFlowCore
  import Foundation
  import Security

  /// The session in the Keychain, as a generic password item (Apple platforms only; it compiles
  /// there and is not exercised by the Linux test suite).
  ///
  /// An app and its extensions share the item through a keychain access group
  /// (`accessGroup`, one of the app's Keychain Sharing groups). Each process reads it at launch;
  /// the keychain tells no one about another process's write, so for a session that several
  /// running processes refresh and sign out together, use a `FileSessionStore` in the app
  /// group's container (Docs/Embedding.md, "App extensions and several processes").
  public struct KeychainSessionStore: SessionStore {
    /// When the item can be read.
    public enum Accessibility: Sendable {
      /// After the first unlock since boot (background launches and extensions can read it).
      case afterFirstUnlock
      /// The same, never restored to another device.
      case afterFirstUnlockThisDeviceOnly
      /// Only while the device is unlocked.
      case whenUnlocked
      /// The same, never restored to another device.
      case whenUnlockedThisDeviceOnly

      var value: CFString {
        switch self {
        case .afterFirstUnlock: kSecAttrAccessibleAfterFirstUnlock
        case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        case .whenUnlocked: kSecAttrAccessibleWhenUnlocked
        case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        }
      }
    }

    /// The item's service name.
    public let service: String
    /// The item's account name.
    public let account: String
    /// The keychain access group shared with the app's extensions (`nil`: the app's own).
    public let accessGroup: String?
    /// When the item can be read.
    public let accessibility: Accessibility
    /// Whether protected data can be read now (the app passes
    /// `{ UIApplication.shared.isProtectedDataAvailable }`, or its own answer in an extension).
    let protectedDataAvailable: @Sendable () -> Bool

    /// A store for one item; `afterFirstUnlockThisDeviceOnly` lets background launches and
    /// extensions read it. A missing item while protected data is not available (a prewarmed
    /// launch, a device locked since boot) is "unavailable, read again", never "signed out".
    public init(
      service: String, account: String = "session", accessGroup: String? = nil,
      accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly,
      protectedDataAvailable: @escaping @Sendable () -> Bool = { true }
    ) {
      self.service = service
      self.account = account
      self.accessGroup = accessGroup
      self.accessibility = accessibility
      self.protectedDataAvailable = protectedDataAvailable
    }

    private var query: [String: Any] {
      var q: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: service,
        kSecAttrAccount as String: account,
      ]
      if let accessGroup { q[kSecAttrAccessGroup as String] = accessGroup }
      #if os(macOS)
        // Access groups work in the data-protection keychain only.
        q[kSecUseDataProtectionKeychain as String] = true
      #endif
      return q
    }

    public func load() async throws -> Session? {
      var q = query
      q[kSecReturnData as String] = true
      q[kSecMatchLimit as String] = kSecMatchLimitOne
      var item: CFTypeRef?
      let status = SecItemCopyMatching(q as CFDictionary, &item)
      switch status {
      case errSecSuccess:
        guard let data = item as? Data else {
          throw SessionStoreError.corrupt("the keychain item is not data")
        }
        return try StoredSession.decode(data, source: "the keychain item")
      case errSecItemNotFound:
        // Before first unlock, or while the app is prewarmed, the item may look missing.
        guard protectedDataAvailable() else {
          throw SessionStoreError.unavailable("protected data is not available yet")
        }
        return nil
      case errSecInteractionNotAllowed:
        throw SessionStoreError.unavailable("the keychain is locked")
      default:
        throw SessionStoreError.unavailable("keychain status \(status)")
      }
    }

    public func save(_ session: Session) async throws {
      let data = try StoredSession.encode(session)
      let attributes: [String: Any] = [
        kSecValueData as String: data,
        kSecAttrAccessible as String: accessibility.value,
      ]
      var status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
      if status == errSecItemNotFound {
        var add = query
        add.merge(attributes) { $1 }
        status = SecItemAdd(add as CFDictionary, nil)
      }
      guard status == errSecSuccess else {
        throw SessionStoreError.writeFailed("keychain status \(status)")
      }
    }

    public func clear() async throws {
      let status = SecItemDelete(query as CFDictionary)
      guard status == errSecSuccess || status == errSecItemNotFound else {
        throw SessionStoreError.writeFailed("keychain status \(status)")
      }
    }
  }
#endif
