import Foundation
import IcecastFixture

/// A TCP peer on loopback that accepts one connection and never reads from it.
final class SilentPeer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private var accepted: Int32 = -1

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 4) == 0 else { throw FixtureError("silent peer: bind/listen errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        port = UInt16(bigEndian: address.sin_port)
    }

    /// Accepts the first connection (waiting up to `timeout`) and keeps it open, unread.
    func acceptOne(timeout: TimeInterval) -> Bool {
        var waiting = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&waiting, 1, Int32(timeout * 1000)) == 1 else { return false }
        accepted = accept(listener, nil, nil)
        return accepted >= 0
    }

    func close() {
        if accepted >= 0 { Glibc.close(accepted) }
        Glibc.close(listener)
    }
}
