/// The connections that have not yet shown the token, oldest first, and who must make room for a
/// new one. A connection is counted here from the moment it is accepted until its request head
/// has been judged by the RequestGate; so 64 half-open connections that never send a byte can
/// hold at most `maximumWaitingConnections` slots (`maximumWaitingPerAddress` from one address),
/// each for at most `requestSeconds`, and a new connection (the token holder's among them) always
/// gets in: it is the oldest waiting ones that go. Pure: the server acts on the answers.
public struct WaitingConnections<ID: Hashable & Sendable>: Sendable {
    private struct Entry: Sendable {
        let id: ID
        let address: String
        let openedSeconds: Int64
    }

    public let limits: ServerLimits
    private var entries: [Entry] = []

    public init(limits: ServerLimits) {
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
