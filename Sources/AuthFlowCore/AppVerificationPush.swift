import Foundation

extension AppVerification {
  /// The iOS proof from a silent push's payload (`application(_:didReceiveRemoteNotification:…)`'s
  /// `userInfo`), when it is Firebase's push for `receipt`: its `com.google.firebase.auth` entry
  /// (an object, or a JSON string of one) with that `receipt` and a `secret`. Nil for any other
  /// push, which the app handles as its own.
  public static func iosApp(fromPush payload: [AnyHashable: Any], receipt: String)
    -> AppVerification?
  {
    var entry = payload["com.google.firebase.auth"] as? [String: Any]
    if entry == nil, let text = payload["com.google.firebase.auth"] as? String,
      text.utf8.count <= 4096,
      let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    {
      entry = object
    }
    guard let entry, !receipt.isEmpty, entry["receipt"] as? String == receipt,
      let secret = entry["secret"] as? String, !secret.isEmpty
    else { return nil }
    return .iosApp(receipt: receipt, secret: secret)
  }
}
