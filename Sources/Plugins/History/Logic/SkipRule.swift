import Foundation

/// When a row of history is not a play: a start heard for less than the scrobbling threshold
/// (HistoryConfig.minimumLiveSeconds, config.min_live_seconds, 30 s by default: one number for
/// both), or the source's placeholder ("Unknown - Unknown") instead of a track. Such rows are
/// kept, marked skipped: `history` hides them unless `--all`, and stats do not count them.
/// A track still playing (not ended) is not skipped yet.
public enum SkipRule {
    /// Artist and title words a source sends when it knows neither (compared folded).
    static let placeholderWords: Set<String> = ["unknown", "unknown artist", "unknown title", "untitled", "n/a", "-"]

    /// True when neither artist nor title says anything: each is missing or a placeholder word, and one is present.
    public static func isPlaceholder(artist: String?, title: String?) -> Bool {
        let values = [artist, title].compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        guard !values.isEmpty else { return false }
        return values.allSatisfy { placeholderWords.contains(SearchFolding.fold($0)) }
    }

    public static func isSkipped(artist: String?, title: String?, secondsListened: Double?, ended: Bool, minimumSeconds: Double) -> Bool {
        if isPlaceholder(artist: artist, title: title) { return true }
        guard ended else { return false }
        return (secondsListened ?? 0) < minimumSeconds
    }
}
