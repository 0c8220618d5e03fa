import Foundation

/// Decides whether a track is worth a desktop notification: jingles, station
/// idents (the title is the station's own name) and empty titles are not.
public struct TrackAnnouncer: Sendable {
    /// Case-insensitive substrings of title or artist that mark a jingle or an advert.
    public var skipPatterns: [String]

    public init(skipPatterns: [String] = ["jingle"]) {
        self.skipPatterns = skipPatterns.map { $0.lowercased() }.filter { !$0.isEmpty }
    }

    public func shouldAnnounce(_ track: NowPlayingTrack) -> Bool {
        guard let title = Self.normalized(track.title), !title.isEmpty else { return false }
        if let station = Self.normalized(track.station), !station.isEmpty {
            if title == station { return false }
            if let artist = Self.normalized(track.artist), "\(artist) - \(title)" == station { return false }
        }
        let artist = Self.normalized(track.artist) ?? ""
        return !skipPatterns.contains { title.contains($0) || artist.contains($0) }
    }

    private static func normalized(_ text: String?) -> String? {
        text?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }
}
