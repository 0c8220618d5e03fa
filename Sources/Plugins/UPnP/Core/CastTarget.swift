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

    init?(track fields: [String: String]) {
        guard let url = fields["stream_url"], url.hasPrefix("http://") || url.hasPrefix("https://") else { return nil }
        self.url = url
        codec = fields["codec"].flatMap { $0.isEmpty ? nil : $0 }
        title = fields["title"].flatMap { $0.isEmpty ? nil : $0 }
        artist = fields["artist"].flatMap { $0.isEmpty ? nil : $0 }
        station = fields["station"].flatMap { $0.isEmpty ? nil : $0 }
        artworkURL = fields["artwork_url"].flatMap { $0.isEmpty ? nil : $0 }
    }

    var format: StreamFormat? { StreamFormat.of(codec: codec, url: url) }

    /// The item's title: the song when the stream names one, else the station.
    var displayTitle: String { title ?? station ?? url }
}
