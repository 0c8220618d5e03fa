import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One event-channel client: whether an update waits for it, and the bytes of the event being sent.
///
/// `@unchecked Sendable`: `hasUpdate` is guarded by the hub's `condition`; `outgoing` is touched
/// only on the connection's own libmicrohttpd thread (its content callback); `fd` never changes.
final class EventStream: @unchecked Sendable {
    let fd: Int32
    var hasUpdate = true  // the first call sends the current state
    var outgoing: [UInt8] = []

    init(fd: Int32) { self.fd = fd }
}

/// The event clients and the one condition their threads wait on. The bus never waits here:
/// `stateChanged()` marks each client as behind and wakes them. A client still behind from the
/// previous update (its thread is stuck sending to a client that does not read) loses that update,
/// counted in `droppedUpdates`, and gets the state as it then is once it catches up.
///
/// `@unchecked Sendable`: every variable is guarded by `condition`.
final class EventStreamHub: @unchecked Sendable {
    enum Wake {
        case update, heartbeat, stop
    }

    private let condition = NSCondition()
    private var streams: [ObjectIdentifier: EventStream] = [:]
    private var stopping = false
    private var dropped: UInt64 = 0

    var count: Int { condition.withLock { streams.count } }
    var droppedUpdates: UInt64 { condition.withLock { dropped } }

    /// Adds a client unless there are `maximum` already or the server is stopping.
    func register(_ stream: EventStream, maximum: Int) -> Bool {
        condition.withLock {
            guard !stopping, streams.count < maximum else { return false }
            streams[ObjectIdentifier(stream)] = stream
            return true
        }
    }

    func unregister(_ stream: EventStream) {
        condition.withLock { _ = streams.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    /// From any thread, never blocks for long: marks every client behind and wakes them.
    func stateChanged() {
        condition.withLock {
            for stream in streams.values {
                if stream.hasUpdate { dropped += 1 } else { stream.hasUpdate = true }
            }
            condition.broadcast()
        }
    }

    /// Waits on the client's thread until an update is due, `heartbeatSeconds` pass, the server
    /// stops, or the client has gone (looked at once a second: a closed page frees its slot).
    func waitForUpdate(_ stream: EventStream, heartbeatSeconds: Int) -> Wake {
        let heartbeat = Date().addingTimeInterval(TimeInterval(heartbeatSeconds))
        condition.lock()
        defer { condition.unlock() }
        while true {
            if stopping { return .stop }
            if stream.hasUpdate {
                stream.hasUpdate = false
                return .update
            }
            if Date() >= heartbeat { return .heartbeat }
            if !condition.wait(until: min(heartbeat, Date().addingTimeInterval(1))), Self.peerClosed(stream.fd) { return .stop }
        }
    }

    /// Sleeps up to `seconds`; true when the server is stopping.
    func sleep(seconds: TimeInterval) -> Bool {
        condition.withLock {
            if !stopping { _ = condition.wait(until: Date().addingTimeInterval(seconds)) }
            return stopping
        }
    }

    /// Wakes every waiting thread for good.
    func stop() {
        condition.withLock {
            stopping = true
            condition.broadcast()
        }
    }

    /// True when the peer has closed or reset its end (a read would return end of file or an error).
    private static func peerClosed(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }
}
