import OtonJSON
import OtonPluginKit

/// What Snapcast's clients show of the track: the fields of oton's `track` event mapped onto the
/// MPRIS-like metadata of snapserver 0.26's stream properties (title, artist as a list, the
/// station as the album, artUrl from the cover or else the station's logo).
public struct StreamMetadata: Sendable, Equatable {
    public var title: String?
    public var artist: String?
    public var station: String?
    public var artworkURL: String?

    public init(title: String? = nil, artist: String? = nil, station: String? = nil, artworkURL: String? = nil) {
        self.title = title
        self.artist = artist
        self.station = station
        self.artworkURL = artworkURL
    }

    /// From a `track` event's fields (title, artist, station, artwork_url, station_logo_url).
    /// A track event's metadata (read through the kit's view); nothing for no track.
    public init(track: TrackFields?) {
        self.init(
            title: track?.title, artist: track?.artist, station: track?.station,
            artworkURL: Self.webURL(track?.artworkURL) ?? Self.webURL(track?.stationLogoURL))
    }

    /// Only http(s) URLs are passed on: a Snapcast app on a phone can fetch nothing else.
    private static func webURL(_ text: String?) -> String? {
        guard let text, text.hasPrefix("http://") || text.hasPrefix("https://") else { return nil }
        return text
    }

    /// The `metadata` object of the stream's properties.
    public var json: JSONValue {
        var members: [String: JSONValue] = [:]
        if let title { members["title"] = .string(title) }
        if let artist { members["artist"] = .array([.string(artist)]) }
        if let station { members["album"] = .string(station) }
        if let artworkURL { members["artUrl"] = .string(artworkURL) }
        return .object(members)
    }
}

/// The stream's properties as snapserver 0.26 keeps them: the metadata and that oton takes no
/// control from Snapcast's apps (they pause and skip snapserver's stream, not the radio).
public struct StreamProperties: Sendable, Equatable {
    public var metadata: StreamMetadata
    public var isPlaying: Bool

    public init(metadata: StreamMetadata = StreamMetadata(), isPlaying: Bool = false) {
        self.metadata = metadata
        self.isPlaying = isPlaying
    }

    public var json: JSONValue {
        .object([
            "playbackStatus": .string(isPlaying ? "playing" : "stopped"),
            "canControl": .bool(false),
            "canPlay": .bool(false),
            "canPause": .bool(false),
            "canSeek": .bool(false),
            "canGoNext": .bool(false),
            "canGoPrevious": .bool(false),
            "metadata": metadata.json,
        ])
    }
}
