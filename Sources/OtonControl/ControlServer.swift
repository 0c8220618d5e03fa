import Foundation
import Logging
import OtonEvents
import OtonJSON
import OtonSupport

/// The control socket of a running oton: one JSON request per line, one JSON
/// reply per line (docs/control.md). Each client has its own thread, so a
/// client that says nothing, sends garbage or an oversized line harms only
/// itself; playback is only ever touched through the player's requests.
/// Each request line must be complete within `requestSeconds` of the server
/// starting to wait for it, however slowly its bytes trickle in, so idle or
/// trickling clients give their slot back.
/// Concurrency: the lets are immutable; `clients`, `threads`, `acceptEnded` and `closed` are guarded by
/// `lock` (an NSCondition, also waited on at close).
public final class ControlServer: @unchecked Sendable {
    public static let maximumLineBytes = ControlRequest.maximumLineBytes
    public static let requestSeconds = 15
    public static let maximumClients = 32

    public let path: String
    private let commands: any ControlHandler
    private let bus: PluginBus
    private let logger: Logger
    private let listener: Int32
    /// Guards `clients`, `threads` and `closed`; signalled when a thread ends.
    private let lock = NSCondition()
    private var clients: Set<Int32> = []
    /// The accept thread and client threads still running; close() waits for them.
    private var threads = 0
    /// The accept loop ended; whoever sees the other side's flag second closes the listener.
    private var acceptEnded = false
    private var closed = false
    /// How long close() waits for client threads. Short on purpose: a thread inside a stuck plugin's
    /// command would otherwise hold the exit for the command timeout (10 s), past the shutdown deadline;
    /// such a thread only waits for its reply, so leaving it behind is harmless.
    public static let closeWaitSeconds = 2.0

    /// A server whose requests `handler` answers; `subscribe` streams `bus`'s events.
    package init(instance: String, bus: PluginBus, handler: any ControlHandler, logger: Logger = Logger(label: "oton.control")) throws {
        guard ControlSocketPath.isValidInstance(instance) else {
            throw ControlSocketPath.Refused(
                description: tr("instance name \"{instance}\" may use only letters, digits, '.', '_' and '-'", ["instance": instance]))
        }
        let directory = ControlSocketPath.directory()
        try ControlSocketPath.prepare(directory)
        path = directory + "/" + instance + ".sock"
        if FileManager.default.fileExists(atPath: path) {
            guard !UnixSocket.isLive(path) else {
                throw ControlSocketPath.Refused(
                    description: tr("another oton is running as instance \"{instance}\" ({path}); pass --instance NAME", ["instance": instance, "path": path]))
            }
            unlink(path)
        }
        listener = try UnixSocket.listen(at: path)
        self.bus = bus
        self.logger = logger
        commands = handler
        threads = 1
        let thread = Thread { [self] in
            acceptLoop(); threadEnded()
        }
        thread.name = "oton.control.accept"
        thread.start()
        logger.info("control socket: \(path)")
    }

    /// Stops accepting, disconnects every client, removes the socket file and waits until the
    /// accept thread and every client thread have ended (at most `closeWaitSeconds`; returns
    /// false, and logs, when one is still busy then). A second call only waits.
    @discardableResult
    public func close() -> Bool {
        lock.lock()
        let first = !closed
        closed = true
        if first {
            // Under the lock: a client thread closes its descriptor only after leaving the set,
            // and the accept thread closes the listener only under it, so no number here can
            // have been reused by another open in the meantime.
            for fd in clients { shutdown(fd, Int32(SHUT_RDWR)) }
            // Wakes accept(); the accept thread closes the listener once it let go of it.
            if acceptEnded { Glibc.close(listener) } else { shutdown(listener, Int32(SHUT_RDWR)) }
        }
        lock.unlock()
        if first { unlink(path) }
        let deadline = Date().addingTimeInterval(Self.closeWaitSeconds)
        lock.lock()
        while threads > 0 && lock.wait(until: deadline) {}
        let left = threads
        lock.unlock()
        if left > 0 {
            logger.warning(
                "\(tr("control socket: {count} client threads still busy after {seconds} s; not waiting longer", ["count": String(left), "seconds": String(Int(Self.closeWaitSeconds))]))"
            )
            return false
        }
        return true
    }

