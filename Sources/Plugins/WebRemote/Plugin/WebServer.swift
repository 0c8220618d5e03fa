import CMicroHTTPD
import Foundation
import OtonJSON
import OtonPluginKit
import Synchronization
import WebRemoteLogic

#if canImport(Glibc)
    import Glibc
#endif

/// What the server asks of the plugin, on the connections' own threads.
protocol WebServerDelegate: AnyObject, Sendable {
    /// The RequestGate's decision on a request head (its body, if any, is not read before this).
    func decide(_ request: HTTPRequest) -> RequestGate.Decision
    /// The answer to a request the gate let through, except the event channel (the server's own).
    func respond(to request: HTTPRequest, route: RequestGate.Route) -> HTTPResponse
    /// The page state as JSON and its version.
    func currentState() -> (version: UInt64, json: String)
}

/// The web remote's HTTP server: one libmicrohttpd daemon, a thread per connection (an event
/// channel's thread waits for the next update without holding up anyone), bounded in connections,
/// connection memory (request head), body and event clients (see ServerLimits). Connections that
/// have not yet sent a request head are kept apart (WaitingConnections): at most a few per
/// address and in all, each for at most `requestSeconds`, so half-open connections never lock
/// the token holder out. The bus never waits for the server: `stateChanged()` only marks the
/// event clients behind and wakes their threads.
///
/// `@unchecked Sendable`: `daemon` and `reaper` are written once in init and used once in stop(),
/// which the `stopped` Mutex lets run only once; `delegate` is written once in init; the
/// connection gate has its own lock; the event clients are the hub's (its own lock).
final class WebServer: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private(set) var port: UInt16 = 0
    private let limits: ServerLimits
    private weak var delegate: WebServerDelegate?
    private let hub = EventStreamHub()
    /// The open connections (by our id) with their sockets, and those still waiting for a head.
    private let gate: ConnectionGate
    private let stopped = Mutex(false)
    private var daemon: OpaquePointer?
    private let reaperDone = DispatchSemaphore(value: 0)

    /// Updates not sent to a slow event client (it got a later state instead). Any thread.
    var droppedUpdates: UInt64 { hub.droppedUpdates }
    /// Event clients connected now. Any thread.
    var eventClients: Int { hub.count }
    /// Connections that have not sent a request head yet. Any thread.
    var waitingConnections: Int { gate.waitingCount }

    init(address: ListenAddress, limits: ServerLimits, delegate: WebServerDelegate) throws {
        self.limits = limits
        self.delegate = delegate
        gate = ConnectionGate(limits: limits.waiting)
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = address.port.bigEndian
        guard inet_pton(AF_INET, address.host, &socketAddress.sin_addr) == 1 else {
            throw Failure(description: "config.listen: \(address.host) is not an IPv4 address")
        }
        let context = Unmanaged.passUnretained(self).toOpaque()  // stop() ends the daemon before self can go
        errno = 0
        guard
            let daemon = oton_mhd_start_threaded(
                &socketAddress, UInt32(limits.maximumConnections), UInt32(limits.requestSeconds),
                limits.connectionMemoryBytes, 512 * 1024, Self.notify, context, Self.handler, context)
        else {
            let reason = errno != 0 ? String(cString: strerror(errno)) : "libmicrohttpd could not start"
            throw Failure(description: "cannot listen on \(address): \(reason); pick another \"listen\" port in plugins.json")
        }
        self.daemon = daemon
        let bound = oton_mhd_port(daemon)
        port = bound != 0 ? bound : address.port
        let reaper = Thread { [self] in
            while !hub.sleep(seconds: 1) { gate.expire() }
            reaperDone.signal()
        }
        reaper.name = "org.oton.web-remote.reaper"
        reaper.start()
    }

    /// Ends the event channels, closes every socket and returns when every thread has ended. Only the first call acts.
    func stop() {
        let first = stopped.withLock { wasStopped in
            defer { wasStopped = true }
            return !wasStopped
        }
        guard first, let daemon else { return }
        hub.stop()
        reaperDone.wait()
        MHD_stop_daemon(daemon)
    }

    deinit { stop() }

    /// From any thread, never blocks for long.
    func stateChanged() {
        hub.stateChanged()
    }

    // MARK: connections

    /// What one TCP connection carries between libmicrohttpd's calls (one request per connection).
    ///
    /// `@unchecked Sendable`: `request` and `body` are touched only on the connection's own
    /// thread (the access handler); `id` and `fd` never change.
    private final class ClientConnection: @unchecked Sendable {
        let id: Int
        let fd: Int32
        var request: HTTPRequest?
        var body: [UInt8] = []

        init(id: Int, fd: Int32) {
            self.id = id
            self.fd = fd
        }
    }

    private func opened(fd: Int32, address: String) -> ClientConnection {
        ClientConnection(id: gate.opened(fd: fd, address: address), fd: fd)
    }

    private func closed(_ connection: ClientConnection) {
        gate.closed(connection.id)
    }

    private func headArrived(_ connection: ClientConnection) {
        gate.headArrived(connection.id)
    }

    private static let notify: MHD_NotifyConnectionCallback = { context, connection, socketContext, code in
        guard let context, let connection, let socketContext else { return }
        let server = Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue()
        if oton_mhd_is_start(code) != 0 {
            let record = server.opened(fd: oton_mhd_connection_fd(connection), address: peerAddress(connection))
            socketContext.pointee = Unmanaged.passRetained(record).toOpaque()
        } else if let raw = socketContext.pointee {
            socketContext.pointee = nil
            server.closed(Unmanaged<ClientConnection>.fromOpaque(raw).takeRetainedValue())
        }
    }

    /// The peer's IPv4 address as text ("" when unknown: such peers share one bound).
    private static func peerAddress(_ connection: OpaquePointer) -> String {
        ConnectionGate.peerAddress(oton_mhd_connection_address(connection))
    }

    // MARK: requests

    private static let handler: MHD_AccessHandlerCallback = { context, connection, url, method, _, uploadData, uploadSize, requestContext in
        guard let context, let connection, let requestContext, let uploadSize,
            let raw = oton_mhd_socket_context(connection)
        else { return .NO }
        let server = Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue()
        let client = Unmanaged<ClientConnection>.fromOpaque(raw).takeUnretainedValue()
        if requestContext.pointee == nil {
            requestContext.pointee = raw  // marks the head as seen; the connection record holds the rest
            server.headArrived(client)
            return server.judge(connection, client, method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "")
        }
        // An action's body, in pieces.
        if uploadSize.pointee > 0 {
            if let uploadData, client.body.count + uploadSize.pointee <= server.limits.maximumBodyBytes {
                client.body += UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee)
            }
            uploadSize.pointee = 0
            return .YES
        }
        guard var request = client.request, let delegate = server.delegate else { return .NO }
        request.body = client.body
        return delegate.respond(to: request, route: .action).queue(on: connection)
    }

    /// The head is in: refuse it, serve it, wait for an action's body, or open the event channel.
    private func judge(_ connection: OpaquePointer, _ client: ClientConnection, method: String, path: String) -> MHD_Result {
        let request: HTTPRequest
        do {
            request = try HTTPRequest.assemble(
                method: method, path: path, headers: Self.values(connection, .HEADER_KIND),
                query: Self.values(connection, .GET_ARGUMENT_KIND), maximumBodyBytes: limits.maximumBodyBytes)
        } catch {
            return HTTPResponse.text(status: error.status, error.message).queue(on: connection)
        }
        guard let delegate else { return .NO }
        switch delegate.decide(request) {
        case let .reject(status, message):
            return HTTPResponse.text(status: status, message).queue(on: connection)
        case .serve(.action):
            client.request = request
            return .YES
        case .serve(.events):
            return openEventStream(connection, client)
        case let .serve(route):
            return delegate.respond(to: request, route: route).queue(on: connection)
        }
    }

    /// Every value of one kind (headers, query arguments) in the order they came.
    private static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(String, String)] {
        final class Collected {
            var pairs: [(String, String)] = []
        }
        let collected = Collected()
        withExtendedLifetime(collected) {
            _ = MHD_get_connection_values(
                connection, kind,
                { context, _, key, value in
                    guard let context, let key else { return .YES }
                    let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
                    collected.pairs.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
                    return .YES
                }, Unmanaged.passUnretained(collected).toOpaque())
        }
        return collected.pairs
    }

    // MARK: the event channel

    /// Server-Sent Events: the current state at once, then each new one, and a comment line every
    /// `heartbeatSeconds`. A client that reads nothing for `stuckStreamSeconds` is disconnected.
    private func openEventStream(_ connection: OpaquePointer, _ client: ClientConnection) -> MHD_Result {
        let stream = EventStream(fd: client.fd)
        guard hub.register(stream, maximum: limits.maximumEventClients) else {
            return HTTPResponse.text(status: 503, "too many event clients (\(limits.maximumEventClients)); close another page").queue(on: connection)
        }
        // A small kernel buffer, so what a client that does not read holds is bounded.
        var sendBuffer = Int32(16 * 1024)
        setsockopt(client.fd, SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
        _ = oton_mhd_set_timeout(connection, UInt32(limits.stuckStreamSeconds))
        let context = Unmanaged.passRetained(StreamContext(server: self, stream: stream))
        guard let response = MHD_create_response_from_callback(UInt64.max, 16 * 1024, Self.reader, context.toOpaque(), Self.release) else {
            context.release()
            hub.unregister(stream)
            return .NO
        }
        defer { MHD_destroy_response(response) }
        return HTTPResponse.queue(response, status: 200, contentType: "text/event-stream", on: connection)
    }

    /// What an event channel's content callback needs; retained by its libmicrohttpd response.
    private final class StreamContext: Sendable {
        let server: WebServer
        let stream: EventStream
        init(server: WebServer, stream: EventStream) {
            self.server = server
            self.stream = stream
        }
    }

    private static let reader: MHD_ContentReaderCallback = { context, _, buffer, maximum in
        guard let context, let buffer, maximum > 0 else { return -2 }
        let own = Unmanaged<StreamContext>.fromOpaque(context).takeUnretainedValue()
        let stream = own.stream, server = own.server
        while stream.outgoing.isEmpty {
            switch server.hub.waitForUpdate(stream, heartbeatSeconds: server.limits.heartbeatSeconds) {
            case .update:
                guard let delegate = server.delegate else { return -2 }
                stream.outgoing = HTTPResponse.event(delegate.currentState().json)
            case .heartbeat:
                stream.outgoing = Array(": ping\n\n".utf8)
            case .stop:
                return -2  // MHD_CONTENT_READER_END_WITH_ERROR: the connection closes
            }
        }
        let count = min(maximum, stream.outgoing.count)
        stream.outgoing.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: count) }
        stream.outgoing.removeFirst(count)
        return count
    }

    private static let release: MHD_ContentReaderFreeCallback = { context in
        guard let context else { return }
        let own = Unmanaged<StreamContext>.fromOpaque(context).takeRetainedValue()
        own.server.hub.unregister(own.stream)
    }
}
