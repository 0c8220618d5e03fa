/// What a recorded file is tagged with, whatever the container (ID3v2.4 on
/// MP3, Vorbis comments on Ogg and FLAC, LIST INFO on WAV).
public struct TrackTags: Equatable, Sendable {
    public var title: String?
    public var artist: String?
    /// The station.
    public var album: String?
    /// The stream URL.
    public var comment: String?
    /// Where the title came from (`stream`, `station-api`, `provider:<rule>`, `recognised`): the ID3
    /// frame TXXX "TITLE_SOURCE" on MP3, the comment TITLE_SOURCE on Ogg and FLAC. WAV's INFO list
    /// has no field for it (the folder's index says it).
    public var titleSource: String?

    /// The ID3 TXXX description and the Vorbis comment name of ``titleSource``.
    public static let titleSourceKey = "TITLE_SOURCE"

    public init(title: String? = nil, artist: String? = nil, album: String? = nil, comment: String? = nil, titleSource: String? = nil) {
        self.title = title
        self.artist = artist
        self.album = album
        self.comment = comment
        self.titleSource = titleSource
    }
}
