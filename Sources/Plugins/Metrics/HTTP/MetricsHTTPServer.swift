import CMicroHTTPD
import Foundation
import MetricsLogic
import OtonJSON
import OtonPluginKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One libmicrohttpd daemon bound to one address: a single internal poll() thread answers
/// GET /metrics with `render()`'s text and anything else with 404 or 405 (see MetricsRoute).
/// The bounds are libmicrohttpd's own (connection limit, idle timeout, per-connection memory) and
/// the web remote's rules for connections still sending their head (ConnectionGate): a reaper
/// thread shuts down those that are late, and a new connection pushes out the oldest waiting one.
///
/// `@unchecked Sendable`: `daemon` and `context` are written once in init and read once in
/// stop(), which the `stopped` Mutex lets run only once; libmicrohttpd serialises its own thread.
public final class MetricsHTTPServer: SharedListener, @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// What the daemon's thread calls; retained for as long as the daemon runs.
    private final class Responder: @unchecked Sendable {  // `listen` is set once, before the daemon answers
        let render: @Sendable () -> String
        let check: @Sendable (MetricsRoute) -> HealthVerdict?
        var listen: ListenAddress
        let gate: ConnectionGate
        init(
            _ render: @escaping @Sendable () -> String, check: @escaping @Sendable (MetricsRoute) -> HealthVerdict?, listen: ListenAddress,
            gate: ConnectionGate
        ) {
            self.render = render
            self.check = check
            self.listen = listen
            self.gate = gate
        }
    }

    public let port: UInt16
    private let daemon: OpaquePointer
    private let context: Unmanaged<Responder>
    private let stopped = Mutex(false)
    private let reaperStop = DispatchSemaphore(value: 0)
    private let reaperDone = DispatchSemaphore(value: 0)
    /// Connections still sending their request head. Any thread.
    public var waitingConnections: Int { context.takeUnretainedValue().gate.waitingCount }

    /// `check` answers /healthz and /readyz (nil: 404, not served).
    public init(
        address: ListenAddress, limits: ServerLimits = ServerLimits(), check: @escaping @Sendable (MetricsRoute) -> HealthVerdict? = { _ in nil },
        render: @escaping @Sendable () -> String
    ) throws {
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = address.port.bigEndian
        guard inet_pton(AF_INET, address.host, &socketAddress.sin_addr) == 1 else {
            throw Failure(description: "config.listen: \(address.host) is not an IPv4 address")
        }
        let gate = ConnectionGate(limits: limits.waiting)
        let context = Unmanaged.passRetained(Responder(render, check: check, listen: address, gate: gate))
        errno = 0
        guard
            let daemon = oton_mhd_start_notified(
                &socketAddress, UInt32(limits.maximumConnections), UInt32(limits.idleSeconds),
                limits.connectionMemoryBytes, Self.notify, context.toOpaque(),
                Self.handler, context.toOpaque())
        else {
            let reason = errno != 0 ? String(cString: strerror(errno)) : "libmicrohttpd could not start"
            context.release()
            throw Failure(description: "cannot listen on \(address): \(reason); pick another \"listen\" port in plugins.json")
        }
        self.daemon = daemon
        self.context = context
        let bound = oton_mhd_port(daemon)
        port = bound != 0 ? bound : address.port
        context.takeUnretainedValue().listen = ListenAddress(host: address.host, port: port)  // port 0 asked: the one it got
        let reaper = Thread { [reaperStop, reaperDone] in
            while reaperStop.wait(timeout: .now() + 1) == .timedOut { gate.expire() }
            reaperDone.signal()
        }
        reaper.name = "org.oton.metrics.reaper"
        reaper.start()
    }

    /// Closes the socket and returns when the daemon's thread has ended. Only the first call acts.
    public func stop() {
        let first = stopped.withLock { wasStopped in
            defer { wasStopped = true }
            return !wasStopped
        }
        guard first else { return }
        reaperStop.signal()
        reaperDone.wait()
        MHD_stop_daemon(daemon)
        context.release()
    }

    deinit { stop() }

    /// Each connection's start and end, on the daemon's thread: its id in the gate is its socket context (id + 1).
    private static let notify: MHD_NotifyConnectionCallback = { context, connection, socketContext, code in
        guard let context, let connection, let socketContext else { return }
        let gate = Unmanaged<Responder>.fromOpaque(context).takeUnretainedValue().gate
        if oton_mhd_is_start(code) != 0 {
            let id = gate.opened(fd: oton_mhd_connection_fd(connection), address: ConnectionGate.peerAddress(oton_mhd_connection_address(connection)))
            socketContext.pointee = UnsafeMutableRawPointer(bitPattern: id + 1)
        } else if let raw = socketContext.pointee {
            socketContext.pointee = nil
            gate.closed(Int(bitPattern: raw) - 1)
        }
    }

    /// libmicrohttpd's access handler: called on the daemon's thread once the request head is in.
    private static let handler: MHD_AccessHandlerCallback = { context, connection, url, method, _, _, _, _ in
        guard let context, let connection else { return .NO }
        let responder = Unmanaged<Responder>.fromOpaque(context).takeUnretainedValue()
        if let raw = oton_mhd_socket_context(connection) { responder.gate.headArrived(Int(bitPattern: raw) - 1) }
        let host = MHD_lookup_connection_value(connection, .HEADER_KIND, "Host").map { String(cString: $0) }
        let route = MetricsRoute.decide(
            method: method.map { String(cString: $0) } ?? "", url: url.map { String(cString: $0) } ?? "",
            host: host, listen: responder.listen)
        switch route {
        case .metrics:
            let text = responder.render()
            return respond(connection, status: 200, contentType: Exposition.contentType, body: text)
        case .health, .readiness:
            guard let verdict = responder.check(route) else {
                return respond(connection, status: 404, contentType: "text/plain; charset=utf-8", body: "not found\n")
            }
            return respond(connection, status: verdict.status, contentType: "application/json", body: verdict.body)
        case let .refuse(status, message):
            return respond(
                connection, status: status, contentType: "text/plain; charset=utf-8", body: message + "\n",
                allow: status == 405 ? "GET, HEAD" : nil)
        }
    }

    private static func respond(_ connection: OpaquePointer, status: Int, contentType: String, body: String, allow: String? = nil) -> MHD_Result {
        var bytes = Array(body.utf8)
        guard
            let response = bytes.withUnsafeMutableBytes({
                MHD_create_response_from_buffer($0.count, $0.baseAddress, .RESPMEM_MUST_COPY)
            })
        else { return .NO }
        defer { MHD_destroy_response(response) }
        MHD_add_response_header(response, "Content-Type", contentType)
        MHD_add_response_header(response, "Cache-Control", "no-store")
        if let allow { MHD_add_response_header(response, "Allow", allow) }
        return MHD_queue_response(connection, UInt32(status), response)
    }
}
