import Foundation

/// Whose clock the archive's boundaries follow: UTC (the default) or a zone's local time.
public enum ArchiveZone: Equatable, Sendable {
    case utc
    case local(TimeZone)

    /// Seconds to add to UTC for the zone's local time at `wall` (nanoseconds since 1970).
    public func offsetSeconds(at wall: Int64) -> Int64 {
        switch self {
        case .utc: return 0
        case let .local(zone): return Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(wall) / 1e9)))
        }
    }
}

/// The archive's period and its wall-clock boundaries: a whole number of seconds that divides a
/// day (10s, 1m, 5m, 15m, 1h, 1d …), so every boundary falls on the same clock times each day
/// (12:00, 12:15 …) in the zone. Times are nanoseconds since 1970 (UTC).
public struct ArchivePeriod: Equatable, Sendable {
    public let seconds: Int64
    public var zone: ArchiveZone

    public static let day: Int64 = 86_400

    /// nil unless `seconds` is whole, at least 1 and divides a day.
    public init?(seconds: Double, zone: ArchiveZone = .utc) {
        guard seconds.isFinite, seconds >= 1, seconds <= Double(Self.day), seconds == seconds.rounded(),
            Self.day % Int64(seconds) == 0
        else { return nil }
        self.seconds = Int64(seconds)
        self.zone = zone
    }

    private var length: Int64 { seconds * 1_000_000_000 }

    /// The start of the period that holds `wall`.
    public func start(containing wall: Int64) -> Int64 {
        let offset = zone.offsetSeconds(at: wall) * 1_000_000_000
        let localStart = Self.floorDivide(wall + offset, length) * length
        return localStart - zone.offsetSeconds(at: localStart - offset) * 1_000_000_000
    }

    /// The first boundary after `wall` (strictly later).
    public func boundary(after wall: Int64) -> Int64 {
        let offset = zone.offsetSeconds(at: wall) * 1_000_000_000
        var localNext = (Self.floorDivide(wall + offset, length) + 1) * length
        // A clock set back (the end of summer time) can put the next local boundary before `wall`.
        for _ in 0..<4 {
            let next = localNext - zone.offsetSeconds(at: localNext - offset) * 1_000_000_000
            if next > wall { return next }
            localNext += length
        }
        return wall + length
    }

    static func floorDivide(_ value: Int64, _ by: Int64) -> Int64 {
        value >= 0 ? value / by : (value - by + 1) / by
    }
}
