import Foundation

/// Everything known about what is playing now: the payload of a `track` event.
public struct TrackInfo: Hashable, Sendable {
    public var title: String?
    public var artist: String?
    /// The cleaned full title before "Artist - Title" splitting.
    public var rawTitle: String?
    public var station: String?
    public var genre: String?
    /// bit/s: the nominal bitrate when known, else the latest measured one.
    public var bitrate: Int?
    public var codec: String?
    public var artworkURL: URL?
    public var streamURL: URL?
    /// The station's logo: plugins.json's `logo_url`, else the status API's (a text field only).
    public var stationLogoURL: URL?
    /// A break (an ad, a jingle, a gap): the stream said nothing is playing (an empty or placeholder
    /// title) after it had named a track. Title, artist, raw title and artwork are then absent.
    /// Sent to plugins as the field `break` = "1".
    public var isBreak: Bool
    /// Where `title` and `artist` came from; nil when there is no title (sent as `title_source`).
    public var titleSource: TitleSource?

    public init(
        title: String? = nil, artist: String? = nil, rawTitle: String? = nil, station: String? = nil,
        genre: String? = nil, bitrate: Int? = nil, codec: String? = nil, artworkURL: URL? = nil,
        streamURL: URL? = nil, stationLogoURL: URL? = nil, isBreak: Bool = false, titleSource: TitleSource? = nil
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
        self.stationLogoURL = stationLogoURL
        self.isBreak = isBreak
        self.titleSource = titleSource
    }

    /// The fields a listener sees; only changes to these produce events.
    package struct Visible: Hashable {
        package var title: String?, artist: String?, station: String?, artworkURL: URL?, stationLogoURL: URL?
        package var isBreak: Bool
        package var titleSource: TitleSource?
    }

    package var visible: Visible {
        Visible(
            title: title, artist: artist, station: station, artworkURL: artworkURL, stationLogoURL: stationLogoURL, isBreak: isBreak,
            titleSource: titleSource)
    }
}
