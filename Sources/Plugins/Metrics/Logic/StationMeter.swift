import Synchronization

/// One instance's figures, shared between its mailbox (which counts) and the scrape (which reads).
/// Each instance has its own lock, so sessions never wait for one another on the media path; a
/// scrape takes each lock only to copy the figures.
public final class StationMeter: Sendable {
    private let figures: Mutex<StationFigures>

    public init(station: String?, startedMonotonicNanoseconds: Int64) {
        figures = Mutex(StationFigures(station: station, startedMonotonicNanoseconds: startedMonotonicNanoseconds))
    }

    public func apply(name: String, fields: [String: String], isReplay: Bool) {
        figures.withLock { $0.apply(name: name, fields: fields, isReplay: isReplay) }
    }

    public func receive(size: Int, connection: UInt64, monotonicNanoseconds: Int64) {
        figures.withLock { $0.receive(size: size, connection: connection, monotonicNanoseconds: monotonicNanoseconds) }
    }

    /// A copy of the figures now.
    public var snapshot: StationFigures { figures.withLock { $0 } }
}
