import OtonJSON
import Synchronization

/// What the pool shares: a listener that serves the whole registry until stopped.
public protocol SharedListener: AnyObject, Sendable {
    /// The port bound (the chosen one when the address said 0).
    var port: UInt16 { get }
    /// Closes the socket and waits until no request is being answered.
    func stop()
}

/// One listener per configured address for the whole process: the first instance that names an
/// address starts it, later ones with the same address share it, and the last to leave stops it.
/// Each listener serves every station of the process. Start and stop happen under the pool's
/// lock, so an instance leaving never races one arriving at the same address.
public final class ListenerPool<Listener: SharedListener>: Sendable {
    public struct Lease: Sendable, Hashable {
        public let address: ListenAddress
        fileprivate let number: UInt64
    }

    private struct Entry {
        let listener: Listener
        var holders: Set<UInt64>
    }

    private struct Contents {
        var next: UInt64 = 1
        var entries: [ListenAddress: Entry] = [:]
    }

    private let contents = Mutex(Contents())

    public init() {}

    /// A lease on the listener of `address`, started with `start` when there is none yet. Returns
    /// the listener and whether this call started it; rethrows what `start` throws (nothing is held then).
    public func acquire(_ address: ListenAddress, start: (ListenAddress) throws -> Listener) throws -> (Lease, Listener, started: Bool) {
        try contents.withLock { contents in
            let number = contents.next
            contents.next += 1
            if var entry = contents.entries[address] {
                entry.holders.insert(number)
                contents.entries[address] = entry
                return (Lease(address: address, number: number), entry.listener, false)
            }
            let listener = try start(address)
            contents.entries[address] = Entry(listener: listener, holders: [number])
            return (Lease(address: address, number: number), listener, true)
        }
    }

    /// Gives the lease back; the listener stops when it was the last. Returns true if it stopped.
    @discardableResult
    public func release(_ lease: Lease) -> Bool {
        contents.withLock { contents in
            guard var entry = contents.entries[lease.address], entry.holders.remove(lease.number) != nil else { return false }
            guard entry.holders.isEmpty else {
                contents.entries[lease.address] = entry
                return false
            }
            contents.entries[lease.address] = nil
            entry.listener.stop()
            return true
        }
    }

    /// Addresses listened on now.
    public var addresses: [ListenAddress] { contents.withLock { Array($0.entries.keys) } }
}
