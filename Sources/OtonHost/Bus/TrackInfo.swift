/// What a listener sees about the current track: the payload of a `track` event.
public struct TrackInfo: Equatable, Sendable {
    public var title: String?
    public var artist: String?
    public var rawTitle: String?
    public var station: String?
    public var genre: String?
    public var bitrate: Int?
    public var codec: String?
    public var artworkURL: String?
    public var streamURL: String?

    public init(
        title: String? = nil, artist: String? = nil, rawTitle: String? = nil,
        station: String? = nil, genre: String? = nil, bitrate: Int? = nil,
        codec: String? = nil, artworkURL: String? = nil, streamURL: String? = nil
    ) {
        self.title = title
        self.artist = artist
        self.rawTitle = rawTitle
        self.station = station
        self.genre = genre
        self.bitrate = bitrate
        self.codec = codec
        self.artworkURL = artworkURL
        self.streamURL = streamURL
    }
}
