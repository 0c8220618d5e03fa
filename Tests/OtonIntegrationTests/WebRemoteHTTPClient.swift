import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A raw HTTP/1.1 client on loopback for the web remote's tests: it sends exactly the bytes a test
/// writes (so headers such as Origin are under the test's control), reads a whole response, or
/// keeps a connection open as an event-stream client that reads, or never reads.
final class WebRemoteHTTPClient {
    struct Response {
        let status: Int
        let head: String
        let body: String
    }

    let fd: Int32
    private var pending: [UInt8] = []

    /// `receiveBuffer` (bytes) keeps the kernel from buffering much for a client that never reads.
    init(port: UInt16, timeoutSeconds: Int = 5, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw NSError(domain: "web-remote", code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "connect to \(port) failed"])
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until the server closes (every response but the event stream closes).
    func readResponse() -> Response? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data += buffer[0..<count]
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n"), let status = Int(text.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return Response(status: status, head: String(text[..<split.lowerBound]), body: String(text[split.upperBound...]))
    }

    /// The next `data:` line of an event stream, or nil at the timeout or close.
    func nextEvent() -> String? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let end = firstEventEnd() {
                let block = String(decoding: pending[0..<end], as: UTF8.self)
                pending.removeFirst(end + 2)
                if let line = block.split(separator: "\n").first(where: { $0.hasPrefix("data: ") }) { return String(line.dropFirst(6)) }
                continue
            }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            pending += buffer[0..<count]
            if let head = headEnd() { pending.removeFirst(head + 4) }
        }
    }

    private var headSkipped = false
    private func headEnd() -> Int? {
        guard !headSkipped else { return nil }
        let text = Array("\r\n\r\n".utf8)
        guard pending.count >= 4 else { return nil }
        for index in 0...pending.count - 4 where Array(pending[index..<index + 4]) == text {
            headSkipped = true
            return index
        }
        return nil
    }

    private func firstEventEnd() -> Int? {
        guard headSkipped, pending.count >= 2 else { return nil }
        for index in 0..<pending.count - 1 where pending[index] == 10 && pending[index + 1] == 10 { return index }
        return nil
    }

    /// One whole request and its response on a fresh connection.
    static func exchange(port: UInt16, _ request: String) throws -> Response {
        let client = try WebRemoteHTTPClient(port: port)
        client.send(request)
        guard let response = client.readResponse() else {
            throw NSError(domain: "web-remote", code: 1, userInfo: [NSLocalizedDescriptionKey: "no response to \(request)"])
        }
        return response
    }
}
