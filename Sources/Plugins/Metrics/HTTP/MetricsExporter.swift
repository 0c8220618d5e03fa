import MetricsLogic
import OtonJSON

#if canImport(Glibc)
    import Glibc
#endif

/// The process's exporter: one registry of every instance's figures and one listener per
/// configured address, shared by every instance (the plugin library is loaded once per process,
/// however many sessions run). The plugin uses `shared`; tests make their own.
public final class MetricsExporter: Sendable {
    /// What an instance holds while it is attached.
    public struct Attachment: Sendable {
        public let port: UInt16
        /// True when this attachment started the listener (the others share it).
        public let startedListener: Bool
        fileprivate let registration: MetricsRegistry.Registration
        fileprivate let lease: ListenerPool<MetricsHTTPServer>.Lease
    }

    public static let shared = MetricsExporter()

    public let registry = MetricsRegistry()
    private let listeners = ListenerPool<MetricsHTTPServer>()
    private let limits: ServerLimits

    public init(limits: ServerLimits = ServerLimits()) {
        self.limits = limits
    }

    /// Registers `meter` and makes sure `address` is served; throws (registering nothing) when it cannot listen.
    /// `rules`: what /healthz asks of the stations (those of the attachment that starts the listener).
    public func attach(
        _ meter: StationMeter, address: ListenAddress, hostVersion: String?,
        rules: HealthVerdict.Rules = HealthVerdict.Rules()
    ) throws -> Attachment {
        let registration = registry.register(meter, hostVersion: hostVersion)
        do {
            let (registry, limits) = (self.registry, self.limits)
            let (lease, listener, started) = try listeners.acquire(address) { address in
                try MetricsHTTPServer(
                    address: address, limits: limits,
                    check: { route in
                        switch route {
                        case .health: HealthVerdict.health(registry.figures, rules: rules, now: Self.monotonicNow())
                        case .readiness: HealthVerdict.readiness(registry.figures)
                        default: nil
                        }
                    }
                ) {
                    registry.render(now: Self.monotonicNow(), process: ProcessFigures.read())
                }
            }
            return Attachment(port: listener.port, startedListener: started, registration: registration, lease: lease)
        } catch {
            registry.unregister(registration)
            throw error
        }
    }

    /// Unregisters the meter and gives the listener back (stopped when this was the last holder).
    /// Returns true when the listener stopped.
    @discardableResult
    public func detach(_ attachment: Attachment) -> Bool {
        registry.unregister(attachment.registration)
        return listeners.release(attachment.lease)
    }

    /// Addresses listened on now.
    public var addresses: [ListenAddress] { listeners.addresses }

    /// CLOCK_MONOTONIC in nanoseconds: the clock of the host's media buffers (oton_media_buffer.mono_ns).
    public static func monotonicNow() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
