import AuthFlowCore
import AuthFlowRuntime

/// iOS app verification by silent push. `receipt` is what `FirebaseAPI.verifyIosClient` answered
/// for the device's APNs token; the app delegate hands every remote notification to `handle`.
@MainActor
final class PhoneVerification {
  let model: AuthModel
  var receipt: String?
  var phoneNumber = ""

  init(model: AuthModel) { self.model = model }

  /// Whether the push was Firebase's (the code is then texted with its proof); the app handles
  /// any other push itself.
  func handle(push userInfo: [AnyHashable: Any]) -> Bool {
    guard let receipt, let proof = AppVerification.iosApp(fromPush: userInfo, receipt: receipt)
    else { return false }
    model.sendPhoneCode(phoneNumber, appVerification: proof)
    return true
  }
}
