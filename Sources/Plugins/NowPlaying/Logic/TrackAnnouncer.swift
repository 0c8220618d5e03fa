import Foundation
import OtonPluginKit

/// Decides whether a track is worth a desktop notification: a break or a track without a title is
/// not (the host decides what is a track: empty and placeholder titles, the station's own name), nor
/// is one that matches the listener's skip patterns (jingles, adverts).
public struct TrackAnnouncer: Sendable {
    /// Case-insensitive substrings of title or artist that mark a jingle or an advert.
    public var skipPatterns: [String]

    public init(skipPatterns: [String] = ["jingle"]) {
        self.skipPatterns = skipPatterns.map { $0.lowercased() }.filter { !$0.isEmpty }
    }

    public func shouldAnnounce(_ track: TrackFields) -> Bool {
        guard !track.isBreak, let title = Self.normalized(track.title), !title.isEmpty else { return false }
        let artist = Self.normalized(track.artist) ?? ""
        return !skipPatterns.contains { title.contains($0) || artist.contains($0) }
    }

    private static func normalized(_ text: String?) -> String? {
        text?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }
}
