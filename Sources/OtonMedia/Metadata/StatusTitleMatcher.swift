import Foundation

/// Whether a status API's title names the track being heard. Status APIs lag
/// (and during Icecast's burst lead) the audio, so an answer is used only when
/// its title is the heard one.
public enum StatusTitleMatcher {
    /// radio.co titles are "Artist - Title"; the stream may say the same, or the host may have split it.
    public static func matches(statusTitle: String, title: String?, artist: String?, rawTitle: String?) -> Bool {
        let status = normalize(statusTitle)
        guard !status.isEmpty else { return false }
        var candidates = [rawTitle, title].compactMap { $0 }.map(normalize)
        if let artist, let title { candidates.append(normalize("\(artist) - \(title)")) }
        if candidates.contains(status) { return true }
        if let title, !normalize(title).isEmpty { return status.hasSuffix(" - " + normalize(title)) }
        return false
    }

    package static func normalize(_ text: String) -> String {
        text.lowercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
