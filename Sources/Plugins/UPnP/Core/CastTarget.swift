import OtonPluginKit
import UPnPLogic

/// What is handed to a renderer: the stream the player is connected to (the host has already
/// resolved a playlist to its entry), its format, and the words of the DIDL-Lite metadata, all
/// taken from the latest track event.
struct CastTarget: Equatable {
    var url: String
    var codec: String?
    var title: String?
    var artist: String?
    var station: String?
    var artworkURL: String?

    init?(track: TrackFields?) {
        guard let track, let url = track.streamURL, url.hasPrefix("http://") || url.hasPrefix("https://") else { return nil }
        self.url = url
        codec = track.codec
        title = track.title
        artist = track.artist
        station = track.station
        artworkURL = track.artworkURL
    }

    var format: StreamFormat? { StreamFormat.of(codec: codec, url: url) }

    /// The item's title: the song when the stream names one, else the station.
    var displayTitle: String { title ?? station ?? url }
}
