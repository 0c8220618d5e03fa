import Foundation
import OtonJSON
import SnapcastLogic

#if canImport(Glibc)
    import Glibc
#endif

/// Where the stream's control script (oton-snapcast-control, which snapserver 0.26 starts for a
/// source with `controlscript=`) connects to learn the track. On a thread of its own: non-blocking
/// sockets under poll(), at most `maximumScripts` connections (a new one closes the oldest, so idle
/// connections cannot lock the script out; one that has not named its stream within
/// `identifySeconds` is closed), lines of at most 16 KiB in, at most `maximumQueuedBytes` waiting
/// out (a script that stops reading is disconnected). Each script gets
/// Plugin.Stream.Ready and the current properties when it connects, and the properties again on
/// every change; snapserver's GetProperties is answered, its Control and SetProperty refused.
///
/// `@unchecked Sendable`: `lock` guards `properties`, `version` and `stopping`; the sockets and
/// connections belong to the listener's thread alone.
final class MetadataListener: @unchecked Sendable {
    static let maximumScripts = 4
    static let maximumQueuedBytes = 256 * 1024
    static let identifySeconds: UInt64 = 10

    /// What the listener tells its owner, from its thread.
    enum Change: Sendable {
        case scriptConnected(stream: String)
        case wrongStream(String)
        case scriptRefused(String)
    }

    private final class Connection {
        let fd: Int32
        var splitter = LineSplitter(limit: ControlScriptProtocol.maximumLineBytes)
        var output: [UInt8] = []
        var sentVersion: UInt64 = 0
        var stream: String?
        let opened = DispatchTime.now().uptimeNanoseconds

        init(fd: Int32) { self.fd = fd }
    }

    let port: UInt16
    private let stream: String
    private let listener: Int32
    private let wake: (read: Int32, write: Int32)
    private let changed: @Sendable (Change) -> Void
    private let lock = NSLock()
    private var properties = StreamProperties()
    private var version: UInt64 = 1
    private var stopping = false
    private var scripts = 0
    private let finished = DispatchSemaphore(value: 0)
    private var connections: [Int32: Connection] = [:]

    init(address: ListenAddress, stream: String, changed: @escaping @Sendable (Change) -> Void) throws {
        (listener, port) = try Sockets.listen(host: address.host, port: address.port)
        self.stream = stream
        self.changed = changed
        do {
            wake = try Sockets.wakePipe()
        } catch {
            close(listener)
            throw error
        }
    }

    /// Closes the sockets of a listener that was never started (its owner failed to start).
    func discard() {
        close(listener)
        close(wake.read)
        close(wake.write)
    }

    /// The scripts connected now that named their stream (any thread).
    var connectedScripts: Int { lock.withLock { scripts } }

    func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "org.oton.snapcast.metadata"
        thread.start()
    }

    func stop() {
        lock.withLock { stopping = true }
        Sockets.wake(wake.write)
        finished.wait()
        for connection in connections.values { close(connection.fd) }
        connections.removeAll()
        close(listener)
        close(wake.read)
        close(wake.write)
    }

    /// From any thread: the properties to show from now on.
    func update(_ change: (inout StreamProperties) -> Void) {
        let changed: Bool = lock.withLock {
            var next = properties
            change(&next)
            guard next != properties else { return false }
            properties = next
            version += 1
            return true
        }
        if changed { Sockets.wake(wake.write) }
    }

    private var current: (StreamProperties, UInt64, Bool) { lock.withLock { (properties, version, stopping) } }

    private func run() {
        while true {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            for connection in connections.values {
                fds.append(pollfd(fd: connection.fd, events: Int16(POLLIN) | (connection.output.isEmpty ? 0 : Int16(POLLOUT)), revents: 0))
            }
            let ready = poll(&fds, nfds_t(fds.count), 1000)
            if ready < 0, errno != EINTR { break }
            let (properties, version, isStopping) = current
            if isStopping { break }
            if fds[1].revents != 0 { Sockets.drain(wake.read) }
            if fds[0].revents & Int16(POLLIN) != 0 { acceptAll(properties, version) }
            for entry in fds.dropFirst(2) where entry.revents != 0 {
                guard let connection = connections[entry.fd] else { continue }
                if entry.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { read(connection, properties) }
                if connections[entry.fd] != nil, entry.revents & Int16(POLLOUT) != 0 { flush(connection) }
            }
            for connection in Array(connections.values) where connection.sentVersion != version {
                connection.sentVersion = version
                enqueue(ControlScriptProtocol.propertiesLine(properties), to: connection)
            }
            let now = DispatchTime.now().uptimeNanoseconds
            for connection in Array(connections.values)
            where connection.stream == nil && now - connection.opened > Self.identifySeconds * 1_000_000_000 {
                changed(.scriptRefused("it did not name its stream within \(Self.identifySeconds) s"))
                drop(connection)
            }
            let count = connections.values.filter { $0.stream != nil }.count
            lock.withLock { scripts = count }
        }
    }

    private func acceptAll(_ properties: StreamProperties, _ version: UInt64) {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            Sockets.makeNonBlocking(fd)
            if connections.count >= Self.maximumScripts, let oldest = connections.values.min(by: { $0.opened < $1.opened }) {
                changed(.scriptRefused("more than \(Self.maximumScripts) connections at once; the oldest is closed"))
                drop(oldest)
            }
            let connection = Connection(fd: fd)
            connection.sentVersion = version
            connections[fd] = connection
            enqueue(ControlScriptProtocol.readyLine, to: connection)
            enqueue(ControlScriptProtocol.propertiesLine(properties), to: connection)
        }
    }

    private func read(_ connection: Connection, _ properties: StreamProperties) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = Glibc.read(connection.fd, &buffer, buffer.count)
        if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return drop(connection) }
        guard count > 0 else { return }
        let lines: [String]
        do {
            lines = try connection.splitter.feed(buffer[0..<count])
        } catch {
            changed(.scriptRefused("a line longer than \(ControlScriptProtocol.maximumLineBytes) bytes"))
            return drop(connection)
        }
        for line in lines where !line.isEmpty && connections[connection.fd] === connection {
            switch ControlScriptProtocol.read(line, properties: properties) {
            case let .stream(name):
                guard name == stream else {
                    changed(.wrongStream(name))
                    return drop(connection)
                }
                if connection.stream == nil { changed(.scriptConnected(stream: name)) }
                connection.stream = name
            case let .request(reply):
                enqueue(reply, to: connection)
            case .ignored:
                break
            case let .invalid(reason):
                changed(.scriptRefused(reason))
                return drop(connection)
            }
        }
    }

    private func enqueue(_ line: String, to connection: Connection) {
        guard connection.output.count + line.utf8.count + 1 <= Self.maximumQueuedBytes else {
            changed(.scriptRefused("it stopped reading"))
            return drop(connection)
        }
        connection.output += Array(line.utf8) + [UInt8(ascii: "\n")]
        flush(connection)
    }

    private func flush(_ connection: Connection) {
        while !connection.output.isEmpty {
            let sent = connection.output.withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                connection.output.removeFirst(sent)
            } else {
                if sent < 0, errno != EAGAIN, errno != EINTR { drop(connection) }
                return
            }
        }
    }

    private func drop(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.fd) != nil else { return }
        close(connection.fd)
    }
}
