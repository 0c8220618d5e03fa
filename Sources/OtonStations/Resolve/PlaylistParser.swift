import Foundation
import OtonEvents
import OtonMedia

/// Reads the playlist formats stations publish. Pure and bounded: the body is
/// untrusted, so it is capped in size and entries, entries are resolved
/// against the playlist's own URL and only http(s) entries survive (and
/// file entries when the playlist itself is a local file).
public enum PlaylistParser {
    /// A larger body is refused, not parsed.
    public static let maxBytes = 1024 * 1024
    /// Entries beyond this many are ignored (``Playlist/wasTruncated``).
    public static let maxEntries = 10_000
    /// An entry URL longer than this is refused.
    package static let maxURLLength = 8192

    public enum Failure: Error, Equatable, Sendable {
        case tooLarge(limit: Int)
        case hls

        package var problem: PlaylistProblem {
            switch self {
            case let .tooLarge(limit): .tooLarge(limit: limit)
            case .hls: .hls
            }
        }
    }

    /// Parses `body` as `format`; `base` is where it came from (after redirects).
    public static func parse(_ body: Data, format: PlaylistFormat, base: URL) throws(Failure) -> Playlist {
        guard body.count <= maxBytes else { throw .tooLarge(limit: maxBytes) }
        let text = PlaylistText.decode(body)
        var reader = EntryCollector(base: base)
        var title: String?
        switch format {
        case .pls: title = parsePLS(text, into: &reader)
        case .m3u: title = try parseM3U(text, into: &reader)
        case .xspf: title = parseXSPF(text, into: &reader)
        case .asx: title = parseASX(text, into: &reader)
        }
        var playlist = Playlist(format: format, title: title, entries: reader.entries)
        playlist.refusedEntries = reader.refused
        playlist.wasTruncated = reader.truncated
        return playlist
    }

    // MARK: PLS

    /// `FileN=` and `TitleN=` with keys in any case, ordered by N; NumberOfEntries is not trusted.
    package static func parsePLS(_ text: String, into reader: inout EntryCollector) -> String? {
        var files: [Int: String] = [:]
        var titles: [Int: String] = [:]
        for line in PlaylistText.lines(text) {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if key.hasPrefix("file"), let number = Int(key.dropFirst(4)), files.count < maxEntries + 1 {
                files[number] = value
            } else if key.hasPrefix("title"), let number = Int(key.dropFirst(5)), titles.count < maxEntries + 1 {
                titles[number] = value
            }
        }
        for number in files.keys.sorted() {
            reader.add(files[number]!, title: titles[number])
        }
        return nil
    }

    // MARK: M3U

    /// Plain and extended M3U: `#EXTINF:…,Title` titles the next entry, `#PLAYLIST:` the list;
    /// other `#` lines are comments. HLS tags make it an HLS playlist, which this is not for.
    package static func parseM3U(_ text: String, into reader: inout EntryCollector) throws(Failure) -> String? {
        var pendingTitle: String?
        var playlistTitle: String?
        for line in PlaylistText.lines(text) {
            if line.hasPrefix("#") {
                let upper = line.uppercased()
                if HLSDetector.isHLSTag(upper) { throw .hls }
                if upper.hasPrefix("#EXTINF:") {
                    pendingTitle = extinfTitle(line)
                } else if upper.hasPrefix("#PLAYLIST:") {
                    playlistTitle = PlaylistText.nonEmpty(String(line.dropFirst(10)))
                }
                continue
            }
            reader.add(line, title: pendingTitle)
            pendingTitle = nil
        }
        return playlistTitle
    }

    /// The text after the first comma outside quotes (`#EXTINF:-1 tvg-name="a,b",Title`): ``EXTINFLine``.
    package static func extinfTitle(_ line: String) -> String? { EXTINFLine.text(line) }

    // MARK: XSPF

    /// `<track>` elements in order, each with its first `<location>` and `<title>`;
    /// the playlist's `<title>` is the one before `<trackList>`.
    package static func parseXSPF(_ text: String, into reader: inout EntryCollector) -> String? {
        let scanner = MarkupScanner(text)
        let head = scanner.before(tag: "trackList")
        for track in scanner.elements("track") {
            let inner = MarkupScanner(track.inner)
            for location in inner.elements("location").prefix(1) {
                reader.add(MarkupScanner.text(location.inner), title: inner.elements("title").first.map { MarkupScanner.text($0.inner) })
            }
        }
        return MarkupScanner(head).elements("title").first.map { MarkupScanner.text($0.inner) }.flatMap(PlaylistText.nonEmpty)
    }

    // MARK: ASX

    /// `<entry>` elements in order, each `<ref href>` in it an alternative for that entry;
    /// `<entryref href>` points to another playlist. Tags in any case; not required to be valid XML.
    package static func parseASX(_ text: String, into reader: inout EntryCollector) -> String? {
        let scanner = MarkupScanner(text)
        let head = scanner.before(tag: "entry")
        for entry in scanner.elements("entry") {
            let inner = MarkupScanner(entry.inner)
            let title = inner.elements("title").first.map { MarkupScanner.text($0.inner) }
            for ref in inner.openTags("ref") {
                if let href = ref.attribute("href") { reader.add(href, title: title) }
            }
        }
        for ref in scanner.openTags("entryref") {
            if let href = ref.attribute("href") { reader.add(href, title: nil) }
        }
        return MarkupScanner(head).elements("title").first.map { MarkupScanner.text($0.inner) }.flatMap(PlaylistText.nonEmpty)
    }
}

/// Turns raw entry strings into checked absolute URLs.
package struct EntryCollector {
    package let base: URL
    package private(set) var entries: [PlaylistEntry] = []
    package private(set) var refused: [String] = []
    package private(set) var truncated = false

    package init(base: URL) {
        self.base = base
    }

    package mutating func add(_ raw: String, title: String?) {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return }
        guard entries.count < PlaylistParser.maxEntries else {
            truncated = true
            return
        }
        if let url = Self.resolve(trimmed, base: base) {
            entries.append(PlaylistEntry(url: url, title: title.flatMap(PlaylistText.nonEmpty)))
        } else if refused.count < 20 {
            refused.append(String(trimmed.prefix(200)))
        }
    }

    /// An absolute http(s) URL with a host; a `file:` URL only when the playlist is a local file.
    package static func resolve(_ raw: String, base: URL) -> String? {
        guard raw.utf8.count <= PlaylistParser.maxURLLength else { return nil }
        let parsed =
            URL(string: raw, relativeTo: base)
            ?? raw.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed.union(["#"])).flatMap { URL(string: $0, relativeTo: base) }
        guard let url = parsed?.absoluteURL, let scheme = url.scheme?.lowercased() else { return nil }
        switch scheme {
        case "http", "https":
            guard let host = url.host, !host.isEmpty else { return nil }
            return url.absoluteString
        case "file":
            return base.isFileURL ? url.absoluteString : nil
        default:
            return nil
        }
    }
}

/// Text handling shared by the formats.
package enum PlaylistText {
    /// UTF-8 (a BOM is dropped), else Latin-1: old PLS files come from Windows tools.
    package static func decode(_ body: Data) -> String {
        var bytes = [UInt8](body)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return LegacyCodePage.latin1.decode(bytes)
    }

    /// Trimmed, non-empty lines; CRLF, CR and LF all end a line.
    package static func lines(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    package static func nonEmpty(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : String(trimmed.prefix(512))
    }
}
