import AuthFlowCore
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Receives the OAuth redirect on the loopback interface (RFC 8252 §7.3): binds 127.0.0.1 only,
/// on a port the system picks, answers one redirect with a short "you can close this tab" page,
/// and gives up after a timeout.
public final class LoopbackReceiver: @unchecked Sendable {
  /// The port it listens on.
  public let port: UInt16
  /// The path the redirect must use.
  public let path: String
  private let fd: Int32

  /// `http://127.0.0.1:<port><path>`, the `redirect_uri` to send.
  public var redirectURI: String { "http://127.0.0.1:\(port)\(path)" }

  /// Opens the listening socket.
  public init(path: String = "/callback") throws {
    self.path = path
    #if canImport(Glibc)
      let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let s = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard s >= 0 else { throw AuthError(code: "LOOPBACK_UNAVAILABLE", message: "socket failed") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(s, 4) == 0 else {
      close(s)
      throw AuthError(code: "LOOPBACK_UNAVAILABLE", message: "cannot listen on 127.0.0.1")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &length) }
    }
    fd = s
    port = UInt16(bigEndian: address.sin_port)
  }

  deinit { close(fd) }

  /// Waits for the redirect and returns its query parameters; TIMEOUT when none arrives in time.
  /// Requests for other paths (a browser's favicon) get a 404 and do not end the wait.
  public func waitForRedirect(timeout: Double) async -> Result<[String: String], AuthError> {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        continuation.resume(returning: self.serve(timeout: timeout))
      }
    }
  }

  private func serve(timeout: Double) -> Result<[String: String], AuthError> {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let remaining = deadline.timeIntervalSinceNow
      guard remaining > 0 else {
        return .failure(AuthError(code: "TIMEOUT", message: "no redirect within \(Int(timeout)) s"))
      }
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, Int32(min(remaining, 1) * 1000)) > 0 else { continue }
      let client = accept(fd, nil, nil)
      guard client >= 0 else { continue }
      defer { close(client) }
      guard let target = readRequestTarget(client, deadline: deadline) else { continue }
      let (requestPath, query) = split(target)
      guard requestPath == path else {
        respond(client, status: "404 Not Found", body: "Not found")
        continue
      }
      let params = FormEncoding.decode(query)
      let ok = params["error"] == nil
      respond(
        client, status: "200 OK",
        body: ok
          ? "Signed in. You can close this tab and return to the app."
          : "Sign-in was not completed (\(params["error"]!)). You can close this tab.")
      return .success(params)
    }
  }

  /// Reads up to the end of the headers and returns the request target of a GET.
  private func readRequestTarget(_ client: Int32, deadline: Date) -> String? {
    var data = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while data.count < 16_384 {
      var p = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
      let wait = Int32(max(0, min(deadline.timeIntervalSinceNow, 5)) * 1000)
      guard poll(&p, 1, wait) > 0 else { return nil }
      let n = read(client, &buffer, buffer.count)
      guard n > 0 else { return nil }
      data += buffer[0..<n]
      if let text = String(bytes: data, encoding: .utf8), text.contains("\r\n\r\n") {
        let line = text.prefix { $0 != "\r" }.split(separator: " ")
        guard line.count >= 2, line[0] == "GET" else { return nil }
        return String(line[1])
      }
    }
    return nil
  }

  private func split(_ target: String) -> (String, String) {
    guard let q = target.firstIndex(of: "?") else { return (target, "") }
    return (String(target[..<q]), String(target[target.index(after: q)...]))
  }

  private func respond(_ client: Int32, status: String, body: String) {
    let html =
      "<!doctype html><html><head><meta charset=\"utf-8\"><title>AuthFlow</title></head>"
      + "<body><p>\(body)</p></body></html>"
    let response =
      "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\n"
      + "Content-Length: \(html.utf8.count)\r\nConnection: close\r\n\r\n" + html
    _ = Array(response.utf8).withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
  }
}
