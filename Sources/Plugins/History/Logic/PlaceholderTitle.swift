import Foundation

/// A title a source sends when it knows no track ("Unknown - Unknown", "Unknown artist"): not a
/// play. History keeps such a row and marks it skipped (hidden unless `--all`, never in stats);
/// it is never scrobbled. Words are compared folded (SearchFolding), so "UNKNOWN" counts too.
public enum PlaceholderTitle {
    static let words: Set<String> = ["unknown", "unknown artist", "unknown title", "untitled", "n/a", "-"]

    /// True when artist and title say nothing: each is missing or a placeholder word, and one is present.
    public static func isPlaceholder(artist: String?, title: String?) -> Bool {
        let values = [artist, title].compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        return !values.isEmpty && values.allSatisfy { words.contains(SearchFolding.fold($0)) }
    }
}
