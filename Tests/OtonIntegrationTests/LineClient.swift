import Foundation
import IcecastFixture

/// A line-oriented TCP client on loopback with bounded waits.
final class LineClient {
    private let fd: Int32
    private var pending: [UInt8] = []
    private var isClosed = false

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw FixtureError("connect to \(port): errno \(errno)") }
    }

    func send(_ line: String) {
        let bytes = Array(line.utf8) + [10]
        _ = Glibc.send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL))
    }

    /// The next line, or nil at the end or after 20 s.
    func readLine() -> String? {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let end = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeSubrange(...end)
                return line
            }
            guard let chunk = receive(timeoutMilliseconds: 500) else { return nil }
            pending += chunk
        }
        return nil
    }

    /// True once the peer closed the connection (what it sent before is read and discarded).
    func waitForClose(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if receive(timeoutMilliseconds: 500) == nil { return true }
        }
        return false
    }

    /// Bytes received within the wait ([] when none came), nil when the peer closed or failed.
    private func receive(timeoutMilliseconds: Int32) -> [UInt8]? {
        var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&waiting, 1, timeoutMilliseconds) == 1 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count > 0 ? Array(buffer[0..<count]) : nil
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    deinit { close() }
}
