import AuthFlowCore
import Foundation

/// Where Firebase's REST APIs live.
public struct FirebaseEndpoints: Sendable, Equatable {
  /// Identity Toolkit v1 base, ending in `/v1` (operations are `accounts:<op>`).
  public var identityToolkit: URL
  /// Secure Token base, ending in `/v1` (`/token` is appended).
  public var secureToken: URL
  /// Why these endpoints cannot be used (a malformed emulator host); every call then fails with
  /// `INVALID_CONFIGURATION` and this text, instead of going anywhere unexpected.
  public var problem: String?

  /// Endpoints at these bases.
  public init(identityToolkit: URL, secureToken: URL, problem: String? = nil) {
    self.identityToolkit = identityToolkit
    self.secureToken = secureToken
    self.problem = problem
  }

  /// Google's production endpoints.
  public static let production = FirebaseEndpoints(
    identityToolkit: URL(string: "https://identitytoolkit.googleapis.com/v1")!,
    secureToken: URL(string: "https://securetoken.googleapis.com/v1")!)

  /// The Auth emulator's layout at `host:port` (the production host becomes the first path
  /// segment), as `FIREBASE_AUTH_EMULATOR_HOST` selects it. A value that is not `host:port`
  /// gives endpoints that refuse every call and say why.
  public static func emulator(_ hostPort: String) -> FirebaseEndpoints {
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")
    guard !hostPort.isEmpty, hostPort.count <= 255, hostPort.allSatisfy(allowed.contains),
      let it = URL(string: "http://\(hostPort)/identitytoolkit.googleapis.com/v1"),
      let st = URL(string: "http://\(hostPort)/securetoken.googleapis.com/v1"), it.host != nil
    else {
      return FirebaseEndpoints(
        identityToolkit: URL(string: "http://invalid.invalid/v1")!,
        secureToken: URL(string: "http://invalid.invalid/v1")!,
        problem: "FIREBASE_AUTH_EMULATOR_HOST is not host:port: \"\(hostPort.prefix(80))\"")
    }
    return FirebaseEndpoints(identityToolkit: it, secureToken: st)
  }

  /// The emulator when `FIREBASE_AUTH_EMULATOR_HOST` is set, else production.
  public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment)
    -> FirebaseEndpoints
  {
    if let host = env["FIREBASE_AUTH_EMULATOR_HOST"], !host.isEmpty { return emulator(host) }
    return production
  }
}

/// Firebase Auth over its REST APIs: Identity Toolkit v1 and Secure Token.
///
/// It answers every request but a provider's consent step, each with the method
/// `AuthInterpreter` names, so a new request kind is a compile error here, beside its call.
/// `HTTPInterpreter` adds the consent steps and hands every other request to it.
public struct FirebaseAPI: AuthInterpreter {
  /// The Web API key (`?key=`).
  public var apiKey: String
  /// The endpoints.
  public var endpoints: FirebaseEndpoints
  /// Seconds before a request fails with TIMEOUT.
  public var timeout: Double
  /// Where a sign-in link leads (`continueUrl`): an absolute URL of a domain allow-listed in
  /// the Firebase console, which the app opens as a universal link. Without one,
  /// `sendSignInLink` fails with `MISSING_CONTINUE_URI` and sends nothing.
  public var emailLinkContinueURL: URL?
  let transport: any HTTPTransport
  let clock: @Sendable () -> Instant

  /// A client; `clock` stamps `expiresIn` into an absolute expiry at receipt.
  public init(
    apiKey: String, endpoints: FirebaseEndpoints = .fromEnvironment(), timeout: Double = 15,
    transport: any HTTPTransport = URLSessionTransport(),
    clock: @escaping @Sendable () -> Instant = { Instant(Date().timeIntervalSince1970) }
  ) {
    self.apiKey = apiKey
    self.endpoints = endpoints
    self.timeout = timeout
    self.transport = transport
    self.clock = clock
  }

  // MARK: Operations

  /// `accounts:signUp` with no email: a new anonymous user.
  public func signUpAnonymously() async -> SessionAnswer {
    SessionAnswer(await session(from: call("signUp", ["returnSecureToken": true]), anonymous: true))
  }

  /// `accounts:signUp` with email and password; `linkTo` links the current (anonymous) user.
  public func signUpWithPassword(email: String, password: String, linkTo: String?) async
    -> SessionAnswer
  {
    var body: [String: Any] = ["email": email, "password": password, "returnSecureToken": true]
    if let linkTo { body["idToken"] = linkTo }
    return SessionAnswer(await session(from: call("signUp", body), anonymous: false))
  }

  /// `accounts:signInWithPassword`. An answer with the key `mfaPendingCredential` (and no
  /// tokens) is a first factor that is not enough: the challenge, never a session.
  public func signInWithPassword(email: String, password: String) async -> FirstFactorAnswer {
    await firstFactor(
      call("signInWithPassword", ["email": email, "password": password, "returnSecureToken": true])
    )
  }

  /// A first factor's answer: a challenge when it carries `mfaPendingCredential`, else a session.
  func firstFactor(_ result: Result<[String: Any], AuthError>) async -> FirstFactorAnswer {
    if case .success(let json) = result, json["mfaPendingCredential"] != nil {
      switch Self.challenge(json) {
      case .success(let c): return .secondFactorRequired(challenge: c)
      case .failure(let e): return .requestFailed(error: e)
      }
    }
    switch await session(from: result, anonymous: false) {
    case .success(let s): return .signedIn(session: s)
    case .failure(let e): return .requestFailed(error: e)
    }
  }

  /// The challenge of a first factor's answer: the pending credential and `mfaInfo[]`, each
  /// entry a TOTP factor (`totpInfo`, an empty object whose presence is the mark) or a phone
  /// one (`phoneInfo`, the number with all but its last digits hidden). An entry of another
  /// kind is left out (AuthFlow cannot finish with it); a challenge with no usable entry is
  /// `UNEXPECTED_RESPONSE`.
  /// The TOTP and phone factors of an `mfaInfo` list (at most 64; entries of another kind, or
  /// without an enrolment id, are left out).
  static func secondFactors(_ mfaInfo: Any?) -> [SecondFactor] {
    var factors: [SecondFactor] = []
    for entry in (mfaInfo as? [Any] ?? []).prefix(64) {
      guard let e = entry as? [String: Any], let id = nonEmpty(e["mfaEnrollmentId"]) else {
        continue
      }
      let name = nonEmpty(e["displayName"])
      if e["totpInfo"] != nil {
        factors.append(SecondFactor(id: id, kind: .totp, displayName: name))
      } else if e["phoneInfo"] != nil {
        factors.append(
          SecondFactor(id: id, kind: .phone, displayName: name, phoneHint: nonEmpty(e["phoneInfo"]))
        )
      }
    }
    return factors
  }

