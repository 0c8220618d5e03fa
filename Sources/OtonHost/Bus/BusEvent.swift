import PluginAPI

/// One event on the plugin bus, in Swift form. Core kinds carry a typed
/// payload; every event also carries its values as key/value fields, which
/// is what `--events` prints and what plugins can read without payloads.
public struct BusEvent: Sendable {
    public enum Payload: Sendable {
        case none
        case track(TrackInfo, sequence: UInt64)
        case state(StateInfo)
        case volume(Double)
        case dropped(DropInfo)
    }

    public var kind: UInt32
    public var name: String
    public var source: String
    public var flags: UInt32
    public var monotonicNanoseconds: Int64
    public var wallMicroseconds: Int64
    public var payload: Payload
    /// Extra open-ended fields (plugin data, tags beyond the payload).
    public var extraFields: [(key: String, value: String)]

    public init(
        kind: UInt32, name: String, source: String = "host", flags: UInt32 = 0,
        payload: Payload = .none, extraFields: [(key: String, value: String)] = [],
        monotonicNanoseconds: Int64 = Clock.monotonicNanoseconds(),
        wallMicroseconds: Int64 = Clock.wallMicroseconds()
    ) {
        self.kind = kind
        self.name = name
        self.source = source
        self.flags = flags
        self.payload = payload
        self.extraFields = extraFields
        self.monotonicNanoseconds = monotonicNanoseconds
        self.wallMicroseconds = wallMicroseconds
    }

    public static func track(_ track: TrackInfo, sequence: UInt64) -> BusEvent {
        BusEvent(kind: OTON_EVENT_TRACK, name: "track", payload: .track(track, sequence: sequence))
    }

    public static func state(_ state: StateInfo) -> BusEvent {
        BusEvent(kind: OTON_EVENT_STATE, name: "state", payload: .state(state))
    }

    public static func volume(_ volume: Double) -> BusEvent {
        BusEvent(kind: OTON_EVENT_VOLUME, name: "volume", payload: .volume(volume))
    }

    /// Every value of the event as text: the payload's fields first, then the extra ones.
    public var fields: [(key: String, value: String)] {
        payloadFields + extraFields
    }

    private var payloadFields: [(key: String, value: String)] {
        var out: [(key: String, value: String)] = []
        func add(_ key: String, _ value: String?) {
            if let value { out.append((key, value)) }
        }
        switch payload {
        case .none:
            break
        case let .track(track, sequence):
            add("sequence", String(sequence))
            add("break", track.isBreak ? "1" : nil)
            add("title", track.title)
            add("artist", track.artist)
            add("raw_title", track.rawTitle)
            add("station", track.station)
            add("genre", track.genre)
            add("bitrate", track.bitrate.map(String.init))
            add("codec", track.codec)
            add("artwork_url", track.artworkURL?.absoluteString)
            add("stream_url", track.streamURL?.absoluteString)
            add("station_logo_url", track.stationLogoURL?.absoluteString)
        case let .state(state):
            add("state", state.state.name)
            add("buffering_percent", state.bufferingPercent.map(String.init))
            if state.retryAttempt > 0 { add("retry_attempt", String(state.retryAttempt)) }
            add("error_kind", state.error?.kind)
            add("error_message", state.error?.message)
            add("error_suggestion", state.error?.suggestion)
        case let .volume(volume):
            add("volume", String(format3(volume)))
            add("volume_percent", String(VolumeArgument.percent(of: volume)))
        case let .dropped(drop):
            add("plugin_id", drop.pluginID)
            add("media_tap", String(drop.mediaTap))
            add("dropped_events", String(drop.droppedEvents))
            add("dropped_bytes", String(drop.droppedBytes))
        }
        return out
    }
}

/// Formats a 0…1 value with three decimals, without Foundation.
func format3(_ value: Double) -> String {
    let thousandths = Int((value * 1000).rounded())
    let sign = thousandths < 0 ? "-" : ""
    let magnitude = abs(thousandths)
    let fraction = String(magnitude % 1000)
    return sign + String(magnitude / 1000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
}
