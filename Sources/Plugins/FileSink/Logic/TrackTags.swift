/// What a recorded file is tagged with, whatever the container (ID3v2.4 on
/// MP3, Vorbis comments on Ogg, LIST INFO on WAV).
public struct TrackTags: Equatable, Sendable {
    public var title: String?
    public var artist: String?
    /// The station.
    public var album: String?
    /// The stream URL.
    public var comment: String?

    public init(title: String? = nil, artist: String? = nil, album: String? = nil, comment: String? = nil) {
        self.title = title
        self.artist = artist
        self.album = album
        self.comment = comment
    }
}
