import AuthFlowRuntime

/// The app's model: the address of a sign-in link outlives a relaunch.
@MainActor
func makeModel(runtime: AuthRuntime) -> AuthModel {
  let model = AuthModel(runtime: runtime, emailLinkAddresses: UserDefaultsEmailLinkAddressStore())
  model.start()
  return model
}

/// From `.onOpenURL`, with the link's `oobCode`: no address needed.
@MainActor
func openSignInLink(code: String, model: AuthModel) {
  model.signIn(emailLink: code)
}