  static func challenge(_ json: [String: Any]) -> Result<SecondFactorChallenge, AuthError> {
    guard let pending = nonEmpty(json["mfaPendingCredential"]) else {
      return .failure(
        AuthError(code: "UNEXPECTED_RESPONSE", message: "mfaPendingCredential is not a string"))
    }
    let factors = secondFactors(json["mfaInfo"])
    guard !factors.isEmpty else {
      return .failure(
        AuthError(
          code: "UNEXPECTED_RESPONSE",
          message: "a second factor is required, but mfaInfo names none AuthFlow can use"))
    }
    return .success(
      SecondFactorChallenge(
        pendingCredential: pending, factors: factors, email: nonEmpty(json["email"])))
  }

  /// `v2/accounts/mfaSignIn:start` for a phone factor: Firebase texts a code and answers with
  /// the `sessionInfo` that finishes with it. The app's proof goes in `phoneSignInInfo`.
  public func startSecondFactorSignIn(
    pendingCredential: String, factor: String, appVerification: AppVerification?
  ) async -> SecondFactorCodeAnswer {
    let result = await callV2(
      "mfaSignIn:start",
      [
        "mfaPendingCredential": pendingCredential, "mfaEnrollmentId": factor,
        "phoneSignInInfo": Self.withProof([:], appVerification),
      ])
    switch Self.textedSession(result, in: "phoneResponseInfo", from: "mfaSignIn:start") {
    case .success(let info): return .secondFactorCodeSent(sessionInfo: info)
    case .failure(let e): return .requestFailed(error: e)
    }
  }

  /// `accounts:verifyIosClient`, the first half of iOS app verification by silent push: the
  /// app's APNs device token (hex) goes in; a `receipt` comes back, and Firebase sends a silent
  /// push carrying the receipt and its secret (`AppVerification.iosApp(fromPush:receipt:)` reads
  /// it) within `suggestedTimeout`. If no push arrives in time, use a reCAPTCHA token instead.
  public func verifyIosClient(appToken: String, isSandbox: Bool) async
    -> Result<(receipt: String, suggestedTimeout: Duration), AuthError>
  {
    var body: [String: Any] = ["appToken": appToken]
    if isSandbox { body["isSandbox"] = true }
    switch await call("verifyIosClient", body) {
    case .failure(let e): return .failure(e)
    case .success(let json):
      guard let receipt = Self.nonEmpty(json["receipt"]) else {
        return .failure(
          AuthError(code: "UNEXPECTED_RESPONSE", message: "verifyIosClient answered no receipt"))
      }
      // A string of seconds on the wire; a missing or odd one is the SDKs' default, bounded.
      let seconds = (json["suggestedTimeout"] as? String).flatMap(Int.init) ?? 5
      return .success((receipt, .seconds(min(max(seconds, 1), 60))))
    }
  }

  /// `fields` with the app's proof, when it gave one, in the fields Firebase names for its kind:
  /// how every request that texts a code carries it.
  static func withProof(_ fields: [String: Any], _ appVerification: AppVerification?)
    -> [String: Any]
  {
    var out = fields
    switch appVerification {
    case nil: break
    case .recaptcha(let token): out["recaptchaToken"] = token
    case .iosApp(let receipt, let secret):
      out["iosReceipt"] = receipt
      out["iosSecret"] = secret
    case .recaptchaEnterprise(let token):
      out["captchaResponse"] = token
      out["clientType"] = "CLIENT_TYPE_IOS"
      out["recaptchaVersion"] = "RECAPTCHA_ENTERPRISE"
    }
    return out
  }

  /// The `sessionInfo` of an answer to a request that texted a code: at the top level, or in
  /// the object `key` names; a missing or empty one is `UNEXPECTED_RESPONSE`.
  static func textedSession(
    _ result: Result<[String: Any], AuthError>, in key: String?, from endpoint: String
  ) -> Result<String, AuthError> {
    switch result {
    case .failure(let e): return .failure(e)
    case .success(let json):
      let holder = key.map { json[$0] as? [String: Any] } ?? json
      guard let info = Self.nonEmpty(holder?["sessionInfo"]) else {
        return .failure(
          AuthError(
            code: "UNEXPECTED_RESPONSE",
            message: "\(endpoint) answered without \(key.map { $0 + "." } ?? "")sessionInfo"))
      }
      return .success(info)
    }
  }

  /// `v2/accounts/mfaEnrollment:start` with an empty `totpEnrollmentInfo`: a TOTP secret for
  /// the account of `idToken`. The answer's `totpSessionInfo` carries the base32 secret, the
  /// code's length and period, the hash, and the `sessionInfo` that finishes the enrolment (its
  /// `finalizeEnrollmentTime` is not kept: a late code is answered `SESSION_EXPIRED`).
  public func startTotpEnrollment(idToken: String) async -> TotpSecretAnswer {
    let result = await callV2(
      "mfaEnrollment:start", ["idToken": idToken, "totpEnrollmentInfo": [String: Any]()])
    switch result {
    case .failure(let e): return .requestFailed(error: e)
    case .success(let json):
      func number(_ key: String, _ info: [String: Any], _ fallback: Int, _ range: ClosedRange<Int>)
        -> Int?
      {
        guard let value = info[key] else { return fallback }
        guard let n = Self.seconds(value), n == n.rounded(), n >= Double(range.lowerBound),
          n <= Double(range.upperBound)
        else { return nil }
        return Int(n)
      }
      let base32 = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567=abcdefghijklmnopqrstuvwxyz")
      guard let info = json["totpSessionInfo"] as? [String: Any],
        let key = Self.nonEmpty(info["sharedSecretKey"]), key.allSatisfy(base32.contains),
        let sessionInfo = Self.nonEmpty(info["sessionInfo"]),
        let length = number("verificationCodeLength", info, 6, 1...10),
        let period = number("periodSec", info, 30, 1...3600)
      else {
        return .requestFailed(
          error: AuthError(
            code: "UNEXPECTED_RESPONSE",
            message: "mfaEnrollment:start answered without a usable totpSessionInfo"))
      }
      return .totpSecretIssued(
        secret: TotpSecret(
          sharedSecretKey: key, sessionInfo: sessionInfo, codeLength: length,
          periodSeconds: period,
          hashingAlgorithm: Self.nonEmpty(info["hashingAlgorithm"]) ?? "SHA1"))
    }
  }

