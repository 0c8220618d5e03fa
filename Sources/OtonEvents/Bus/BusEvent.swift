import OtonSupport
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
        payload.fields + extraFields
    }
}
