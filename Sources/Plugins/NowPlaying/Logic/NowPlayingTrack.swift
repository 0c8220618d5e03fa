/// What the now-playing plugin knows about the track on air, from `track` events.
public struct NowPlayingTrack: Equatable, Sendable {
    public var sequence: UInt64
    public var title: String?
    public var artist: String?
    public var station: String?
    public var url: String?
    /// How many stations the player switches between (the track event's `station_count`): MPRIS
    /// CanGoNext/CanGoPrevious are true when there is more than one.
    public var stationCount = 1

    public init(sequence: UInt64, title: String? = nil, artist: String? = nil, station: String? = nil, url: String? = nil) {
        self.sequence = sequence
        self.title = title
        self.artist = artist
        self.station = station
        self.url = url
    }

    /// Reads a `track` event's text fields (see the plugin guide: sequence, title, artist, station, stream_url).
    public init?(fields: [String: String]) {
        guard let sequence = fields["sequence"].flatMap(UInt64.init) else { return nil }
        self.init(sequence: sequence, title: fields["title"], artist: fields["artist"],
                  station: fields["station"], url: fields["stream_url"])
        stationCount = fields["station_count"].flatMap(Int.init) ?? 1
    }
}
