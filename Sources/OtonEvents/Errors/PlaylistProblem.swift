import OtonSupport

/// Why a playlist gave no stream to play. Carried by
/// ``StreamUnavailableReason/playlist(_:)`` so it reaches the listener as a
/// typed playback error with a message and a suggestion.
public enum PlaylistProblem: Hashable, Sendable {
    /// An HLS media or master playlist (`#EXT-X-…`), and GStreamer's HLS demuxer is not installed.
    case hls
    /// No entry with a URL oton may open.
    case empty
    /// The playlist is larger than the cap.
    case tooLarge(limit: Int)
    /// Playlists inside playlists more than this many levels deep (or a playlist that includes itself).
    case tooDeep(limit: Int)
    /// Every entry was tried and none answered with a stream.
    case noEntryReachable(tried: Int)

    public var code: String {
        switch self {
        case .hls: "playlist-hls"
        case .empty: "playlist-empty"
        case .tooLarge: "playlist-too-large"
        case .tooDeep: "playlist-too-deep"
        case .noEntryReachable: "playlist-unreachable"
        }
    }

    /// In English (events, the control socket).
    public var message: String { message(in: .english) }
    public var recoverySuggestion: String { recoverySuggestion(in: .english) }

    public func message(in catalogue: MessageCatalogue) -> String {
        switch self {
        case .hls: catalogue.tr("This station streams over HLS, and this GStreamer has no HLS demuxer (hlsdemux).")
        case .empty: catalogue.tr("The station's playlist lists no stream oton can open.")
        case let .tooLarge(limit): catalogue.tr("The station's playlist is larger than {limit} KiB, so it was not read.", ["limit": "\(limit / 1024)"])
        case let .tooDeep(limit):
            catalogue.tr("The station's playlist nests playlists more than {limit} levels deep (or includes itself).", ["limit": "\(limit)"])
        case let .noEntryReachable(tried): catalogue.tr("None of the {count} streams in the station's playlist answered.", ["count": "\(tried)"])
        }
    }

    public func recoverySuggestion(in catalogue: MessageCatalogue) -> String {
        switch self {
        case .hls: catalogue.tr("Install gstreamer1.0-plugins-bad (scripts/bootstrap does), or use an MP3, AAC or Ogg stream URL from the station's website.")
        case .empty, .tooLarge, .tooDeep: catalogue.tr("Check the station's URL, or use one of the stream URLs inside the playlist directly.")
        case .noEntryReachable: catalogue.tr("The station may be off air. Try again later, or check the station's URL.")
        }
    }

    /// Only unreachable entries can come back by themselves.
    public var isRetryable: Bool {
        if case .noEntryReachable = self { return true }
        return false
    }
}
