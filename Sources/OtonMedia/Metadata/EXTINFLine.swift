import Foundation

/// An `#EXTINF:` line of an M3U or HLS playlist: `#EXTINF:2.0,Artist - Title`, with optional
/// attributes before the comma (`#EXTINF:-1 tvg-name="a,b",Title`) or, as some HLS radio
/// packagers write, after it (`#EXTINF:10,title="Song",artist="Band"`). The text is untrusted:
/// callers clean it (``TagNormalizer``) before showing it.
package enum EXTINFLine {
    /// The text after the first comma outside quotes, trimmed; nil when empty (at most 512 characters).
    package static func text(_ line: String) -> String? {
        var inQuotes = false
        for index in line.indices {
            switch line[index] {
            case "\"": inQuotes.toggle()
            case "," where !inQuotes: return nonEmpty(String(line[line.index(after: index)...]))
            default: break
            }
        }
        return nil
    }

    /// The title and artist an HLS segment's line names: the `title="…"` (and `artist="…"`)
    /// attributes after the comma when there are any, else the whole text (split later as "Artist - Title").
    package static func track(_ line: String) -> (title: String, artist: String?)? {
        guard let text = text(line) else { return nil }
        if let title = attribute("title", in: text) {
            return (title, attribute("artist", in: text))
        }
        return (text, nil)
    }

    /// The value of `name="…"` in `text` (case-insensitive name, at a word start), nil when absent or empty.
    private static func attribute(_ name: String, in text: String) -> String? {
        var searchFrom = text.startIndex
        while let range = text.range(of: name + "=\"", options: .caseInsensitive, range: searchFrom..<text.endIndex) {
            searchFrom = range.upperBound
            if range.lowerBound != text.startIndex {
                let before = text[text.index(before: range.lowerBound)]
                guard before == "," || before == " " || before == "\t" else { continue }
            }
            guard let end = text[range.upperBound...].firstIndex(of: "\"") else { return nil }
            return nonEmpty(String(text[range.upperBound..<end]))
        }
        return nil
    }

    private static func nonEmpty(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : String(trimmed.prefix(512))
    }
}
