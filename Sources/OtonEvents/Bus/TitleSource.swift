/// Where the title a listener sees came from. It travels with the title (the track event's field
/// `title_source`, `ctl status`, MPRIS, history, the recorder's tags) so a title is never shown as the
/// station's when oton found it elsewhere.
public enum TitleSource: Hashable, Sendable {
    /// The stream's own metadata (ICY, Ogg comments, timed ID3, HLS/DASH events).
    case stream
    /// The station's status API named in plugins.json (`status_url`).
    case stationAPI
    /// A now-playing provider rule of the catalogue, by its name.
    case provider(String)
    /// Recognised from the audio against what oton heard before with a title.
    case recognised

    /// The text form (OTON_FIELD_TITLE_SOURCE): `stream`, `station-api`, `provider:<rule>`, `recognised`.
    public var wireName: String {
        switch self {
        case .stream: "stream"
        case .stationAPI: "station-api"
        case let .provider(rule): "provider:" + rule
        case .recognised: "recognised"
        }
    }

    /// Reads the text form; nil for anything else (an unknown source is not shown as a known one).
    public init?(wireName: String) {
        switch wireName {
        case "stream": self = .stream
        case "station-api": self = .stationAPI
        case "recognised": self = .recognised
        default:
            guard wireName.hasPrefix("provider:"), wireName.count > "provider:".count else { return nil }
            self = .provider(String(wireName.dropFirst("provider:".count)))
        }
    }

    /// Whether the station's stream itself said it (the only source shown without a qualifier).
    public var isStream: Bool {
        if case .stream = self { return true }
        return false
    }
}
