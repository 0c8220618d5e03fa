import Foundation
import OtonSupport

/// How much a timeshift ring keeps (docs/timeshift.md): `--timeshift 2h`, the `timeshift` key of
/// plugins.json; 0 turns it off. Bounded by time and by size: the size bound is the time at
/// ``maxBitsPerSecond``, so a stream of a higher rate keeps less time, never more disk.
public struct TimeshiftSettings: Sendable, Equatable {
    /// What the ring keeps, in seconds (0: no timeshift).
    public var seconds: Double

    /// 30 minutes.
    public static let defaultSeconds: Double = 30 * 60
    /// The size bound's rate: 320 kbit/s, the highest rate MP3 radio is sent at.
    public static let maxBitsPerSecond: Double = 320_000

    public init(seconds: Double = Self.defaultSeconds) {
        self.seconds = max(0, seconds)
    }

    public var isOn: Bool { seconds > 0 }

    /// The longest ring: a day (a day at 320 kbit/s is 3.5 GB of disk).
    public static let maxSeconds: Double = 24 * 3600

    /// What `--timeshift` and the `timeshift` key take: a duration ("30m", "2h", "1h30m"), or 0 for off.
    /// nil when it is neither (``problem`` says what is wanted).
    public init?(text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "0" { self.init(seconds: 0); return }
        guard let seconds = try? DurationText.seconds(trimmed), seconds <= Self.maxSeconds else { return nil }
        self.init(seconds: seconds)
    }

    /// What a value that is not a duration is told (after the option's or key's name).
    public static var problem: String {
        tr("takes a duration such as 30m or 2h (at most 24h), or 0 to turn timeshift off")
    }

    /// The most the ring's files take on disk (a chunk more while the newest fills).
    public var maxBytes: UInt64 { UInt64(seconds * Self.maxBitsPerSecond / 8) }

    /// A chunk file: 1/32 of the ring, from 16 KiB to 4 MiB, so the ring is dropped in steps of ~3 %.
    public var chunkBytes: UInt64 { min(max(maxBytes / 32, 16 * 1024), 4 * 1024 * 1024) }
}
