import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The bounds on connections whose request head has not arrived yet (see WaitingConnections).
public struct WaitingLimits: Sendable, Equatable {
    public var maximumWaitingConnections: Int
    public var maximumWaitingPerAddress: Int
    /// A request head must arrive complete within this many seconds of the connection opening.
    public var requestSeconds: Int

    public init(maximumWaitingConnections: Int, maximumWaitingPerAddress: Int, requestSeconds: Int) {
        self.maximumWaitingConnections = maximumWaitingConnections
        self.maximumWaitingPerAddress = maximumWaitingPerAddress
        self.requestSeconds = requestSeconds
    }
}

/// The connections of a plugin's HTTP listener (the web remote's, the metrics') that have not yet
/// sent their request head, oldest first, and who must make room for a new one. A connection is
/// counted here from the moment it is accepted until its request head has arrived (the web remote:
/// been judged); so 64 half-open or trickling connections can hold at most
/// `maximumWaitingConnections` slots (`maximumWaitingPerAddress` from one address), each for at
/// most `requestSeconds`, and a new connection (the token holder's, the scraper's) always gets in:
/// it is the oldest waiting ones that go. Pure: the server acts on the answers.
public struct WaitingConnections<ID: Hashable & Sendable>: Sendable {
    private struct Entry: Sendable {
        let id: ID
        let address: String
        let openedSeconds: Int64
    }

    public let limits: WaitingLimits
    private var entries: [Entry] = []

    public init(limits: WaitingLimits) {
        self.limits = limits
    }

    public var count: Int { entries.count }

    /// Counts a new connection from `address`; returns the waiting connections to close for it,
    /// oldest first (never the new one).
    public mutating func admit(_ id: ID, address: String, nowSeconds: Int64) -> [ID] {
        var evicted: [ID] = []
        let fromAddress = entries.filter { $0.address == address }
        if fromAddress.count >= limits.maximumWaitingPerAddress {
            for entry in fromAddress.prefix(fromAddress.count - limits.maximumWaitingPerAddress + 1) { evicted.append(entry.id) }
        }
        entries.removeAll { evicted.contains($0.id) }
        if entries.count >= limits.maximumWaitingConnections {
            let extra = entries.prefix(entries.count - limits.maximumWaitingConnections + 1).map(\.id)
            evicted += extra
            entries.removeAll { extra.contains($0.id) }
        }
        entries.append(Entry(id: id, address: address, openedSeconds: nowSeconds))
        return evicted
    }

    /// The connection's request was judged (or it closed): it no longer waits.
    public mutating func remove(_ id: ID) {
        entries.removeAll { $0.id == id }
    }

    /// The waiting connections older than `requestSeconds`; they leave this list.
    public mutating func expire(nowSeconds: Int64) -> [ID] {
        let late = entries.filter { nowSeconds - $0.openedSeconds >= Int64(limits.requestSeconds) }.map(\.id)
        entries.removeAll { late.contains($0.id) }
        return late
    }
}

/// A listener's open connections with their sockets, and the rules above applied to them: a new
/// connection shuts down the waiting ones it pushes out, and `expire()` (called about once a second)
/// those whose head is late. One lock; a socket is shut down only while its connection is open
/// (the server reports the close, which takes the same lock, before it closes the descriptor).
public final class ConnectionGate: Sendable {
    private struct State {
        var waiting: WaitingConnections<Int>
        var sockets: [Int: Int32] = [:]
        var nextID = 0
    }

    private let state: Mutex<State>

    public init(limits: WaitingLimits) {
        state = Mutex(State(waiting: WaitingConnections(limits: limits)))
    }

    /// Connections that have not sent a request head yet. Any thread.
    public var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// A connection was accepted: its id (0 and up).
    public func opened(fd: Int32, address: String) -> Int {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.sockets[id] = fd
            for evicted in state.waiting.admit(id, address: address, nowSeconds: Self.nowSeconds()) {
                if let socket = state.sockets[evicted] { shutdown(socket, Int32(SHUT_RDWR)) }
            }
            return id
        }
    }

    /// Its request head arrived: it no longer waits.
    public func headArrived(_ id: Int) {
        state.withLock { $0.waiting.remove(id) }
    }

    public func closed(_ id: Int) {
        state.withLock { state in
            state.sockets[id] = nil
            state.waiting.remove(id)
        }
    }

    /// Shuts down the connections whose request head is late.
    public func expire() {
        state.withLock { state in
            for id in state.waiting.expire(nowSeconds: Self.nowSeconds()) {
                if let fd = state.sockets[id] { shutdown(fd, Int32(SHUT_RDWR)) }
            }
        }
    }

    /// The peer's IPv4 address as text ("" when unknown: such peers share one bound).
    public static func peerAddress(_ address: UnsafePointer<sockaddr>?) -> String {
        guard let address, address.pointee.sa_family == sa_family_t(AF_INET) else { return "" }
        var inet = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        guard inet_ntop(AF_INET, &inet, &buffer, socklen_t(buffer.count)) != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func nowSeconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec)
    }
}