  /// `v2/accounts/mfaEnrollment:finalize` with `totpVerificationInfo`: the answer carries new
  /// tokens for the session and no `expiresIn`: the ID token's `exp` stands in.
  public func finalizeTotpEnrollment(
    idToken: String, sessionInfo: String, verificationCode: String, displayName: String
  ) async -> TotpEnrollmentAnswer {
    let result = await finalizeEnrollment(
      idToken: idToken, displayName: displayName,
      "totpVerificationInfo", ["sessionInfo": sessionInfo, "verificationCode": verificationCode])
    switch result {
    case .success(let tokens): return .totpEnrolled(tokens)
    case .failure(let e): return .requestFailed(error: e)
    }
  }

  /// `v2/accounts/mfaEnrollment:finalize` with the factor's verification info under `key`: the
  /// new tokens it answers with (no `expiresIn`: the ID token's `exp` stands in), or why not.
  func finalizeEnrollment(
    idToken: String, displayName: String, _ key: String, _ info: [String: Any]
  ) async -> Result<Tokens, AuthError> {
    let result = await callV2(
      "mfaEnrollment:finalize", ["idToken": idToken, "displayName": displayName, key: info])
    switch result {
    case .failure(let e): return .failure(e)
    case .success(let json):
      guard let tokens = newTokens(json) else {
        return .failure(
          AuthError(
            code: "UNEXPECTED_RESPONSE",
            message: "mfaEnrollment:finalize answered without tokens (or an ID token with exp)"))
      }
      return .success(tokens)
    }
  }

  /// `v2/accounts/mfaEnrollment:start` with `phoneEnrollmentInfo`: Firebase texts a code to
  /// `phoneNumber` and answers with the `phoneSessionInfo.sessionInfo` that finishes with it.
  /// The app's proof goes in as a reCAPTCHA token, as at a second factor's sign-in.
  public func startPhoneEnrollment(
    idToken: String, phoneNumber: String, appVerification: AppVerification?
  ) async -> SecondFactorCodeAnswer {
    let result = await callV2(
      "mfaEnrollment:start",
      [
        "idToken": idToken,
        "phoneEnrollmentInfo": Self.withProof(["phoneNumber": phoneNumber], appVerification),
      ])
    switch Self.textedSession(result, in: "phoneSessionInfo", from: "mfaEnrollment:start") {
    case .success(let info): return .secondFactorCodeSent(sessionInfo: info)
    case .failure(let e): return .requestFailed(error: e)
    }
  }

  /// `v2/accounts/mfaEnrollment:finalize` with `phoneVerificationInfo`: as for a TOTP factor,
  /// the answer carries new tokens and no `expiresIn`.
  public func finalizePhoneEnrollment(
    idToken: String, sessionInfo: String, verificationCode: String, displayName: String
  ) async -> PhoneEnrollmentAnswer {
    let result = await finalizeEnrollment(
      idToken: idToken, displayName: displayName,
      "phoneVerificationInfo", ["sessionInfo": sessionInfo, "code": verificationCode])
    switch result {
    case .success(let tokens): return .phoneEnrolled(tokens)
    case .failure(let e): return .requestFailed(error: e)
    }
  }

  /// `accounts:sendVerificationCode`: Firebase texts a code to `phoneNumber` and answers with
  /// the `sessionInfo` that signs in with it, with the app's proof in the fields of its kind.
  public func sendVerificationCode(phoneNumber: String, appVerification: AppVerification?) async
    -> PhoneCodeAnswer
  {
    let result = await call(
      "sendVerificationCode", Self.withProof(["phoneNumber": phoneNumber], appVerification))
    switch Self.textedSession(result, in: nil, from: "sendVerificationCode") {
    case .success(let info): return .verificationCodeSent(sessionInfo: info)
    case .failure(let e): return .requestFailed(error: e)
    }
  }

  /// `accounts:signInWithPhoneNumber` with the texted code; `linkTo` adds the number to that
  /// user's account. A number that belongs to another account is answered HTTP 200 with a
  /// `temporaryProof` and no tokens (the code is spent): `phoneNumberInUse` with the proof,
  /// which signs in to that account once (`signInWithTemporaryProof`).
  public func signInWithPhoneNumber(sessionInfo: String, verificationCode: String, linkTo: String?)
    async -> PhoneSignInAnswer
  {
    var body: [String: Any] = ["sessionInfo": sessionInfo, "code": verificationCode]
    if let linkTo { body["idToken"] = linkTo }
    let result = await call("signInWithPhoneNumber", body)
    if case .success(let json) = result, json["temporaryProof"] != nil, json["idToken"] == nil {
      guard let proof = Self.nonEmpty(json["temporaryProof"]),
        let number = Self.nonEmpty(json["phoneNumber"])
      else {
        return .requestFailed(
          error: AuthError(
            code: "UNEXPECTED_RESPONSE",
            message: "signInWithPhoneNumber: a temporary proof without its phone number"))
      }
      return .phoneNumberInUse(phoneNumber: number, temporaryProof: proof)
    }
    return PhoneSignInAnswer(await session(from: result, anonymous: false))
  }

  /// `accounts:signInWithPhoneNumber` with the temporary proof of a number that is another
  /// account's, and no ID token: signs in to that account.
  public func signInWithTemporaryProof(_ proof: PhoneProof) async -> SessionAnswer {
    let body: [String: Any] = [
      "temporaryProof": proof.temporaryProof, "phoneNumber": proof.phoneNumber,
    ]
    return SessionAnswer(
      await session(from: await call("signInWithPhoneNumber", body), anonymous: false))
  }

  /// The tokens of an answer that has no `localId` and may have no `expiresIn` (the v2
  /// enrolment endpoints): the expiry is `expiresIn` stamped now, else the ID token's `exp`;
  /// `nil` without both tokens or a usable expiry.
  func newTokens(_ json: [String: Any]) -> Tokens? {
    guard let id = Self.nonEmpty(json["idToken"]),
      let refresh = Self.nonEmpty(json["refreshToken"]),
      let expiresAt = Self.seconds(json["expiresIn"]).map({ clock() + $0 })
        ?? JWTClaims(id)?.number("exp").flatMap({
          Instant.isValidDuration($0) ? Instant($0) : nil
        })
    else { return nil }
    return Tokens(idToken: id, refreshToken: refresh, expiresAt: expiresAt)
  }

