import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A raw HTTP/1.1 exchange on 127.0.0.1 for the metrics listener's tests: it sends exactly the
/// bytes a test writes and reads until the server closes.
enum LoopbackHTTP {
    struct Response {
        let status: Int
        let head: String
        let body: String
    }

    struct Refused: Error {}

    /// A connected socket with a receive timeout; throws Refused when nothing listens.
    static func connect(port: UInt16, timeoutSeconds: Int = 20) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Refused()
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything until the server closes (or the receive timeout), as text.
    static func readAll(_ fd: Int32) -> String {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data += buffer[0..<count]
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func exchange(port: UInt16, _ request: String) throws -> Response? {
        let fd = try connect(port: port)
        defer { close(fd) }
        send(fd, request)
        return parse(readAll(fd))
    }

    static func get(port: UInt16, _ path: String = "/metrics") throws -> Response? {
        try exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
    }

    static func parse(_ text: String) -> Response? {
        guard let split = text.range(of: "\r\n\r\n"), let status = Int(text.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return Response(status: status, head: String(text[..<split.lowerBound]), body: String(text[split.upperBound...]))
    }
}