    private func threadEnded() {
        lock.lock()
        threads -= 1
        lock.broadcast()
        lock.unlock()
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                let reason = errno
                lock.lock()
                acceptEnded = true
                let closing = closed
                if closing { Glibc.close(listener) }
                lock.unlock()
                if !closing {
                    logger.error(
                        "\(tr("control socket: accept failed ({reason}); no new clients until restart", ["reason": String(cString: strerror(reason))]))")
                }
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // children (clipboard tools, …) must not inherit clients
            lock.lock()
            let full = clients.count >= Self.maximumClients || closed
            if !full { clients.insert(fd); threads += 1 }
            lock.unlock()
            if full {
                _ = UnixSocket.writeAll(fd, ControlReply.failure("too many control clients").line(id: nil))
                Glibc.close(fd)
                continue
            }
            let thread = Thread { [self] in
                serve(fd); threadEnded()
            }
            thread.name = "oton.control.client"
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer {
            lock.lock(); clients.remove(fd); lock.unlock()
            Glibc.close(fd)
        }
        UnixSocket.setSendTimeout(fd, seconds: 5)
        var reader = LineReader(fd: fd, limit: Self.maximumLineBytes)
        while true {
            switch reader.next(deadline: .now + .seconds(Self.requestSeconds)) {
            case .closed:
                return
            case .timedOut:
                _ = UnixSocket.writeAll(fd, ControlReply.failure("no complete request line within \(Self.requestSeconds) s; closing").line(id: nil))
                return
            case .tooLong:
                _ = UnixSocket.writeAll(fd, ControlReply.failure("request line over \(Self.maximumLineBytes / 1024) KiB; closing").line(id: nil))
                return
            case let .line(line):
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
                let request: ControlRequest
                do {
                    request = try ControlRequest.parse(line)
                } catch {
                    guard UnixSocket.writeAll(fd, ControlReply.failure(error.message).line(id: error.id)) else { return }
                    continue
                }
                if request.name == "subscribe" {
                    stream(to: fd, id: request.id)
                    return
                }
                let written = UnixSocket.writeAll(fd, commands.run(request).line(id: request.id))
                commands.afterReply(request)
                guard written else { return }
            }
        }
    }

    /// Sends the greeting (``ControlReply/subscribedLine(id:)``), then every bus event as
    /// `{"event": {…}}` lines until the client goes away.
    private func stream(to fd: Int32, id: JSONValue?) {
        guard UnixSocket.writeAll(fd, ControlReply.subscribedLine(id: id)) else { return }
        let subscriber = SocketEventStream(fd: fd)
        let subscriberID = "oton.control.subscriber.\(fd).\(Clock.monotonicNanoseconds())"
        let subscription = BusSubscription(
            bus: bus, id: subscriberID, kinds: .all, limits: Mailbox.Limits(events: 4096, mediaBytes: 0),
            consumer: subscriber)
        UnixSocket.setReceiveTimeout(fd, seconds: 0)  // a subscriber may stay silent
        var byte: UInt8 = 0
        while recv(fd, &byte, 1, 0) > 0 && !subscriber.isGone {}
        subscription.close(drain: false)
    }
}

/// Writes bus events to a subscribed client; a client that stops reading is dropped.
private final class SocketEventStream: MailboxConsumer, @unchecked Sendable {
    private let fd: Int32
    private let lock = NSLock()
    private var gone = false

    init(fd: Int32) { self.fd = fd }

    var isGone: Bool {
        lock.lock(); defer { lock.unlock() }
        return gone
    }

    func deliver(event: FrozenEvent) {
        guard !isGone else { return }
        var line = EventLineWriter.line(for: event.event)
        line.removeLast()  // the newline
        if !UnixSocket.writeAll(fd, Data(("{\"event\":" + line + "}\n").utf8)) {
            lock.lock(); gone = true; lock.unlock()
            shutdown(fd, Int32(SHUT_RDWR))
        }
    }

    func deliver(media: MediaPacket, extraFlags: UInt32) {}

    func deliverDropNotice(_ counts: Mailbox.DropCounts) {
        _ = UnixSocket.writeAll(fd, Data(("{\"event\":" + BusSubscription.droppedLine(source: "oton.control", counts) + "}\n").utf8))
    }
}