  /// `v2/accounts/mfaEnrollment:withdraw`: the answer may carry new tokens (both or none; no
  /// `expiresIn`: the ID token's `exp` stands in), or nothing when the server keeps the
  /// session's.
  public func withdrawSecondFactor(idToken: String, factor: String) async
    -> SecondFactorWithdrawnAnswer
  {
    let result = await callV2(
      "mfaEnrollment:withdraw", ["idToken": idToken, "mfaEnrollmentId": factor])
    switch result {
    case .failure(let e): return .requestFailed(error: e)
    case .success(let json):
      if Self.nonEmpty(json["idToken"]) == nil, Self.nonEmpty(json["refreshToken"]) == nil {
        return .secondFactorWithdrawn(nil)
      }
      guard let tokens = newTokens(json) else {
        return .requestFailed(
          error: AuthError(
            code: "UNEXPECTED_RESPONSE",
            message: "mfaEnrollment:withdraw answered with half a pair of tokens (or no exp)"))
      }
      return .secondFactorWithdrawn(tokens)
    }
  }

  /// `v2/accounts/mfaSignIn:finalize`: a TOTP factor sends its enrolment id and the code, a
  /// phone factor the texted code with its `sessionInfo`. The answer carries the tokens and no
  /// `expiresIn` (nor `localId`): the ID token's `exp` and `user_id` stand in. A `displayName`
  /// (the name a provider that gives it once gave with the first factor) is then the account's,
  /// as after a sign-in without a second factor.
  public func finalizeSecondFactorSignIn(
    pendingCredential: String, factor: String, sessionInfo: String?, verificationCode: String,
    displayName: String? = nil
  ) async -> SessionAnswer {
    var body: [String: Any] = ["mfaPendingCredential": pendingCredential]
    if let sessionInfo {
      body["phoneVerificationInfo"] = ["sessionInfo": sessionInfo, "code": verificationCode]
    } else {
      body["mfaEnrollmentId"] = factor
      body["totpVerificationInfo"] = ["verificationCode": verificationCode]
    }
    switch await session(from: callV2("mfaSignIn:finalize", body), anonymous: false) {
    case .failure(let e): return .requestFailed(error: e)
    case .success(var s):
      await keepName(displayName, in: &s)
      return .signedIn(session: s)
    }
  }

  /// A name a provider gave once, for an account that has none: set on the account (best
  /// effort: Firebase may not have kept it) and kept in the session either way.
  func keepName(_ name: String?, in s: inout Session) async {
    guard let name, !name.isEmpty, s.displayName == nil else { return }
    _ = await call(
      "update", ["idToken": s.idToken, "displayName": name, "returnSecureToken": false])
    s.displayName = name
  }

  /// `accounts:signInWithCustomToken` with a token the app's backend minted. The answer has no
  /// `localId`: the uid is the new ID token's `user_id` (its `sub`).
  public func signInWithCustomToken(token customToken: String) async -> SignInAnswer {
    SignInAnswer(
      await session(
        from: call("signInWithCustomToken", ["token": customToken, "returnSecureToken": true]),
        anonymous: false))
  }

  /// `accounts:update` with `password`: Firebase ends the account's other sessions and answers
  /// with new tokens for this one.
  public func updatePassword(idToken: String, newPassword: String) async -> PasswordChangeAnswer {
    let result = await session(
      from: call(
        "update", ["idToken": idToken, "password": newPassword, "returnSecureToken": true]),
      anonymous: false)
    switch result {
    case .success(let s): return .passwordChanged(session: s)
    case .failure(let e): return .requestFailed(error: e)
    }
  }

  /// `accounts:signInWithIdp` with a provider credential; `linkTo` links the current user.
  ///
  /// The credential's raw nonce goes with its ID token (Apple checks its SHA-256 against the
  /// token's `nonce` claim), and the user's name, which Apple gives only on the first
  /// authorization, goes as `user={"name":{…}}`; when the answer has no `displayName` the name
  /// is set with `accounts:update` (best effort) and kept in the session either way. A link
  /// conflict (HTTP 200 with `errorMessage`) becomes `credentialAlreadyInUse` with the updated
  /// credential Firebase echoes (`oauthIdToken`, `pendingToken`): never with the nonce, whose pair
  /// with the ID token was spent, and never with an ID token that was sent with a nonce.
  public func signInWithIdp(credential: IdPCredential, linkTo: String?) async -> IdPAnswer {
    var body: [String: Any] = ["returnSecureToken": true, "returnIdpCredential": true]
    if let redirect = credential.requestUri {
      // Firebase's own code flow: it exchanges the code in the redirect with the client secret
      // kept in the console (microsoft.com); no postBody.
      body["requestUri"] = redirect
      if let session = credential.sessionId { body["sessionId"] = session }
    } else {
      // Each field the credential's shape has: an ID token (with its raw nonce), an access
      // token (with an OAuth 1 secret), the name Apple gives once.
      var post = [("providerId", credential.provider.rawValue)]
      if let t = credential.idToken { post.append(("id_token", t)) }
      if let n = credential.rawNonce { post.append(("nonce", n)) }
      if let t = credential.accessToken { post.append(("access_token", t)) }
      if let t = credential.tokenSecret { post.append(("oauth_token_secret", t)) }
      if let user = Self.userJSON(credential) { post.append(("user", user)) }
      body["requestUri"] = "http://localhost"
      body["postBody"] = FormEncoding.encode(post)
    }
    if let p = credential.pendingToken { body["pendingToken"] = p }
    if let linkTo { body["idToken"] = linkTo }
    let result = await call("signInWithIdp", body)
    if case .success(let json) = result, let message = json["errorMessage"] as? String {
      let code = FirebaseError.code(in: message)
      if code == "EMAIL_EXISTS", linkTo != nil {
        // A link (a guest's upgrade) whose provider email is another account's: that account
        // signs in another way (its ways in are not given). The answer's email is the detail.
        let email = Self.nonEmpty(json["email"]) ?? credential.email
        return .requestFailed(error: AuthError(code: "EMAIL_EXISTS", message: email))
      }
      if code == "FEDERATED_USER_ID_ALREADY_LINKED" {
        let reusable = credential.rawNonce == nil ? credential.idToken : nil
        let updated = IdPCredential(
          provider: credential.provider,
          idToken: json["oauthIdToken"] as? String ?? reusable,
          accessToken: json["oauthAccessToken"] as? String ?? credential.accessToken,
          tokenSecret: json["oauthTokenSecret"] as? String ?? credential.tokenSecret,
          pendingToken: json["pendingToken"] as? String,
          email: json["email"] as? String ?? credential.email,
          givenName: credential.givenName, familyName: credential.familyName)
        return .credentialAlreadyInUse(credential: updated, email: json["email"] as? String)
      }
      return .requestFailed(error: FirebaseError.parse(message))
    }
    if case .success(let json) = result, json["mfaPendingCredential"] != nil {
      // The provider's credential passed; the account has second factors.
      switch Self.challenge(json) {
      case .success(let c): return .secondFactorRequired(challenge: c)
      case .failure(let e): return .requestFailed(error: e)
      }
    }
    if case .success(let json) = result, json["needConfirmation"] != nil {
      // Another account has the email and signs in another way: no session. The credential
      // the machine sent is the one it will link once the user signed in that way.
      let listed: [Any] = json["verifiedProvider"] as? [Any] ?? []
      let providers: [ProviderID] = listed.prefix(32).compactMap { (value: Any) -> ProviderID? in
        Self.nonEmpty(value).map { ProviderID($0) }
      }
      return .accountExistsWithDifferentCredential(
        email: Self.nonEmpty(json["email"]), providers: providers)
    }
    switch await session(from: result, anonymous: false) {
    case .failure(let e): return .requestFailed(error: e)
    case .success(var s):
      await keepName(credential.fullName, in: &s)  // Apple's name arrives once.
      return .signedIn(session: s)
    }
  }

