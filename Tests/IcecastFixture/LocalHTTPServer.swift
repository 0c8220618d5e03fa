import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A request received by `LocalHTTPServer`.
public struct RecordedRequest: Sendable {
    public let method: String
    /// Request target as sent, e.g. "/api/v2/stations?x=1".
    public let target: String
    /// Path without query.
    public let path: String
    /// Decoded query items (last one wins).
    public let query: [String: String]
    /// Header names lower-cased.
    public let headers: [String: String]
    public let body: Data
    public let receivedAt: Date
}

/// A canned response.
public struct CannedResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data
    /// False: no Content-Length, the body ends when the server closes (a live stream that stops).
    public var sendsLength: Bool

    public init(status: Int = 200, headers: [String: String] = [:], body: Data = Data(), sendsLength: Bool = true) {
        self.status = status
        self.headers = headers
        self.body = body
        self.sendsLength = sendsLength
    }

    public static func html(_ html: String, status: Int = 200) -> CannedResponse {
        CannedResponse(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data(html.utf8))
    }
    public static func json(_ json: String, status: Int = 200) -> CannedResponse {
        CannedResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(json.utf8))
    }
    public static func text(_ text: String, status: Int = 200) -> CannedResponse {
        CannedResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data(text.utf8))
    }
    public static let notFound = CannedResponse.text("not found", status: 404)
}

/// Tiny HTTP/1.x server on 127.0.0.1 (kernel-chosen free port) serving canned
/// responses per path and recording every request. One connection per request
/// (`Connection: close`), no keep-alive, no chunked requests.
///
///     let http = try LocalHTTPServer.start(routes: ["/": .html("<html>hi</html>")])
///     defer { http.stop() }
///     http.setRoute("/api/status", .json(#"{"status":"online"}"#))
///     http.setHandler { req in req.query["key"] == nil ? .text("no key", status: 401) : nil }
public final class LocalHTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (RecordedRequest) -> CannedResponse?

    public let port: UInt16
    private let listenFD: Int32
    private let routes: LockedValue<[String: CannedResponse]>
    private let handler = LockedValue<Handler?>(nil)
    private let recorded = LockedValue<[RecordedRequest]>([])
    private let running = LockedValue(true)
    private let finished = DispatchSemaphore(value: 0)

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    private init(fd: Int32, port: UInt16, routes: [String: CannedResponse]) {
        self.listenFD = fd
        self.port = port
        self.routes = LockedValue(routes)
    }

    /// Binds 127.0.0.1:0 and starts the accept loop on its own thread.
    public static func start(routes: [String: CannedResponse] = [:], handler: Handler? = nil) throws -> LocalHTTPServer {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FixtureError("socket() failed") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = FreePort.loopbackAddress(port: 0)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, len) == 0 && listen(fd, 64) == 0 && getsockname(fd, $0, &len) == 0
            }
        }
        guard ok else { close(fd); throw FixtureError("bind/listen on 127.0.0.1 failed: errno \(errno)") }
        let server = LocalHTTPServer(fd: fd, port: UInt16(bigEndian: addr.sin_port), routes: routes)
        server.handler.set(handler)
        let thread = Thread { [server] in server.acceptLoop() }
        thread.name = "LocalHTTPServer.accept"
        thread.start()
        return server
    }

    /// Stops accepting and closes the socket (waits for the accept loop). Idempotent.
    public func stop() {
        let wasRunning = running.mutate { r -> Bool in
            defer { r = false }; return r
        }
        guard wasRunning else { return }
        _ = finished.wait(timeout: .now() + 2)
        close(listenFD)
    }

    deinit { stop() }

    /// Adds or replaces the canned response for an exact path (query ignored) or
    /// an exact target (with query; takes precedence).
    public func setRoute(_ pathOrTarget: String, _ response: CannedResponse) {
        routes.mutate { $0[pathOrTarget] = response }
    }

    /// A handler consulted before the routes; return nil to fall through.
    public func setHandler(_ newHandler: Handler?) { handler.set(newHandler) }

    public var requests: [RecordedRequest] { recorded.get() }
    public func requests(path: String) -> [RecordedRequest] { requests.filter { $0.path == path } }

    /// Waits for the first request (received at or after `since`) matching `path`.
    @discardableResult
    public func waitForRequest(path: String, timeout: TimeInterval = 5, since: Date = .distantPast) async throws -> RecordedRequest {
        try await pollUntil(timeout: timeout, interval: 0.02, "a request for \(path) on port \(port)") {
            self.requests.first { $0.path == path && $0.receivedAt >= since }
        }
    }

    // MARK: Implementation

    private func acceptLoop() {
        defer { finished.signal() }
        while running.get() {
            var pfd = pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)
            let n = poll(&pfd, 1, 50)
            if n <= 0 { continue }
            let client = accept(listenFD, nil, nil)
            if client < 0 { continue }
            let thread = Thread { [self] in self.serve(client) }
            thread.name = "LocalHTTPServer.connection"
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        guard let request = readRequest(fd) else { return }
        recorded.mutate { $0.append(request) }
        let response =
            handler.get()?(request)
            ?? routes.get()[request.target]
            ?? routes.get()[request.path]
            ?? .notFound
        var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
        var headers = response.headers
        if response.sendsLength { headers["Content-Length"] = String(response.body.count) }
        headers["Connection"] = "close"
        if headers["Content-Type"] == nil { headers["Content-Type"] = "application/octet-stream" }
        for (k, v) in headers.sorted(by: { $0.key < $1.key }) { head += "\(k): \(v)\r\n" }
        head += "\r\n"
        var bytes = Data(head.utf8)
        if request.method != "HEAD" { bytes.append(response.body) }
        bytes.withUnsafeBytes { raw in
            var off = 0
            while off < raw.count {
                let n = send(fd, raw.baseAddress! + off, raw.count - off, Int32(MSG_NOSIGNAL))
                if n <= 0 { break }
                off += n
            }
        }
        shutdown(fd, Int32(SHUT_WR))
    }

    private func readRequest(_ fd: Int32) -> RecordedRequest? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 8192)
        var headerEnd: Range<Data.Index>?
        var contentLength = 0
        while true {
            if let end = headerEnd, data.count - end.upperBound >= contentLength { break }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { if headerEnd == nil { return nil } else { break } }
            data.append(contentsOf: buffer[0..<n])
            if headerEnd == nil, let r = data.range(of: Data("\r\n\r\n".utf8)) {
                headerEnd = r
                let head = String(decoding: data[..<r.lowerBound], as: UTF8.self).lowercased()
                for line in head.components(separatedBy: "\r\n") where line.hasPrefix("content-length:") {
                    contentLength = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if data.count > 8 << 20 { return nil }
        }
        guard let end = headerEnd else { return nil }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", maxSplits: 2).map(String.init)
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let target = requestLine[1]
        let components = URLComponents(string: target)
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let bodyEnd = min(data.count, end.upperBound + contentLength)
        return RecordedRequest(
            method: requestLine[0], target: target,
            path: components?.path ?? target.components(separatedBy: "?")[0],
            query: query, headers: headers, body: Data(data[end.upperBound..<bodyEnd]), receivedAt: Date())
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }
}
