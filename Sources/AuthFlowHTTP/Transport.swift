import AuthFlowCore
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One HTTP request.
public struct HTTPRequest: Sendable {
  public var method: String
  public var url: URL
  public var headers: [String: String]
  public var body: Data?
  /// Seconds before the request fails with TIMEOUT.
  public var timeout: Double

  public init(
    method: String = "GET", url: URL, headers: [String: String] = [:], body: Data? = nil,
    timeout: Double = 15
  ) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
    self.timeout = timeout
  }
}

/// One HTTP response (redirects are not followed: a 3xx comes back as it is).
public struct HTTPResponse: Sendable {
  public var status: Int
  public var headers: [String: String]
  public var body: Data

  public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// A header, case-insensitively.
  public func header(_ name: String) -> String? {
    headers.first { $0.key.lowercased() == name.lowercased() }?.value
  }
}

/// Sends HTTP requests; swap it to test without a network.
public protocol HTTPTransport: Sendable {
  /// Sends the request; transport failures come back as `AuthError` (NETWORK, TIMEOUT).
  func send(_ request: HTTPRequest) async -> Result<HTTPResponse, AuthError>
}

/// `URLSession` (FoundationNetworking on Linux), ephemeral, never following redirects. A
/// response body larger than `maximumBodySize` is cut off (`RESPONSE_TOO_LARGE`, transient):
/// a hostile or broken server cannot make the app hold gigabytes.
public final class URLSessionTransport: NSObject, HTTPTransport, URLSessionDataDelegate,
  @unchecked Sendable
{
  /// The largest response body accepted, in bytes (Firebase and OAuth answers are a few KB).
  public static let maximumBodySize = 1 << 20
  /// The longest timeout a request may ask for, in seconds.
  static let longestTimeout = 600.0

  private var session: URLSession!
  private let lock = NSLock()
  private var inFlight: [Int: Exchange] = [:]

  /// One request's state while it runs.
  private final class Exchange {
    let continuation: CheckedContinuation<Result<HTTPResponse, AuthError>, Never>
    var response: HTTPURLResponse?
    var body = Data()
    var tooLarge = false
    var timedOut = false

    init(_ continuation: CheckedContinuation<Result<HTTPResponse, AuthError>, Never>) {
      self.continuation = continuation
    }
  }

  public override init() {
    super.init()
    let config = URLSessionConfiguration.ephemeral
    config.httpCookieStorage = nil
    config.urlCache = nil
    session = URLSession(configuration: config, delegate: self, delegateQueue: nil)
  }

  public func send(_ request: HTTPRequest) async -> Result<HTTPResponse, AuthError> {
    let timeout = request.timeout.isNaN ? 15 : min(max(request.timeout, 0.001), Self.longestTimeout)
    var r = URLRequest(url: request.url, timeoutInterval: timeout)
    r.httpMethod = request.method
    r.httpBody = request.body
    for (k, v) in request.headers { r.setValue(v, forHTTPHeaderField: k) }
    return await withCheckedContinuation { continuation in
      let task = session.dataTask(with: r)
      lock.withLock { inFlight[task.taskIdentifier] = Exchange(continuation) }
      task.resume()
      // URLSession on Linux does not always honour a request's timeout: enforce it here.
      DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
        self?.lock.withLock { self?.inFlight[task.taskIdentifier]?.timedOut = true }
        task.cancel()
      }
    }
  }

  private func exchange(_ task: URLSessionTask) -> Exchange? {
    lock.withLock { inFlight[task.taskIdentifier] }
  }

  public func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    guard let e = exchange(dataTask) else { return completionHandler(.cancel) }
    lock.withLock {
      e.response = response as? HTTPURLResponse
      if response.expectedContentLength > Int64(Self.maximumBodySize) { e.tooLarge = true }
    }
    completionHandler(e.tooLarge ? .cancel : .allow)
  }

  public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data)
  {
    guard let e = exchange(dataTask) else { return }
    let cancel: Bool = lock.withLock {
      if e.body.count + data.count > Self.maximumBodySize {
        e.tooLarge = true
        return true
      }
      e.body.append(data)
      return false
    }
    if cancel { dataTask.cancel() }
  }

  public func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    guard let e = lock.withLock({ inFlight.removeValue(forKey: task.taskIdentifier) }) else {
      return
    }
    if e.tooLarge {
      return e.continuation.resume(
        returning: .failure(
          AuthError(
            code: "RESPONSE_TOO_LARGE",
            message: "the response is larger than \(Self.maximumBodySize) bytes")))
    }
    if let error {
      let timedOut = e.timedOut || (error as? URLError)?.code == .timedOut
      return e.continuation.resume(
        returning: .failure(
          AuthError(code: timedOut ? "TIMEOUT" : "NETWORK", message: error.localizedDescription)))
    }
    guard let http = e.response else {
      return e.continuation.resume(
        returning: .failure(AuthError(code: "NETWORK", message: "no HTTP response")))
    }
    var headers: [String: String] = [:]
    for (k, v) in http.allHeaderFields {
      if let k = k as? String, let v = v as? String { headers[k] = v }
    }
    e.continuation.resume(
      returning: .success(HTTPResponse(status: http.statusCode, headers: headers, body: e.body)))
  }

  public func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
  ) {
    completionHandler(nil)
  }
}

/// Form encoding (application/x-www-form-urlencoded) with every reserved character escaped.
public enum FormEncoding {
  static let unreserved = CharacterSet(
    charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

  /// `k=v&k2=v2`, percent-encoded.
  public static func encode(_ fields: [(String, String)]) -> String {
    fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
  }

  /// One value, percent-encoded.
  public static func escape(_ s: String) -> String {
    s.addingPercentEncoding(withAllowedCharacters: unreserved) ?? s
  }

  /// Parses a query string or form body.
  public static func decode(_ text: String) -> [String: String] {
    var out: [String: String] = [:]
    for pair in text.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
      let key =
        parts[0].replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? parts[0]
      let value =
        parts.count > 1
        ? (parts[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? parts[1])
        : ""
      out[key] = value
    }
    return out
  }
}
