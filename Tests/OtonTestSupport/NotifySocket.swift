import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A Unix datagram socket standing in for systemd's `$NOTIFY_SOCKET`: what a process notifies
/// (READY=1, STATUS=…, WATCHDOG=1) arrives here as one datagram each. Closed on deinit.
public final class NotifySocket: @unchecked Sendable {  // the descriptor is only read after init
    public let path: String
    private let fd: Int32

    public init(path: String) throws {
        self.path = path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0 else { throw NSError(domain: "NotifySocket", code: Int(errno)) }
    }

    /// The next datagram, or nil when none came within `timeout` seconds.
    public func receive(timeout: Double) -> String? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
    }

    /// Datagrams until one satisfies `predicate` (all of them, in order), within `timeout` seconds.
    public func receive(until predicate: (String) -> Bool, timeout: Double) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var seen: [String] = []
        while Date() < deadline {
            guard let message = receive(timeout: max(0.01, deadline.timeIntervalSinceNow)) else { break }
            seen.append(message)
            if predicate(message) { break }
        }
        return seen
    }

    deinit {
        close(fd)
        unlink(path)
    }
}
