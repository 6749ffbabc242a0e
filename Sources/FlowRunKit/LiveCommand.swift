import AuthFlowCore
import AuthFlowHTTP
import AuthFlowScenarios
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension FlowRun {
  static let recordHelp = """
    OVERVIEW: Run a scenario live and write what the backend answered into its script.

    USAGE: flowrun record --config <file> [--out <file>] [--browser <mode>] \
    [--login-hint <hint>] [--trace] [--show-secrets] <scenario>

    ARGUMENTS:
      <scenario>              The scenario file to run (its script is replaced).

    OPTIONS:
      --config <file>         GoogleService-Info.plist or a JSON file with API_KEY, CLIENT_ID
                              (and ISSUER for another OpenID provider than Google's), and
                              PROVIDERS (apple.com, oidc.<name>) with <P>_CLIENT_ID and
                              <P>_ISSUER for each (APPLE_COM_CLIENT_ID, …); AUTHFLOW_*
                              variables override it. FIREBASE_AUTH_EMULATOR_HOST selects the
                              emulator.
      --out <file>            Write the recorded scenario here instead of over the input.
      --browser <mode>        How the Google consent page is shown: print (the URL, default),
                              open (xdg-open / open), or follow (fetch it without a browser: for
                              providers that approve at once, such as a test provider).
      --login-hint <hint>     Passed to the consent page as login_hint.
      --trace                 Print every transition as `state --event--> state [effects]`.
      --show-secrets          Print tokens instead of fingerprints.
      -h, --help              Show help information.

    Tokens, uids and emails in the recording are replaced by stable placeholders (tok-1, uid-1,
    user-1@example.com), so the file replays offline and deterministically; expectations should
    use captures ("uid": "$anon") for values that differ between runs.

    """

  static let liveOptions: Set<String> = ["--config", "--browser", "--login-hint"]

  /// `flowrun --live …` and `flowrun record …`.
  static func live(
    _ a: Arguments, record: Bool, environment: [String: String], report: Bool
  ) async throws -> CommandOutput {
    guard let configPath = a.options["--config"] else {
      throw UsageError(message: "\(record ? "record" : "--live") needs --config <file>")
    }
    guard a.positional.count == 1 || !record else {
      throw UsageError(message: "record takes exactly one scenario file")
    }
    let config: AuthConfiguration
    do {
      config = try AuthConfiguration.load(path: configPath, environment: environment)
    } catch {
      return CommandOutput(
        code: ExitCode.dataError, stderr: "Error: \(error.message ?? error.code)\n")
    }
    let browserMode = a.options["--browser"] ?? "print"
    guard ["print", "open", "follow"].contains(browserMode) else {
      throw UsageError(message: "--browser must be print, open or follow, not '\(browserMode)'")
    }
    // Google, then every provider the configuration lists: each a loopback consent against its
    // issuer's endpoints, discovered when a scenario first asks that provider (a scenario of
    // email, password or guests alone needs no issuer).
    let settings =
      [
        ProviderSettings(
          id: .google, clientID: config.clientID, issuer: config.issuer,
          clientSecret: config.clientSecret)
      ] + config.providers
    let hint = a.options["--login-hint"]
    let discoveryFailures = DiscoveryFailures()
    var consents: [ProviderID: any ProviderConsent] = [:]
    for s in settings where s.usesOpenIDConsent || s.id == .google {
      consents[s.id] = DiscoveringConsent(
        settings: s, extraParameters: hint.map { [("login_hint", $0)] } ?? [],
        openBrowser: browser(browserMode), failures: discoveryFailures)
    }
    let firebase = FirebaseAPI(
      apiKey: config.apiKey, endpoints: .fromEnvironment(environment))
    let interpreter = HTTPInterpreter(firebase: firebase, consents: consents)
    let redactor = Redactor(showSecrets: a.has("--show-secrets"))
    var writer = ReportWriter()
    writer.redactor = redactor
    writer.trace = a.has("--trace")
    var entries: [RunEntry] = []
    var pages: [HTMLReport.Entry] = []
    var notes = ""
    let (files, missing) = ScenarioFiles.expand(a.positional)
    if let m = missing.first {
      return CommandOutput(code: ExitCode.noInput, stderr: "✘ \(m): no such file or directory\n")
    }
    for file in files {
      var scenario: Scenario
      do {
        scenario = try Scenario.load(path: file)
      } catch {
        entries.append(.invalid(error))
        continue
      }
      // The configuration's traits for a provider the file leaves at its defaults: the machine
      // and the consent step read the same ones.
      for s in config.providers
      where scenario.policy.providers[s.id] == ProviderCatalog.builtIn[s.id] {
        scenario.policy.providers.set(s.id, s.traits)
      }
      let clock = ContinuousClock()
      let start = clock.now
      let outcome = await LiveRunner.run(
        scenario, interpreter: interpreter, now: Instant(Date().timeIntervalSince1970),
        redactor: redactor)
      entries.append(.ran(outcome.report))
      if report {
        pages.append(reportEntry(scenario, outcome.report, seconds: seconds(clock.now - start)))
      }
      let requests = outcome.recorded.count
      notes += "  \(scenario.name): \(requests) requests live"
      notes += outcome.skippedSteps > 0 ? ", \(outcome.skippedSteps) respond steps skipped\n" : "\n"
      if record {
        let target = a.options["--out"] ?? file
        if outcome.report.passed {
          try writeRecording(from: file, to: target, script: LiveRunner.script(outcome.recorded))
          notes += "  recorded \(requests) answers into \(target)\n"
        } else {
          notes += "  not recorded: the live run failed, \(target) is unchanged\n"
        }
      }
    }
    for failure in await discoveryFailures.messages { notes += "Error: \(failure)\n" }
    if report {
      var out = try writeReport(
        pages, entries: entries, a, redactor: redactor, subtitle: "run live")
      out.stderr = notes + out.stderr
      return out
    }
    return CommandOutput(code: exitCode(entries), stdout: writer.text(entries), stderr: notes)
  }

  /// The scenario file with its `script` replaced (other keys keep their order).
  static func writeRecording(from source: String, to target: String, script: JSONValue) throws {
    let text = try String(contentsOfFile: source, encoding: .utf8)
    guard case .object(var members) = try JSONValue.parse(text) else { return }
    if let i = members.firstIndex(where: { $0.key == "script" }) {
      members[i].value = script
    } else {
      let at = members.firstIndex { $0.key == "steps" } ?? members.count
      members.insert(("script", script), at: at)
    }
    try (JSONValue.object(members).prettyText + "\n").write(
      toFile: target, atomically: true, encoding: .utf8)
  }

  /// Shows the consent URL: print it, open the system browser, or follow it over HTTP.
  static func browser(_ mode: String) -> @Sendable (URL) async -> Void {
    switch mode {
    case "follow":
      return { url in
        let transport = URLSessionTransport()
        guard case .success(let r) = await transport.send(HTTPRequest(url: url)),
          let location = r.header("Location"), let next = URL(string: location)
        else {
          FileHandle.standardError.write(Data("The consent page did not redirect at once.\n".utf8))
          return
        }
        _ = await transport.send(HTTPRequest(url: next))
      }
    case "open":
      return { url in
        FileHandle.standardError.write(Data("Opening your browser at \(url)\n".utf8))
        #if os(macOS)
          let opener = "/usr/bin/open"
        #else
          let opener = "/usr/bin/xdg-open"
        #endif
        _ = try? Process.run(URL(fileURLWithPath: opener), arguments: [url.absoluteString])
      }
    default:
      return { url in
        FileHandle.standardError.write(
          Data("Open this page to sign in with Google:\n  \(url)\n".utf8))
      }
    }
  }
}

