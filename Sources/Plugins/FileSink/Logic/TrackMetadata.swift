import OtonPluginKit

/// What the recording knows about a track, from the host's track events.
public struct TrackMetadata: Equatable, Sendable {
    public var sequence: UInt64
    public var title: String?
    public var artist: String?
    public var station: String?
    public var streamURL: String?
    /// Where the title came from (the track event's `title_source`); nil for a break or from an older host.
    public var titleSource: String?

    public init(
        sequence: UInt64, title: String? = nil, artist: String? = nil, station: String? = nil, streamURL: String? = nil,
        titleSource: String? = nil
    ) {
        self.sequence = sequence
        self.title = title
        self.artist = artist
        self.station = station
        self.streamURL = streamURL
        self.titleSource = titleSource
    }

    /// From a track event's text fields; `raw_title` stands in for a missing title, and a break
    /// (`break` = "1", which has no title) is recorded as its own file: "Break" by the station.
    public init?(fields: [String: String]) {
        guard let track = TrackFields(fields: fields) else { return nil }
        self.init(
            sequence: track.sequence, title: track.isBreak ? "Break" : track.title ?? track.rawTitle,
            artist: track.isBreak ? track.station : track.artist, station: track.station, streamURL: track.streamURL,
            titleSource: track.isBreak ? nil : track.titleSource)
    }
}
