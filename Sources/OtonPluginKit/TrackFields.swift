import PluginAPI

/// A `track` event read through the header's keys (OTON_FIELD_*): what a plugin knows of the
/// heard track. Plugins take this view instead of reading field strings themselves.
public struct TrackFields: Equatable, Sendable {
    /// 1, 2, 3 …: a new number if and only if the heard track changed (a break included).
    public var sequence: UInt64
    /// A break (ads, a jingle, a gap): no title, artist, raw title or artwork; not a song.
    public var isBreak: Bool
    public var title: String?
    public var artist: String?
    public var rawTitle: String?
    public var station: String?
    public var genre: String?
    public var codec: String?
    /// Bits per second.
    public var bitrate: Int?
    public var artworkURL: String?
    public var streamURL: String?
    public var stationLogoURL: String?
    public var stationHomepage: String?
    /// Present when the station has a status API (its cover may come later, with the same sequence).
    public var stationStatusURL: String?
    /// How many stations next/previous cycle through (1 when the event does not say).
    public var stationCount: Int
    /// The track's length in seconds, when its source knows it (positive and finite).
    public var durationSeconds: Double?
    /// Where the title came from: "stream", "station-api", "provider:<rule>", "recognised"
    /// (OTON_FIELD_TITLE_SOURCE); nil without a title or from an older host.
    public var titleSource: String?

    public init(
        sequence: UInt64, isBreak: Bool = false, title: String? = nil, artist: String? = nil, rawTitle: String? = nil,
        station: String? = nil, genre: String? = nil, codec: String? = nil, bitrate: Int? = nil,
        artworkURL: String? = nil, streamURL: String? = nil, stationLogoURL: String? = nil,
        stationHomepage: String? = nil, stationStatusURL: String? = nil, stationCount: Int = 1, durationSeconds: Double? = nil,
        titleSource: String? = nil
    ) {
        self.sequence = sequence
        self.isBreak = isBreak
        self.title = title
        self.artist = artist
        self.rawTitle = rawTitle
        self.station = station
        self.genre = genre
        self.codec = codec
        self.bitrate = bitrate
        self.artworkURL = artworkURL
        self.streamURL = streamURL
        self.stationLogoURL = stationLogoURL
        self.stationHomepage = stationHomepage
        self.stationStatusURL = stationStatusURL
        self.stationCount = stationCount
        self.durationSeconds = durationSeconds
        self.titleSource = titleSource
    }

    /// A `track` event's fields; nil without a sequence (not a track event, or before the first
    /// track). Empty values read as absent.
    public init?(fields: [String: String]) {
        func text(_ key: String) -> String? {
            guard let value = fields[key], !value.isEmpty else { return nil }
            return value
        }
        guard let sequence = text(OTON_FIELD_SEQUENCE).flatMap(UInt64.init) else { return nil }
        self.init(
            sequence: sequence, isBreak: fields[OTON_FIELD_BREAK] == "1", title: text(OTON_FIELD_TITLE),
            artist: text(OTON_FIELD_ARTIST), rawTitle: text(OTON_FIELD_RAW_TITLE), station: text(OTON_FIELD_STATION),
            genre: text(OTON_FIELD_GENRE), codec: text(OTON_FIELD_CODEC), bitrate: text(OTON_FIELD_BITRATE).flatMap { Int($0) },
            artworkURL: text(OTON_FIELD_ARTWORK_URL), streamURL: text(OTON_FIELD_STREAM_URL),
            stationLogoURL: text(OTON_FIELD_STATION_LOGO_URL), stationHomepage: text(OTON_FIELD_STATION_HOMEPAGE),
            stationStatusURL: text(OTON_FIELD_STATION_STATUS_URL),
            stationCount: text(OTON_FIELD_STATION_COUNT).flatMap { Int($0) }.map { max(1, $0) } ?? 1,
            durationSeconds: text(OTON_FIELD_DURATION).flatMap(Double.init).flatMap { $0 > 0 && $0.isFinite ? $0 : nil },
            titleSource: text(OTON_FIELD_TITLE_SOURCE))
    }

    /// True when the stream named something: a title, an artist or a raw title.
    public var namesSomething: Bool { title != nil || artist != nil || rawTitle != nil }
}
