import Foundation
import OtonJSON

/// What is on air, watched per station: dead air (the sampled level below a threshold for long
/// enough), a title stall (the same title for longer than a limit) and a change of the stream's
/// format (codec, sample rate, or a constant bitrate, held for 50 frames in a row so that a VBR
/// stream's frames do not count). Pure: the caller samples the level (``AirWatch/levelSampleDue``),
/// tells it the titles and frame formats, and publishes the alerts and reports it returns. Times
/// are CLOCK_MONOTONIC nanoseconds.
public struct AirWatch: Sendable {
    public struct Settings: Equatable, Sendable {
        /// Below this level (dBFS, the RMS of a sampled second) the station is silent.
        public var silenceThresholdDBFS = -50.0
        /// Silent this long: dead air.
        public var silenceAfterNanoseconds: Int64 = 30_000_000_000
        /// The same title this long: a title stall (nil: not watched).
        public var titleStallAfterNanoseconds: Int64?
        /// A sampled second of audio every this often (10 s, or a third of `silenceAfter` when that is shorter).
        public var sampleEveryNanoseconds: Int64 { max(1_000_000_000, min(10_000_000_000, silenceAfterNanoseconds / 3)) }
        public static let sampleNanoseconds: Int64 = 1_000_000_000

        public init() {}

        static func parse(_ config: PluginConfigReader) throws(PluginConfigError) -> Settings? {
            func key(_ key: FileSinkKey) -> String { key.rawValue }
            guard try config.bool(key(.airWatch)) ?? false else {
                for other in [FileSinkKey.silenceThreshold, .silenceAfter, .titleStallAfter] where config.value(key(other)) != nil {
                    throw config.error(key(other), "applies to the air watch only; set air_watch to true too")
                }
                return nil
            }
            var settings = Settings()
            if let threshold = try config.number(key(.silenceThreshold), in: -120...0, expected: "a level in dBFS from -120 to 0, such as -50") {
                settings.silenceThresholdDBFS = threshold
            }
            if let after = try config.number(key(.silenceAfter), in: 1...86400, expected: "seconds from 1 to 86400") {
                settings.silenceAfterNanoseconds = Int64(after * 1e9)
            }
            if let stall = try config.number(key(.titleStallAfter), in: 1...30 * 86400, expected: "seconds from 1 to 2592000 (30 days)") {
                settings.titleStallAfterNanoseconds = Int64(stall * 1e9)
            }
            return settings
        }
    }

    public enum Alert: Equatable, Sendable {
        case deadAir(seconds: Double, levelDBFS: Double)
        case deadAirOver(seconds: Double, levelDBFS: Double)
        case titleStall(title: String, seconds: Double)
        case formatChanged(from: String, to: String)

        /// The `kind` field and the OTON_ALERT_KIND of `--on-alert`.
        public var kind: String {
            switch self {
            case .deadAir: "dead-air"
            case .deadAirOver: "dead-air-over"
            case .titleStall: "title-stall"
            case .formatChanged: "format-change"
            }
        }

        /// One line for people (the `details` field).
        public var details: String {
            switch self {
            case let .deadAir(seconds, level): "silent for \(Self.figure(seconds)) s (level \(Self.figure(level)) dBFS)"
            case let .deadAirOver(seconds, level): "sound again after \(Self.figure(seconds)) s of silence (level \(Self.figure(level)) dBFS)"
            case let .titleStall(title, seconds): "the same title for \(Self.figure(seconds)) s: \(title)"
            case let .formatChanged(from, to): "the stream changed from \(from) to \(to)"
            }
        }

        static func figure(_ value: Double) -> String {
            guard value.isFinite else { return value < 0 ? "-inf" : "inf" }
            return String(Double((value * 10).rounded()) / 10)
        }
    }

    /// The figures of a station now (for the metrics).
    public struct Report: Equatable, Sendable {
        /// The last sampled level in dBFS (nil before the first sample or for a codec not sampled).
        public var levelDBFS: Double?
        /// Seconds the station has been silent (0 when it is not).
        public var silenceSeconds: Double
        /// Seconds the current title has been on (nil before the first title).
        public var titleAgeSeconds: Double?

