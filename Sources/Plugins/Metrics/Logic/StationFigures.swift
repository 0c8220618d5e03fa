import OtonPluginKit
import PluginAPI

/// What one plugin instance (one session, one station) has counted, from its events and its
/// stream tap. A value type: the instance owns it (through a StationMeter) and the registry copies it.
public struct StationFigures: Sendable, Equatable {
    /// Totals the bus announced for one plugin's queue (the `dropped` event's totals so far).
    public struct DropTotals: Sendable, Equatable {
        public var events: UInt64
        public var bytes: UInt64

        public init(events: UInt64 = 0, bytes: UInt64 = 0) {
            self.events = events
            self.bytes = bytes
        }
    }

    /// The playback states of the ABI, in its order, as the `state` field spells them.
    public static let states = ["idle", "connecting", "playing", "buffering", "paused", "stopped", "error"]

    /// The label value: the configured name if any, else the latest track event's `station`; "" until known.
    public private(set) var station: String
    /// The latest `state` event's state; nil before the first.
    public private(set) var state: String?
    /// Bytes of the encoded stream tap (as received, ICY metadata removed).
    public private(set) var receivedBytes: UInt64 = 0
    /// Track events with a new sequence that are not breaks (a replay at creation is not a start).
    public private(set) var tracksStarted: UInt64 = 0
    /// Media buffers of a new connection number after the first one seen.
    public private(set) var reconnects: UInt64 = 0
    /// Transitions into the error state.
    public private(set) var errors: UInt64 = 0
    /// Per plugin id, from `dropped` events about that plugin.
    public private(set) var drops: [String: DropTotals] = [:]
    /// The air watch's last report (`org.oton.station.air`, from the file sink of `oton record`):
    /// the sampled level in dBFS, seconds of silence, seconds the title has been on.
    public private(set) var levelDBFS: Double?
    public private(set) var silenceSeconds: Double?
    public private(set) var titleAgeSeconds: Double?
    /// Alerts (`org.oton.alert`) by kind.
    public private(set) var alerts: [String: UInt64] = [:]
    /// CLOCK_MONOTONIC (ns) when the last stream byte arrived, or when counting began.
    public private(set) var lastByteMonotonicNanoseconds: Int64
    /// True once a byte arrived.
    public private(set) var hasReceivedBytes = false
    /// It played or failed at least once (`/readyz`: every station has been tried).
    public var hasBeenTried: Bool { hasReceivedBytes || errors > 0 || state == "playing" || state == "error" || state == "stopped" }

    private let isStationFixed: Bool
    private var lastSequence: UInt64?
    private var lastConnection: UInt64?

    /// `station`: the configured name (fixed for the instance's life), or nil to take it from track events.
    public init(station: String?, startedMonotonicNanoseconds: Int64) {
        self.station = station ?? ""
        isStationFixed = station != nil
        lastByteMonotonicNanoseconds = startedMonotonicNanoseconds
    }

    /// One bus event, by its kind name and text fields. `isReplay`: the current value handed to an
    /// instance just created (OTON_EVENT_FLAG_REPLAY, or oton_host.current()): it names the station
    /// and state but starts nothing.
    public mutating func apply(name: String, fields: [String: String], isReplay: Bool) {
        switch name {
        case "track":
            guard let track = TrackFields(fields: fields) else { return }
            if !isStationFixed, let named = track.station { station = named }
            guard track.sequence != 0, track.sequence != lastSequence else { return }
            lastSequence = track.sequence
            if !isReplay && !track.isBreak { tracksStarted += 1 }
        case "state":
            guard let now = StateFields(fields: fields)?.state else { return }
            if now == "error" && state != "error" && !isReplay { errors += 1 }
            state = now
        case "dropped":
            guard let drop = DropFields(fields: fields), !drop.pluginID.isEmpty else { return }
            var totals = drops[drop.pluginID] ?? DropTotals()
            // Totals so far for that plugin: keep the largest seen, as the events may cross.
            totals.events = max(totals.events, drop.droppedEvents)
            totals.bytes = max(totals.bytes, drop.droppedBytes)
            drops[drop.pluginID] = totals
        case OTON_EVENT_NAME_AIR:
            levelDBFS = fields[OTON_FIELD_LEVEL_DBFS].flatMap { $0 == "-inf" ? -.infinity : Double($0) }
            silenceSeconds = fields[OTON_FIELD_SILENCE_SECONDS].flatMap(Double.init)
            titleAgeSeconds = fields[OTON_FIELD_TITLE_AGE_SECONDS].flatMap(Double.init)
        case OTON_EVENT_NAME_ALERT:
            guard let kind = fields[OTON_FIELD_KIND], !kind.isEmpty, !isReplay else { return }
            alerts[kind, default: 0] += 1
        default:
            break
        }
    }

    /// One stream-tap buffer of `size` bytes on `connection`, received at `monotonicNanoseconds`.
    public mutating func receive(size: Int, connection: UInt64, monotonicNanoseconds: Int64) {
        receivedBytes &+= UInt64(max(size, 0))
        if let last = lastConnection, connection != last { reconnects += 1 }
        lastConnection = connection
        lastByteMonotonicNanoseconds = max(lastByteMonotonicNanoseconds, monotonicNanoseconds)
        hasReceivedBytes = true
    }

    /// Seconds since the last byte (or since counting began, when none came yet) at `now` (CLOCK_MONOTONIC ns).
    public func secondsSinceLastByte(now: Int64) -> Double {
        Double(max(now - lastByteMonotonicNanoseconds, 0)) / 1e9
    }
}
