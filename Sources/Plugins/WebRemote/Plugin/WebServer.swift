import OtonJSON
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import WebRemoteLogic

/// What the server asks of the plugin. Called on the server's own thread.
protocol WebServerDelegate: AnyObject, Sendable {
    /// The answer to one complete request, or nil to turn the connection into an event stream.
    func respond(to request: HTTPRequest, isEventStreamAllowed: Bool) -> [UInt8]?
    /// The page state as JSON and its version.
    func currentState() -> (version: UInt64, json: String)
}

/// A small HTTP/1.1 server on one thread of its own: non-blocking sockets under poll(), bounded
/// in connections, request size and queued bytes per client (see ServerLimits). The bus never
/// waits for it: `stateChanged()` only writes a byte to a pipe. A client that does not read loses
/// updates (counted in `droppedUpdates`) and gets the current state when it catches up.
final class WebServer: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private final class Connection {
        let fd: Int32
        let opened: Int64
        var input: [UInt8] = []
        var output: [UInt8] = []
        var isEventStream = false
        var sentVersion: UInt64 = 0
        var isStale = false
        var closeWhenFlushed = false
        var lastWrite: Int64

        init(fd: Int32, now: Int64) {
            self.fd = fd
            opened = now
            lastWrite = now
        }
    }

    let port: UInt16
    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let limits: ServerLimits
    private weak var delegate: WebServerDelegate?
    private var connections: [Int32: Connection] = [:]
    private let stopping = Atomic()
    private let finished = DispatchSemaphore(value: 0)
    private let counters = NSLock()
    private var _droppedUpdates: UInt64 = 0
    private var _eventClients = 0

    /// Updates not sent to a slow event client (it got a later state instead). Any thread.
    var droppedUpdates: UInt64 { counters.withLock { _droppedUpdates } }
    /// Event clients connected now. Any thread.
    var eventClients: Int { counters.withLock { _eventClients } }

    init(address: ListenAddress, limits: ServerLimits, delegate: WebServerDelegate) throws {
        self.limits = limits
        self.delegate = delegate
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "cannot create a socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = address.port.bigEndian
        inet_pton(AF_INET, address.host, &socketAddress.sin_addr)
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "cannot listen on \(address): \(reason); pick another \"listen\" port in plugins.json")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = UInt16(bigEndian: actual.sin_port)
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            close(fd)
            throw Failure(description: "cannot create a wake pipe: \(String(cString: strerror(errno)))")
        }
        for end in pipeEnds { Self.makeNonBlocking(end) }
        listener = fd
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
    }

    func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "org.oton.web-remote"
        thread.start()
    }

    /// Stops the thread and closes every socket; returns when the thread is gone.
    func stop() {
        stopping.set()
        stateChanged()
        finished.wait()
        for connection in connections.values { close(connection.fd) }
        connections.removeAll()
        close(listener)
        close(wakeRead)
        close(wakeWrite)
    }

    /// From any thread, never blocks: a full pipe already means "wake up".
    func stateChanged() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private static func now() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000_000) }

    private func run() {
        var lastHeartbeat = Self.now()
        while !stopping.isSet {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            for connection in connections.values {
                var events = Int16(POLLIN)
                if !connection.output.isEmpty { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: connection.fd, events: events, revents: 0))
            }
            let ready = poll(&fds, nfds_t(fds.count), 1000)
            if ready < 0, errno != EINTR { break }
            if stopping.isSet { break }
            if fds[1].revents != 0 { drainWakePipe() }
            if fds[0].revents & Int16(POLLIN) != 0 { acceptAll() }
            for entry in fds.dropFirst(2) where entry.revents != 0 {
                guard let connection = connections[entry.fd] else { continue }
                if entry.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { readFrom(connection) }
                if connections[entry.fd] != nil, entry.revents & Int16(POLLOUT) != 0 { flush(connection) }
            }
            broadcast()
            let streams = connections.values.filter(\.isEventStream).count
            counters.withLock { _eventClients = streams }
            let now = Self.now()
            expire(now: now)
            if now - lastHeartbeat >= Int64(limits.heartbeatSeconds) {
                lastHeartbeat = now
                for connection in connections.values where connection.isEventStream { enqueue(Array(": ping\n\n".utf8), to: connection) }
            }
        }
    }

    private static func makeNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    private func drainWakePipe() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(wakeRead, &buffer, buffer.count) > 0 {}
    }

    private func acceptAll() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            Self.makeNonBlocking(fd)
            guard connections.count < limits.maximumConnections else {
                let refusal = HTTPResponse.text(status: 503, "too many connections; try again later")
                _ = refusal.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(fd)
                continue
            }
            connections[fd] = Connection(fd: fd, now: Self.now())
        }
    }

    private func readFrom(_ connection: Connection) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(connection.fd, &buffer, buffer.count)
        if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) {
            drop(connection)
            return
        }
        guard count > 0, !connection.isEventStream, !connection.closeWhenFlushed else { return } // an event client's words are ignored
        connection.input += buffer[0 ..< count]
        switch HTTPRequestParser().parse(connection.input) {
        case .incomplete:
            break
        case let .refused(status, message):
            respond(connection, HTTPResponse.text(status: status, message))
        case let .complete(request, _):
            connection.input = []
            let eventClients = connections.values.filter(\.isEventStream).count
            guard let delegate else { return drop(connection) }
            if let reply = delegate.respond(to: request, isEventStreamAllowed: eventClients < limits.maximumEventClients) {
                respond(connection, reply)
            } else {
                connection.isEventStream = true
                // A small kernel buffer, so what a non-reading client holds is bounded by our queue.
                var sendBuffer = Int32(16 * 1024)
                setsockopt(connection.fd, SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
                let (version, json) = delegate.currentState()
                connection.sentVersion = version
                enqueue(HTTPResponse.eventStreamHead + HTTPResponse.event(json), to: connection)
            }
        }
    }

    private func respond(_ connection: Connection, _ bytes: [UInt8]) {
        connection.closeWhenFlushed = true
        connection.output = bytes // a response is sent whole: it is not subject to the event queue bound
        flush(connection)
    }

    /// Sends every event client that is behind the current state, within its queue's bound.
    private func broadcast() {
        // Rendering the state costs far more than an event: with no page open there is nothing to
        // render for (an event storm rendered it once per event, 12 ms each in a debug build).
        guard let delegate, connections.values.contains(where: \.isEventStream) else { return }
        let (version, json) = delegate.currentState()
        var message: [UInt8]?
        for connection in connections.values where connection.isEventStream && connection.sentVersion != version {
            if message == nil { message = HTTPResponse.event(json) }
            if connection.output.count + message!.count <= limits.maximumQueuedBytes {
                enqueue(message!, to: connection)
                connection.sentVersion = version
                connection.isStale = false
            } else if !connection.isStale || connection.sentVersion != version {
                connection.isStale = true
                connection.sentVersion = version
                counters.withLock { _droppedUpdates += 1 }
            }
        }
    }

    private func enqueue(_ bytes: [UInt8], to connection: Connection) {
        guard connection.output.count + bytes.count <= limits.maximumQueuedBytes else { return }
        connection.output += bytes
        flush(connection)
    }

    private func flush(_ connection: Connection) {
        while !connection.output.isEmpty {
            let sent = connection.output.withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                connection.output.removeFirst(sent)
                connection.lastWrite = Self.now()
            } else {
                if sent < 0, errno != EAGAIN, errno != EINTR { drop(connection) }
                return
            }
        }
        if connection.closeWhenFlushed {
            shutdown(connection.fd, Int32(SHUT_WR))
            drop(connection)
        } else if connection.isStale, let delegate {
            // Caught up after losing updates: send the state as it is now.
            let (version, json) = delegate.currentState()
            connection.isStale = false
            connection.sentVersion = version
            connection.output = HTTPResponse.event(json)
            flush(connection)
        }
    }

    /// Closes requests that never completed, and event clients stuck with a full queue.
    private func expire(now: Int64) {
        for connection in Array(connections.values) {
            let tooSlowRequest = !connection.isEventStream && now - connection.opened > Int64(limits.requestSeconds)
            let stuckStream = connection.isEventStream && !connection.output.isEmpty && now - connection.lastWrite > Int64(4 * limits.heartbeatSeconds)
            if tooSlowRequest || stuckStream { drop(connection) }
        }
    }

    private func drop(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.fd) != nil else { return }
        close(connection.fd)
    }
}

/// A flag set once, read from another thread.
final class Atomic: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
