import OtonPluginKit

/// The listener's bounds: fixed numbers, so no scraper, however it behaves, can make the plugin
/// use more memory or threads than these allow, or keep another scraper out.
public struct ServerLimits: Sendable, Equatable {
    /// Open connections; more wait in the kernel's backlog (16) or are refused. Well above the
    /// waiting connections' bound, so a new scraper always finds a slot.
    public var maximumConnections = 32
    /// Connections whose request head has not arrived: a new one beyond these bounds pushes out the
    /// oldest waiting one, and a head must arrive within `requestSeconds` (the web remote's rules,
    /// WaitingConnections; issue 39, N9: 16 trickling connections locked the scraper out).
    public var waiting = WaitingLimits(maximumWaitingConnections: 8, maximumWaitingPerAddress: 4, requestSeconds: 5)
    /// A connection idle this long is closed: a request must arrive within it.
    public var idleSeconds = 10
    /// Memory of one connection (libmicrohttpd's pool): a request head that does not fit is answered
    /// 431. A scraper's head is a few hundred bytes.
    public var connectionMemoryBytes = 8 * 1024

    public init() {}
}
