import OtonPluginKit

/// The web server's bounds. Every one is a fixed number so that no client, however it behaves,
/// can make the plugin use more memory or threads, or slow the bus, or keep the token holder out.
public struct ServerLimits: Sendable, Equatable {
    /// Open connections of every kind (libmicrohttpd closes one more at once). Well above the
    /// waiting connections' bound, so that a request with the token always finds a slot.
    public var maximumConnections = 128
    /// Event-channel (SSE) clients among them.
    public var maximumEventClients = 32
    /// Connections that have not yet shown the token (a request head still on its way). A new
    /// connection beyond this bound pushes out the oldest waiting one, so half-open connections can
    /// never fill the server (see WaitingConnections).
    public var maximumWaitingConnections = 32
    /// The same bound for one peer address.
    public var maximumWaitingPerAddress = 8
    /// A request head must arrive complete within this many seconds of the connection opening.
    public var requestSeconds = 5
    /// A comment line keeps idle event channels open through proxies and tells us who left.
    public var heartbeatSeconds = 15
    /// The largest artwork file served.
    public var maximumArtworkBytes = 8 * 1024 * 1024
    /// The memory libmicrohttpd gives one connection; it bounds the request head (431 beyond).
    public var connectionMemoryBytes = 16 * 1024
    /// The largest request body (an action is a small JSON object).
    public var maximumBodyBytes = 4 * 1024

    public init() {}

    /// The bounds on connections still sending their request head (the plugins' shared WaitingConnections).
    public var waiting: WaitingLimits {
        WaitingLimits(
            maximumWaitingConnections: maximumWaitingConnections, maximumWaitingPerAddress: maximumWaitingPerAddress,
            requestSeconds: requestSeconds)
    }

    /// An event client whose channel moved no byte for this long is disconnected.
    public var stuckStreamSeconds: Int { 4 * heartbeatSeconds }
}
