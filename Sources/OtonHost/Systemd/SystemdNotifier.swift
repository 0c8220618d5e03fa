import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// systemd's notify protocol (`Type=notify`, sd_notify(3)) without libsystemd: one datagram of
/// `KEY=VALUE` lines to the Unix socket `$NOTIFY_SOCKET` names (a path, or `@name` in the abstract
/// namespace). Without `$NOTIFY_SOCKET` (not started by systemd) every call does nothing.
public struct SystemdNotifier: Sendable {
    public let socketPath: String?
    /// `$WATCHDOG_USEC` when it is meant for this process (`$WATCHDOG_PID` unset or ours): ping at half of it.
    public let watchdogInterval: Duration?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socketPath = path
        let forUs = environment["WATCHDOG_PID"].map { $0 == String(getpid()) } ?? true
        if path != nil, forUs, let text = environment["WATCHDOG_USEC"], let micros = Int64(text), micros > 0 {
            watchdogInterval = .microseconds(micros)
        } else {
            watchdogInterval = nil
        }
    }

    public var isActive: Bool { socketPath != nil }

    /// Sends `fields` as one datagram ("READY=1", "STATUS=…", "WATCHDOG=1"); false when it could not.
    @discardableResult
    public func notify(_ fields: [String]) -> Bool {
        guard let socketPath, !fields.isEmpty else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }  // the abstract namespace
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + (pathBytes.first == 0 ? 0 : 1))
        let message = Array((fields.joined(separator: "\n") + "\n").utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, message, message.count, Int32(MSG_NOSIGNAL), $0, length) }
        }
        return sent == message.count
    }
}
