import Foundation

/// The playlist formats stations publish instead of a stream URL.
public enum PlaylistFormat: String, Sendable, Equatable, CaseIterable {
    /// `[playlist]` with File1=, Title1= (SHOUTcast/Winamp).
    case pls
    /// One URL per line, optionally `#EXTM3U` with `#EXTINF` titles (also non-HLS `.m3u8`).
    case m3u
    /// XML Shareable Playlist Format: `<track><location>…</location></track>`.
    case xspf
    /// Windows Media `<asx><entry><ref href="…"/></entry></asx>`.
    case asx
}

/// One entry of a parsed playlist: an absolute URL already checked for its scheme.
public struct PlaylistEntry: Sendable, Equatable {
    public var url: String
    public var title: String?

    public init(url: String, title: String? = nil) {
        self.url = url
        self.title = title
    }
}

/// What a playlist says: its entries in order and, when it has one, a title for the station.
public struct Playlist: Sendable, Equatable {
    public var format: PlaylistFormat
    public var title: String?
    public var entries: [PlaylistEntry]
    /// Entries dropped because of their scheme (javascript:, file: in a remote playlist, …), for the log.
    public var refusedEntries: [String] = []
    /// The playlist had more entries than ``PlaylistParser/maxEntries``; the rest were ignored.
    public var wasTruncated = false

    public init(format: PlaylistFormat, title: String? = nil, entries: [PlaylistEntry]) {
        self.format = format
        self.title = title
        self.entries = entries
    }
}
