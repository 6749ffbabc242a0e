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
    guard bound == 0, listen(s, 64) == 0 else {
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

  /// The longest a client may take to send its request line and headers, in seconds.
  static let clientDeadline = 2.0
  /// The most bytes of request line and headers read from one client.
  static let maximumRequestSize = 16_384
  /// The most clients served at once; further connections are closed at once.
  static let maximumClients = 32

  /// Waits for the redirect and returns its query parameters; TIMEOUT when none arrives in time.
  /// Requests for other paths (a browser's favicon) get a 404, other methods a 405, malformed or
  /// oversized requests a 400 or 431, and none of them ends the wait. Clients are served side by
  /// side, each for at most `clientDeadline` seconds, so slow, silent or many connections cannot
  /// keep the real redirect out.
  public func waitForRedirect(timeout: Double) async -> Result<[String: String], AuthError> {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        continuation.resume(returning: self.serve(timeout: timeout))
      }
    }
  }

  /// A client connection being read.
  private struct Client {
    var fd: Int32
    var data: [UInt8] = []
    var deadline: Date
  }

  private func serve(timeout: Double) -> Result<[String: String], AuthError> {
    let seconds = timeout.isNaN ? 300 : min(max(timeout, 0), 86_400)
    let deadline = Date().addingTimeInterval(seconds)
    var clients: [Client] = []
    defer { for c in clients { close(c.fd) } }
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let remaining = deadline.timeIntervalSinceNow
      guard remaining > 0 else {
        return .failure(
          AuthError(code: "TIMEOUT", message: "no redirect within \(Int(seconds.rounded())) s"))
      }
      var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
      fds += clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
      let wait = Int32(min(remaining, 0.25) * 1000)
      guard poll(&fds, nfds_t(fds.count), wait) >= 0 else { continue }
      // New connections.
      if fds[0].revents & Int16(POLLIN) != 0 {
        let client = accept(fd, nil, nil)
        if client >= 0 {
          if clients.count >= Self.maximumClients {
            close(client)
          } else {
            clients.append(
              Client(fd: client, deadline: Date().addingTimeInterval(Self.clientDeadline)))
          }
        }
      }
      // Readable clients (indices shifted by the listening socket).
      var finished: [Int] = []
      for (i, p) in fds.enumerated().dropFirst() where p.revents != 0 {
        let k = i - 1
        let n = read(clients[k].fd, &buffer, buffer.count)
        guard n > 0 else {
          finished.append(k)
          continue
        }
        clients[k].data += buffer[0..<n]
        switch parse(clients[k].data) {
        case .incomplete:
          if clients[k].data.count >= Self.maximumRequestSize {
            respond(clients[k].fd, status: "431 Request Header Fields Too Large", body: "Too large")
            finished.append(k)
          }
        case .bad(let status):
          respond(clients[k].fd, status: status, body: "Bad request")
          finished.append(k)
        case .get(let target):
          let (requestPath, query) = split(target)
          guard requestPath == path else {
            respond(clients[k].fd, status: "404 Not Found", body: "Not found")
            finished.append(k)
            continue
          }
          let params = FormEncoding.decode(query)
          respond(
            clients[k].fd, status: "200 OK",
            body: params["error"] == nil
              ? "Signed in. You can close this tab and return to the app."
              : "Sign-in was not completed. You can close this tab.")
          return .success(params)
        }
      }
      // Clients that took too long.
      let now = Date()
      for (k, c) in clients.enumerated() where c.deadline < now && !finished.contains(k) {
        finished.append(k)
      }
      for k in finished.sorted(by: >) {
        close(clients[k].fd)
        clients.remove(at: k)
      }
    }
  }

  private enum Parsed {
    case incomplete
    case bad(status: String)
    case get(target: String)
  }

  /// The request line of a complete request head, or why it cannot be served.
  private func parse(_ data: [UInt8]) -> Parsed {
    let end: [UInt8] = [13, 10, 13, 10]
    guard data.count >= 4,
      (0...(data.count - 4)).contains(where: { data[$0..<($0 + 4)].elementsEqual(end) })
    else { return .incomplete }
    guard let lineEnd = data.firstIndex(of: 13),
      let line = String(bytes: data[..<lineEnd], encoding: .utf8)
    else { return .bad(status: "400 Bad Request") }
    let parts = line.split(separator: " ", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[2].hasPrefix("HTTP/"), parts[1].hasPrefix("/") else {
      return .bad(status: "400 Bad Request")
    }
    guard parts[0] == "GET" else { return .bad(status: "405 Method Not Allowed") }
    return .get(target: String(parts[1]))
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
    // A client that has gone away must not kill the process with SIGPIPE.
    #if canImport(Glibc)
      let flags = Int32(MSG_NOSIGNAL)
    #else
      var on: Int32 = 1
      setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
      let flags: Int32 = 0
    #endif
    _ = Array(response.utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, flags) }
  }
}