/// The OpenID configurations that could not be read during a live run, named once at its end.
actor DiscoveryFailures {
  private(set) var messages: [String] = []
  func add(_ message: String) { if !messages.contains(message) { messages.append(message) } }
}

/// A loopback consent whose issuer's endpoints are discovered at the first authorization and
/// kept for the run. A configuration that cannot be read answers that authorization
/// `providerFailed` (the scenario says what it expected) and is named at the end of the run.
struct DiscoveringConsent: ProviderConsent {
  let settings: ProviderSettings
  let extraParameters: [(String, String)]
  let openBrowser: @Sendable (URL) async -> Void
  let failures: DiscoveryFailures
  private let consent = Once()

  init(
    settings: ProviderSettings, extraParameters: [(String, String)],
    openBrowser: @escaping @Sendable (URL) async -> Void, failures: DiscoveryFailures
  ) {
    self.settings = settings
    self.extraParameters = extraParameters
    self.openBrowser = openBrowser
    self.failures = failures
  }

  /// The consent built from the first discovery (or its failure), kept for the run.
  actor Once {
    private var built: Result<LoopbackConsent, AuthError>?
    func get(_ build: @Sendable () async -> Result<LoopbackConsent, AuthError>) async
      -> Result<LoopbackConsent, AuthError>
    {
      if let built { return built }
      let result = await build()
      built = result
      return result
    }
  }

  func authorize(provider: ProviderID, intent: AuthorizationIntent, loginHint: String?) async
    -> AuthorizeAnswer
  {
    let (settings, extraParameters, openBrowser) = (
      self.settings, self.extraParameters, self.openBrowser
    )
    let built = await consent.get {
      await OIDCProvider.discover(issuer: settings.issuer).map { endpoints in
        LoopbackConsent(
          client: OIDCClient(
            clientID: settings.clientID, clientSecret: settings.clientSecret,
            provider: endpoints, providerID: settings.id, traits: settings.traits),
          timeout: 300, extraParameters: extraParameters, openBrowser: openBrowser)
      }
    }
    switch built {
    case .failure(let e):
      await failures.add(
        "cannot read the OpenID configuration of \(settings.issuer) (\(settings.id)): \(e)")
      return .providerFailed(error: e)
    case .success(let consent):
      return await consent.authorize(provider: provider, intent: intent, loginHint: loginHint)
    }
  }
}
