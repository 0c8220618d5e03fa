/// The listener's bounds: fixed numbers, so no scraper, however it behaves, can make the plugin
/// use more memory or threads than these allow.
public struct ServerLimits: Sendable, Equatable {
    /// Open connections; more wait in the kernel's backlog (16) or are refused.
    public var maximumConnections = 16
    /// A connection idle this long is closed: a request must arrive within it.
    public var idleSeconds = 10
    /// Memory of one connection (libmicrohttpd's pool): a request head that does not fit is answered
    /// 431. A scraper's head is a few hundred bytes.
    public var connectionMemoryBytes = 8 * 1024

    public init() {}
}
