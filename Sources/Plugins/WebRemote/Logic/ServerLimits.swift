/// The web server's bounds. Every one is a fixed number so that no client, however it behaves,
/// can make the plugin use more memory or threads, or slow the bus.
public struct ServerLimits: Sendable, Equatable {
    /// Open connections of every kind; one more is answered 503 and closed.
    public var maximumConnections = 64
    /// Event-channel (SSE) clients among them.
    public var maximumEventClients = 32
    /// Bytes queued for one client; an update that does not fit is dropped (counted) and the
    /// client gets the then-current state once its queue has drained.
    public var maximumQueuedBytes = 64 * 1024
    /// A request must arrive complete within this many seconds.
    public var requestSeconds = 10
    /// A comment line keeps idle event channels open through proxies and tells us who left.
    public var heartbeatSeconds = 15
    /// The largest artwork file served.
    public var maximumArtworkBytes = 8 * 1024 * 1024

    public init() {}
}