        public init(levelDBFS: Double?, silenceSeconds: Double, titleAgeSeconds: Double?) {
            self.levelDBFS = levelDBFS
            self.silenceSeconds = silenceSeconds
            self.titleAgeSeconds = titleAgeSeconds
        }
    }

    public let settings: Settings
    private var level: Double?
    private var silentSince: Int64?
    private var deadAirSaid = false
    private var title: String?
    private var titleSince: Int64 = 0
    private var stallSaid = false
    private var nextSampleAt: Int64?
    private var format: String?
    private var candidate: String?
    private var candidateFrames = 0
    /// Frames in a row a new format must hold before it counts as a change.
    public static let framesToConfirm = 50

    public init(settings: Settings) {
        self.settings = settings
    }

    /// True when a level sample should start now (then ``sampled(levelDBFS:at:)`` when it is done).
    public mutating func levelSampleDue(at now: Int64) -> Bool {
        guard let next = nextSampleAt else {
            nextSampleAt = now + settings.sampleEveryNanoseconds
            return true
        }
        guard now >= next else { return false }
        nextSampleAt = now + settings.sampleEveryNanoseconds
        return true
    }

    /// A sampled level (dBFS; -infinity for digital silence).
    public mutating func sampled(levelDBFS: Double, at now: Int64) -> [Alert] {
        level = levelDBFS
        if levelDBFS < settings.silenceThresholdDBFS {
            if silentSince == nil { silentSince = now }
            return check(at: now)
        }
        defer {
            silentSince = nil
            deadAirSaid = false
        }
        if deadAirSaid, let since = silentSince {
            return [.deadAirOver(seconds: Double(now - since) / 1e9, levelDBFS: levelDBFS)]
        }
        return []
    }

    /// A title heard (the track event's).
    public mutating func title(_ text: String, at now: Int64) {
        guard text != title else { return }
        title = text
        titleSince = now
        stallSaid = false
    }

    /// One frame's format ("MPEG-1 layer III, 44100 Hz, 128 kbps"); a change held for
    /// ``framesToConfirm`` frames in a row is an alert.
    public mutating func frame(format text: String) -> [Alert] {
        guard let current = format else {
            format = text
            return []
        }
        guard text != current else {
            candidate = nil
            candidateFrames = 0
            return []
        }
        if text == candidate {
            candidateFrames += 1
        } else {
            candidate = text
            candidateFrames = 1
        }
        guard candidateFrames >= Self.framesToConfirm else { return [] }
        format = text
        candidate = nil
        candidateFrames = 0
        return [.formatChanged(from: current, to: text)]
    }

    /// Alerts due by time alone (dead air going on, a title stall).
    public mutating func check(at now: Int64) -> [Alert] {
        var alerts: [Alert] = []
        if let since = silentSince, !deadAirSaid, now - since >= settings.silenceAfterNanoseconds {
            deadAirSaid = true
            alerts.append(.deadAir(seconds: Double(now - since) / 1e9, levelDBFS: level ?? -.infinity))
        }
        if let limit = settings.titleStallAfterNanoseconds, let title, !stallSaid, now - titleSince >= limit {
            stallSaid = true
            alerts.append(.titleStall(title: title, seconds: Double(now - titleSince) / 1e9))
        }
        return alerts
    }

    public func report(at now: Int64) -> Report {
        Report(
            levelDBFS: level, silenceSeconds: silentSince.map { Double(now - $0) / 1e9 } ?? 0,
            titleAgeSeconds: title == nil ? nil : Double(now - titleSince) / 1e9)
    }

    /// The RMS of float samples in dBFS (-infinity for none or all zero).
    public static func dBFS(sumOfSquares: Double, count: Int) -> Double {
        guard count > 0, sumOfSquares > 0 else { return -.infinity }
        return 10 * log10(sumOfSquares / Double(count))
    }
}