  /// `accounts:createAuthUri` for a provider whose authorization code Firebase exchanges itself
  /// (credential shape `authorizationCode`: microsoft.com): where to send the user, and the
  /// session id the credential carries back with the provider's redirect to `continueUri`.
  public func startHostedSignIn(provider: ProviderID, continueUri: String) async
    -> Result<(authUri: URL, sessionId: String), AuthError>
  {
    let body: [String: Any] = ["providerId": provider.rawValue, "continueUri": continueUri]
    switch await call("createAuthUri", body) {
    case .failure(let e): return .failure(e)
    case .success(let json):
      guard let uri = (json["authUri"] as? String).flatMap(URL.init(string:)),
        let session = json["sessionId"] as? String, !session.isEmpty
      else {
        return .failure(
          AuthError(
            code: "UNEXPECTED_RESPONSE", message: "createAuthUri lacks authUri or sessionId"))
      }
      return .success((uri, session))
    }
  }

  /// `{"name":{"firstName":…,"lastName":…}}` (keys sorted, missing parts left out), or nil.
  static func userJSON(_ c: IdPCredential) -> String? {
    var name: [String] = []
    if let g = c.givenName, !g.isEmpty { name.append("\"firstName\":" + jsonString(g)) }
    if let f = c.familyName, !f.isEmpty { name.append("\"lastName\":" + jsonString(f)) }
    return name.isEmpty ? nil : "{\"name\":{" + name.joined(separator: ",") + "}}"
  }

  static func jsonString(_ s: String) -> String {
    let data = (try? JSONSerialization.data(withJSONObject: [s])) ?? Data("[\"\"]".utf8)
    return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
  }

  /// `accounts:revokeToken` (v2): revokes the provider's grant with an authorization code
  /// (`tokenType: CODE`), for an account about to be deleted. The Auth emulator does not
  /// implement it (HTTP 501): that comes back as `REVOCATION_UNSUPPORTED`.
  public func revokeToken(provider: ProviderID, authorizationCode: String, idToken: String) async
    -> RevokeAnswer
  {
    let base = endpoints.identityToolkit.deletingLastPathComponent().appendingPathComponent("v2")
    let url = base.appendingPathComponent("accounts:revokeToken")
    let body: [String: Any] = [
      "providerId": provider.rawValue, "tokenType": "CODE", "token": authorizationCode,
      "idToken": idToken,
    ]
    guard let data = try? JSONSerialization.data(withJSONObject: body) else {
      return .requestFailed(
        error: AuthError(code: "INTERNAL_ERROR", message: "cannot encode revokeToken"))
    }
    switch await send(url: url, body: data, contentType: "application/json") {
    case .success: return .tokenRevoked
    case .failure(let e) where e.code == "HTTP_501" || e.code == "NOT_IMPLEMENTED":
      return .requestFailed(
        error: AuthError(
          code: "REVOCATION_UNSUPPORTED", message: "this backend does not revoke tokens"))
    case .failure(let e): return .requestFailed(error: e)
    }
  }

  /// `accounts:update` with `deleteProvider`: what is linked afterwards comes back.
  public func unlinkProvider(provider: ProviderID, idToken: String) async -> UnlinkAnswer {
    switch await call("update", ["idToken": idToken, "deleteProvider": [provider.rawValue]]) {
    case .failure(let e): return .requestFailed(error: e)
    case .success(let json):
      guard let infos = json["providerUserInfo"] as? [[String: Any]] else {
        return .requestFailed(
          error: AuthError(
            code: "UNEXPECTED_RESPONSE", message: "update response lacks providerUserInfo"))
      }
      let providers: [ProviderID] = infos.compactMap { info in
        guard let id = info["providerId"] as? String, id != provider.rawValue else { return nil }
        return ProviderID(id)
      }
      return .providerUnlinked(providers: providers)
    }
  }

