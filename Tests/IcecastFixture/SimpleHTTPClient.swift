import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A response read by `SimpleHTTPClient`.
public struct HTTPResponse: Sendable {
    public let status: Int
    /// Header names lower-cased.
    public let headers: [String: String]
    public let body: Data
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// Minimal HTTP/1.0 client for 127.0.0.1 (no FoundationNetworking, no redirects,
/// no chunked decoding). Reads until the server closes or `maxBytes` is reached,
/// so it must not be pointed at a live stream mount.
public enum SimpleHTTPClient {
    public static func get(
        port: UInt16,
        path: String,
        headers: [String: String] = [:],
        basicAuth: (user: String, password: String)? = nil,
        timeout: TimeInterval = 2
    ) async throws -> HTTPResponse {
        try await request(method: "GET", port: port, path: path, headers: headers, basicAuth: basicAuth, timeout: timeout)
    }

    public static func request(
        method: String,
        port: UInt16,
        path: String,
        headers: [String: String] = [:],
        body: Data? = nil,
        basicAuth: (user: String, password: String)? = nil,
        timeout: TimeInterval = 2,
        maxBytes: Int = 4 << 20
    ) async throws -> HTTPResponse {
        var head = "\(method) \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nUser-Agent: OtonTestFixture/1.0\r\nConnection: close\r\n"
        if let basicAuth {
            let token = Data("\(basicAuth.user):\(basicAuth.password)".utf8).base64EncodedString()
            head += "Authorization: Basic \(token)\r\n"
        }
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        var payload = Data(head.utf8)
        if let body { payload.append(body) }
        let bytes = payload
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        try blockingExchange(port: port, payload: bytes, timeout: timeout, maxBytes: maxBytes)
                    })
            }
        }
    }

    static func blockingExchange(port: UInt16, payload: Data, timeout: TimeInterval, maxBytes: Int) throws -> HTTPResponse {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FixtureError("socket() failed") }
        defer { close(fd) }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - floor(timeout)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = FreePort.loopbackAddress(port: port)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else { throw FixtureError("connect to 127.0.0.1:\(port) failed: errno \(errno)") }
        try payload.withUnsafeBytes { raw in
            var off = 0
            while off < raw.count {
                let n = send(fd, raw.baseAddress! + off, raw.count - off, Int32(MSG_NOSIGNAL))
                guard n > 0 else { throw FixtureError("send failed: errno \(errno)") }
                off += n
            }
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16384)
        while data.count < maxBytes {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw FixtureError("recv from 127.0.0.1:\(port) failed: errno \(errno)")
            }
            data.append(contentsOf: buffer[0..<n])
        }
        return try parse(data)
    }

    static func parse(_ data: Data) throws -> HTTPResponse {
        guard let sep = data.range(of: Data("\r\n\r\n".utf8)) else {
            throw FixtureError("malformed HTTP response (\(data.count) bytes)")
        }
        let head = String(decoding: data[data.startIndex..<sep.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw FixtureError("malformed status line in: \(head)")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return HTTPResponse(status: status, headers: headers, body: Data(data[sep.upperBound...]))
    }
}

extension String {
    /// Strict percent-encoding for query values (everything but unreserved characters).
    var queryEncoded: String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return addingPercentEncoding(withAllowedCharacters: allowed) ?? self
    }
}
