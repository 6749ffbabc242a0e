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

/// `URLSession` (FoundationNetworking on Linux), ephemeral, never following redirects.
public final class URLSessionTransport: NSObject, HTTPTransport, URLSessionTaskDelegate,
  @unchecked Sendable
{
  private var session: URLSession!

  public override init() {
    super.init()
    let config = URLSessionConfiguration.ephemeral
    config.httpCookieStorage = nil
    config.urlCache = nil
    session = URLSession(configuration: config, delegate: self, delegateQueue: nil)
  }

  public func send(_ request: HTTPRequest) async -> Result<HTTPResponse, AuthError> {
    var r = URLRequest(url: request.url, timeoutInterval: request.timeout)
    r.httpMethod = request.method
    r.httpBody = request.body
    for (k, v) in request.headers { r.setValue(v, forHTTPHeaderField: k) }
    let timedOut = TimeoutFlag()
    return await withCheckedContinuation { continuation in
      let task = session.dataTask(with: r) { data, response, error in
        if let error = error as? URLError {
          let code = error.code == .timedOut || timedOut.isSet ? "TIMEOUT" : "NETWORK"
          continuation.resume(
            returning: .failure(AuthError(code: code, message: error.localizedDescription)))
          return
        }
        if let error {
          continuation.resume(returning: .failure(AuthError(code: "NETWORK", message: "\(error)")))
          return
        }
        guard let http = response as? HTTPURLResponse else {
          continuation.resume(
            returning: .failure(AuthError(code: "NETWORK", message: "no HTTP response")))
          return
        }
        var headers: [String: String] = [:]
        for (k, v) in http.allHeaderFields {
          if let k = k as? String, let v = v as? String { headers[k] = v }
        }
        continuation.resume(
          returning: .success(
            HTTPResponse(status: http.statusCode, headers: headers, body: data ?? Data())))
      }
      task.resume()
      // URLSession on Linux does not always honour a request's timeout: enforce it here.
      DispatchQueue.global().asyncAfter(deadline: .now() + request.timeout) {
        timedOut.set()
        task.cancel()
      }
    }
  }

  public func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
  ) {
    completionHandler(nil)
  }
}

/// Set once, read from any thread.
final class TimeoutFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var value = false
  func set() { lock.withLock { value = true } }
  var isSet: Bool { lock.withLock { value } }
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