  /// `accounts:sendOobCode` with `VERIFY_EMAIL`: Firebase takes the address from the account of
  /// `idToken`.
  public func sendVerificationEmail(idToken: String) async -> VerificationEmailAnswer {
    mailSent(await call("sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": idToken]))
  }

  /// `accounts:sendOobCode` with `VERIFY_AND_CHANGE_EMAIL`: Firebase mails `newEmail` a link;
  /// applied, it changes the account's email (and verifies it).
  public func sendEmailChangeVerification(idToken: String, newEmail: String) async
    -> VerificationEmailAnswer
  {
    mailSent(
      await call(
        "sendOobCode",
        ["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": idToken, "newEmail": newEmail]))
  }

  /// A `sendOobCode` answer: the mail is on its way, or why not.
  private func mailSent(_ result: Result<[String: Any], AuthError>) -> VerificationEmailAnswer {
    switch result {
    case .success: .verificationEmailSent
    case .failure(let e): .requestFailed(error: e)
    }
  }

  /// `accounts:update` with `oobCode` and no ID token (Firebase would take the token's account
  /// instead of applying the code): the code is spent, the account's email verified.
  public func applyActionCode(code: String) async -> ActionCodeAnswer {
    switch await call("update", ["oobCode": code]) {
    case .failure(let e): return .requestFailed(error: e)
    case .success(let json):
      guard let verified = json["emailVerified"] as? Bool else {
        return .requestFailed(
          error: AuthError(
            code: "UNEXPECTED_RESPONSE", message: "the applied code's answer lacks emailVerified"))
      }
      return .actionCodeApplied(email: json["email"] as? String, emailVerified: verified)
    }
  }

  /// `accounts:resetPassword` with `oobCode` alone: what the code is for; it stays usable.
  public func checkActionCode(code: String) async -> CheckCodeAnswer {
    switch await call("resetPassword", ["oobCode": code]) {
    case .failure(let e): return .requestFailed(error: e)
    case .success(let json):
      guard let operation = json["requestType"] as? String, !operation.isEmpty else {
        return .requestFailed(
          error: AuthError(
            code: "UNEXPECTED_RESPONSE", message: "the checked code's answer lacks requestType"))
      }
      return .actionCodeChecked(operation: operation, email: json["email"] as? String)
    }
  }

  /// `accounts:resetPassword` with `oobCode` and `newPassword`: the reset is done (and the
  /// code spent); Firebase ends the account's sessions.
  public func confirmPasswordReset(code: String, newPassword: String) async
    -> PasswordResetAnswer
  {
    switch await call("resetPassword", ["oobCode": code, "newPassword": newPassword]) {
    case .failure(let e): return .requestFailed(error: e)
    case .success(let json): return .passwordResetConfirmed(email: json["email"] as? String)
    }
  }

  /// `accounts:sendOobCode` with `EMAIL_SIGNIN`: a sign-in link to `email` that opens the app
  /// (`canHandleCodeInApp`) at `emailLinkContinueURL`.
  public func sendSignInLink(email: String) async -> SignInLinkAnswer {
    guard let url = emailLinkContinueURL, url.scheme != nil, url.host != nil else {
      return .requestFailed(
        error: AuthError(
          code: "MISSING_CONTINUE_URI",
          message: "FirebaseAPI.emailLinkContinueURL is not set to an absolute URL"))
    }
    let body: [String: Any] = [
      "requestType": "EMAIL_SIGNIN", "email": email, "continueUrl": url.absoluteString,
      "canHandleCodeInApp": true,
    ]
    switch await call("sendOobCode", body) {
    case .success: return .signInLinkSent
    case .failure(let e): return .requestFailed(error: e)
    }
  }

  /// `accounts:signInWithEmailLink` with the link's `oobCode` and the address it went to;
  /// `linkTo` (an anonymous user's ID token) adds the address to that account.
  public func signInWithEmailLink(email: String, code: String, linkTo: String?) async
    -> FirstFactorAnswer
  {
    var body: [String: Any] = ["email": email, "oobCode": code]
    if let linkTo { body["idToken"] = linkTo }
    return await firstFactor(call("signInWithEmailLink", body))
  }

  /// `accounts:sendOobCode` with `PASSWORD_RESET`.
  public func sendPasswordReset(email: String) async -> ResetAnswer {
    switch await call("sendOobCode", ["requestType": "PASSWORD_RESET", "email": email]) {
    case .success: return .passwordResetSent
    case .failure(let e): return .requestFailed(error: e)
    }
  }

  /// `accounts:delete`.
  public func deleteAccount(idToken: String) async -> DeleteAnswer {
    switch await call("delete", ["idToken": idToken]) {
    case .success: return .accountDeleted
    case .failure(let e): return .requestFailed(error: e)
    }
  }

  /// Secure Token `/v1/token` (form-encoded, as the JS SDK sends it); `expires_in` becomes an
  /// instant here, when the answer arrives.
  public func refreshToken(_ refreshToken: String) async -> RefreshAnswer {
    let url = endpoints.secureToken.appendingPathComponent("token")
    let body = FormEncoding.encode([
      ("grant_type", "refresh_token"), ("refresh_token", refreshToken),
    ])
    let result = await send(
      url: url, body: Data(body.utf8), contentType: "application/x-www-form-urlencoded")
    switch result {
    case .failure(let e): return .requestFailed(error: e)
    case .success(let json):
      guard let idToken = json["id_token"] as? String ?? json["access_token"] as? String,
        !idToken.isEmpty, let newRefresh = json["refresh_token"] as? String,
        let expiresIn = Self.seconds(json["expires_in"])
      else {
        return .requestFailed(
          error: AuthError(
            code: "UNEXPECTED_RESPONSE",
            message: "token response lacks id_token, refresh_token or a usable expires_in"))
      }
      return .tokenRefreshed(
        Tokens(idToken: idToken, refreshToken: newRefresh, expiresAt: clock() + expiresIn))
    }
  }

  // MARK: Plumbing

  /// POSTs JSON to `accounts:<op>`.
  func call(_ op: String, _ body: [String: Any]) async -> Result<[String: Any], AuthError> {
    await post(endpoints.identityToolkit.appendingPathComponent("accounts:\(op)"), op, body)
  }

  /// POSTs JSON to Identity Toolkit v2's `accounts/<op>` (`mfaSignIn:start`, …): the v1 base's
  /// sibling, with a slash before the resource.
  func callV2(_ op: String, _ body: [String: Any]) async -> Result<[String: Any], AuthError> {
    let base = endpoints.identityToolkit.deletingLastPathComponent().appendingPathComponent("v2")
    return await post(base.appendingPathComponent("accounts/\(op)"), op, body)
  }

  private func post(_ url: URL, _ op: String, _ body: [String: Any]) async
    -> Result<[String: Any], AuthError>
  {
    guard let data = try? JSONSerialization.data(withJSONObject: body) else {
      return .failure(AuthError(code: "INTERNAL_ERROR", message: "cannot encode \(op)"))
    }
    return await send(url: url, body: data, contentType: "application/json")
  }

  func send(url: URL, body: Data, contentType: String) async -> Result<[String: Any], AuthError> {
    if let problem = endpoints.problem {
      return .failure(AuthError(code: "INVALID_CONFIGURATION", message: problem))
    }
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
      return .failure(AuthError(code: "INVALID_CONFIGURATION", message: "bad endpoint \(url)"))
    }
    components.queryItems = [URLQueryItem(name: "key", value: apiKey)]
    guard let withKey = components.url else {
      return .failure(
        AuthError(code: "INVALID_CONFIGURATION", message: "the API key makes a bad URL"))
    }
    let request = HTTPRequest(
      method: "POST", url: withKey, headers: ["Content-Type": contentType], body: body,
      timeout: timeout)
    switch await transport.send(request) {
    case .failure(let e): return .failure(e)
    case .success(let response): return FirebaseError.interpret(response)
    }
  }

  /// A session from a sign-in response; `expiresIn` (a string on the wire) is stamped now.
  ///
  /// The account's providers, email and name come from `accounts:lookup` right after, as the
  /// Firebase SDKs read them: the ID token's `firebase.identities` lists an `email` identity for
  /// every account with an email, a Google one included, so it cannot tell a password from an
  /// address. When the lookup fails, the token's claims are the fallback (the password counted
  /// only when it was the way in).
  func session(from result: Result<[String: Any], AuthError>, anonymous: Bool) async
    -> Result<Session, AuthError>
  {
    switch result {
    case .failure(let e): return .failure(e)
    case .success(let json):
      if json["mfaPendingCredential"] != nil {
        // A challenge where this request cannot take one (a custom token's, a link's): never a
        // session, and said plainly.
        return .failure(
          AuthError(
            code: "SECOND_FACTOR_REQUIRED",
            message: "the account has second factors; AuthFlow finishes them after a password, "
              + "an email link or a provider's sign-in only"))
      }
      // A custom token's answer names no `localId`: its ID token does (`user_id`, `sub`).
      let tokenUid = (json["idToken"] as? String).flatMap(JWTClaims.init)
        .flatMap { $0.string("user_id") ?? $0.string("sub") }
      guard let uid = json["localId"] as? String ?? tokenUid, !uid.isEmpty,
        let idToken = json["idToken"] as? String, !idToken.isEmpty,
        let refreshToken = json["refreshToken"] as? String, !refreshToken.isEmpty
      else {
        return .failure(
          AuthError(
            code: "UNEXPECTED_RESPONSE", message: "sign-in response lacks localId or tokens"))
      }
      let claims = JWTClaims(idToken)
      let expiresAt: Instant
      if let expiresIn = Self.seconds(json["expiresIn"]) {
        expiresAt = clock() + expiresIn
      } else if json["expiresIn"] == nil, let exp = claims?.number("exp"),
        Instant.isValidDuration(exp)
      {
        // A second factor's finalize answers without `expiresIn`: the token's own `exp`.
        expiresAt = Instant(exp)
      } else {
        return .failure(
          AuthError(
            code: "UNEXPECTED_RESPONSE",
            message: "sign-in response lacks a usable expiresIn (or an ID token with exp)"))
      }
      let isAnonymous = claims?.signInProvider.map { $0 == "anonymous" } ?? anonymous
      var session = Session(
        uid: uid, anonymous: isAnonymous,
        providers: (claims?.identityProviders ?? []).map { ProviderID($0) },
        email: json["email"] as? String ?? claims?.string("email"), idToken: idToken,
        refreshToken: refreshToken, expiresAt: expiresAt,
        displayName: (json["displayName"] as? String).flatMap { $0.isEmpty ? nil : $0 },
        emailVerified: json["emailVerified"] as? Bool ?? false,
        photoURL: Self.nonEmpty(json["photoUrl"]))
      if session.providers.isEmpty, let p = json["providerId"] as? String {
        session.providers = [ProviderID(p)]
      }
      if case .success(let account) = await lookup(idToken: idToken) {
        session.providers = account.providers.map { ProviderID($0) }
        session.email = account.email ?? session.email
        if session.displayName == nil { session.displayName = account.displayName }
        session.emailVerified = account.emailVerified
        session.photoURL = account.photoURL ?? session.photoURL
        session.secondFactors = account.secondFactors
      }
      return .success(session)
    }
  }

  /// What `accounts:lookup` says about the account of `idToken`.
  struct Account {
    var providers: [String]
    var email: String?
    var displayName: String?
    var emailVerified: Bool
    var photoURL: String?
    var secondFactors: [SecondFactor]
  }

  /// `accounts:lookup` as a reload: the account's profile as the server has it now.
  public func lookupAccount(idToken: String) async -> LookupAnswer {
    switch await lookup(idToken: idToken) {
    case .failure(let e): return .requestFailed(error: e)
    case .success(let account):
      return .accountReloaded(
        profile: Profile(
          email: account.email, emailVerified: account.emailVerified,
          providers: account.providers.map { ProviderID($0) }, displayName: account.displayName,
          photoURL: account.photoURL, secondFactors: account.secondFactors))
    }
  }

  /// `accounts:update` with the profile fields `change` sets (`displayName`, `photoUrl`) and
  /// removes (`deleteAttribute` `DISPLAY_NAME`, `PHOTO_URL`), asking for no tokens: the answer
  /// is the account as the server has it after the change (its `displayName` and `photoUrl`,
  /// absent when removed). The ID token's `name` and `picture` claims follow at its next refresh.
  public func updateProfile(idToken: String, change: ProfileChange) async -> ProfileAnswer {
    var body: [String: Any] = ["idToken": idToken, "returnSecureToken": false]
    var removed: [String] = []
    for (value, field, attribute) in [
      (change.displayName, "displayName", "DISPLAY_NAME"),
      (change.photoURL, "photoUrl", "PHOTO_URL"),
    ] {
      guard let value else { continue }
      if value.isEmpty { removed.append(attribute) } else { body[field] = value }
    }
    if !removed.isEmpty { body["deleteAttribute"] = removed }
    switch await call("update", body) {
    case .failure(let e): return .requestFailed(error: e)
    case .success(let json):
      let infos = json["providerUserInfo"] as? [[String: Any]] ?? []
      return .profileUpdated(
        profile: Profile(
          email: json["email"] as? String, emailVerified: json["emailVerified"] as? Bool ?? false,
          providers: infos.compactMap { ($0["providerId"] as? String).map { ProviderID($0) } },
          displayName: Self.nonEmpty(json["displayName"]), photoURL: Self.nonEmpty(json["photoUrl"])
        ))
    }
  }

  /// A JSON string that is not empty.
  static func nonEmpty(_ value: Any?) -> String? {
    (value as? String).flatMap { $0.isEmpty ? nil : $0 }
  }

  /// `accounts:lookup` for the account of `idToken`.
  func lookup(idToken: String) async -> Result<Account, AuthError> {
    switch await call("lookup", ["idToken": idToken]) {
    case .failure(let e): return .failure(e)
    case .success(let json):
      guard let users = json["users"] as? [[String: Any]], users.count == 1 else {
        return .failure(
          AuthError(code: "UNEXPECTED_RESPONSE", message: "lookup did not answer one user"))
      }
      let user = users[0]
      let infos = user["providerUserInfo"] as? [[String: Any]] ?? []
      return .success(
        Account(
          providers: infos.compactMap { $0["providerId"] as? String }.sorted(),
          email: user["email"] as? String,
          displayName: (user["displayName"] as? String).flatMap { $0.isEmpty ? nil : $0 },
          emailVerified: user["emailVerified"] as? Bool ?? false,
          photoURL: Self.nonEmpty(user["photoUrl"]),
          secondFactors: Self.secondFactors(user["mfaInfo"])))
    }
  }

  /// `"3600"` or `3600`, when it is a lifetime the machine accepts (0 to 100 years); anything
  /// else (a huge, negative or non-finite number, text that is not a number) is `nil`, which the
  /// callers turn into `UNEXPECTED_RESPONSE`.
  static func seconds(_ value: Any?) -> Double? {
    let n: Double?
    if let s = value as? String {
      n = s.count <= 32 ? Double(s.trimmingCharacters(in: .whitespaces)) : nil
    } else {
      n = (value as? NSNumber)?.doubleValue
    }
    guard let n, Instant.isValidDuration(n) else { return nil }
    return n
  }
}

