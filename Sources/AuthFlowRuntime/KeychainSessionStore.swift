#if canImport(Security)
  import AuthFlowCore
  import Foundation
  import Security

  /// The session in the Keychain, as a generic password item (Apple platforms only; it compiles
  /// there and is not exercised by the Linux test suite).
  public struct KeychainSessionStore: SessionStore {
    /// The item's service name.
    public let service: String
    /// The item's account name.
    public let account: String

    /// A store for one item; `afterFirstUnlock` lets background launches read it.
    public init(service: String, account: String = "session") {
      self.service = service
      self.account = account
    }

    private var query: [String: Any] {
      [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: service,
        kSecAttrAccount as String: account,
      ]
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
        kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
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