/// Firebase's error envelope and messages (wire reference §1.1 and §4).
public enum FirebaseError {
  /// The code of a message: its leading run of `[A-Z0-9_]` when that is the whole message or
  /// is followed by `:` or `(` (`WEAK_PASSWORD : detail` → `WEAK_PASSWORD`); empty for a
  /// sentence such as `API key not valid.`.
  public static func code(in message: String) -> String {
    let code = message.prefix { ($0.isUppercase && $0.isASCII) || $0.isNumber || $0 == "_" }
    let rest = message.dropFirst(code.count).drop { $0 == " " }
    guard code.count >= 2, rest.isEmpty || rest.first == ":" || rest.first == "(" else {
      return ""
    }
    return String(code)
  }

  /// Code and detail of a message.
  public static func parse(_ message: String) -> AuthError {
    let code = Self.code(in: message)
    guard !code.isEmpty else { return AuthError(code: "UNEXPECTED_RESPONSE", message: message) }
    var rest = message.dropFirst(code.count).drop { $0 == " " || $0 == ":" }
    if rest.isEmpty { return AuthError(code: code) }
    rest = rest.drop { $0 == " " }
    return AuthError(code: code, message: String(rest))
  }

  /// A response as JSON, or the typed error it stands for. Anything unexpected (an HTML page,
  /// truncated JSON, wrong types) becomes a transient error: never a crash, never a sign-out.
  public static func interpret(_ response: HTTPResponse) -> Result<[String: Any], AuthError> {
    let json = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
    if (200..<300).contains(response.status) {
      guard let json else {
        return .failure(
          AuthError(
            code: "UNEXPECTED_RESPONSE",
            message: "HTTP \(response.status) with a body that is not a JSON object"))
      }
      return .success(json)
    }
    if let error = json?["error"] as? [String: Any], let message = error["message"] as? String {
      let parsed = parse(message)
      // Google's front end puts sentences in `message` ("API key not valid…").
      if parsed.code == "UNEXPECTED_RESPONSE" || parsed.code.count < 3 {
        if let errors = error["errors"] as? [[String: Any]],
          let reason = errors.first?["reason"] as? String, reason.hasPrefix("keyInvalid")
        {
          return .failure(AuthError(code: "INVALID_API_KEY", message: message))
        }
        return .failure(AuthError(code: "HTTP_\(response.status)", message: message))
      }
      return .failure(parsed)
    }
    return .failure(AuthError(code: "HTTP_\(response.status)"))
  }
}

extension SessionAnswer {
  /// A sign-in's session, or why there is none.
  init(_ result: Result<Session, AuthError>) {
    switch result {
    case .success(let s): self = .signedIn(session: s)
    case .failure(let e): self = .requestFailed(error: e)
    }
  }
}

extension PhoneSignInAnswer {
  /// A sign-in's session, or why there is none.
  init(_ result: Result<Session, AuthError>) {
    switch SessionAnswer(result) {
    case .signedIn(let s): self = .signedIn(session: s)
    case .requestFailed(let e): self = .requestFailed(error: e)
    }
  }
}

extension SignInAnswer {
  /// A sign-in's session, or why there is none.
  init(_ result: Result<Session, AuthError>) {
    switch SessionAnswer(result) {
    case .signedIn(let s): self = .signedIn(session: s)
    case .requestFailed(let e): self = .requestFailed(error: e)
    }
  }
}

extension FirebaseAPI {
  /// Firebase has no consent step: a provider's is the app's (`HTTPInterpreter.consents`).
  public func authorize(provider: ProviderID, intent: AuthorizationIntent, loginHint: String?)
    async -> AuthorizeAnswer
  {
    .providerFailed(
      error: AuthError(code: "PROVIDER_NOT_CONFIGURED", message: "no consent step for \(provider)"))
  }
}

// The names these calls had before they took the names `AuthInterpreter` gives them.
extension FirebaseAPI {
  @available(*, deprecated, renamed: "signUpWithPassword(email:password:linkTo:)")
  public func signUp(email: String, password: String, linkTo: String?) async -> SessionAnswer {
    await signUpWithPassword(email: email, password: password, linkTo: linkTo)
  }

  @available(*, deprecated, renamed: "signInWithPassword(email:password:)")
  public func signIn(email: String, password: String) async -> FirstFactorAnswer {
    await signInWithPassword(email: email, password: password)
  }

  @available(*, deprecated, renamed: "signInWithCustomToken(token:)")
  public func signIn(customToken: String) async -> SignInAnswer {
    await signInWithCustomToken(token: customToken)
  }

  @available(*, deprecated, renamed: "signInWithIdp(credential:linkTo:)")
  public func signInWithIdp(_ credential: IdPCredential, linkTo: String?) async -> IdPAnswer {
    await signInWithIdp(credential: credential, linkTo: linkTo)
  }

  @available(*, deprecated, renamed: "unlinkProvider(provider:idToken:)")
  public func unlink(provider: ProviderID, idToken: String) async -> UnlinkAnswer {
    await unlinkProvider(provider: provider, idToken: idToken)
  }

  @available(*, deprecated, renamed: "applyActionCode(code:)")
  public func applyActionCode(_ code: String) async -> ActionCodeAnswer {
    await applyActionCode(code: code)
  }

  @available(*, deprecated, renamed: "checkActionCode(code:)")
  public func checkActionCode(_ code: String) async -> CheckCodeAnswer {
    await checkActionCode(code: code)
  }

  @available(*, deprecated, renamed: "confirmPasswordReset(code:newPassword:)")
  public func confirmPasswordReset(_ code: String, newPassword: String) async
    -> PasswordResetAnswer
  {
    await confirmPasswordReset(code: code, newPassword: newPassword)
  }

  @available(*, deprecated, renamed: "deleteAccount(idToken:)")
  public func delete(idToken: String) async -> DeleteAnswer {
    await deleteAccount(idToken: idToken)
  }

  @available(*, deprecated, renamed: "refreshToken(_:)")
  public func refresh(_ refreshToken: String) async -> RefreshAnswer {
    await self.refreshToken(refreshToken)
  }

  @available(*, deprecated, renamed: "lookupAccount(idToken:)")
  public func reload(idToken: String) async -> LookupAnswer {
    await lookupAccount(idToken: idToken)
  }
}
