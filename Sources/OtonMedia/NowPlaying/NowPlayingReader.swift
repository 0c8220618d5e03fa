import Foundation
import OtonJSON

/// Reads a now-playing answer by a rule: parses the body in the rule's format, picks the item (the
/// stream's mount) and reads artist, title, start, duration, cover and station name from it. Never
/// traps on what a server sends: wrong types are missing fields; a body over the cap, not in the
/// format, or without the item throws. Pure; any thread.
public enum NowPlayingReader {
    /// Longer fields are cut (the normalizer caps display length anyway).
    public static let maxFieldCharacters = 4096

    public static func read(
        _ data: Data, rule: NowPlayingRule, placeholders: [String: String],
        loneItem: Bool = false, pushed: Bool = false, maxBytes: Int = StationStatusParser.defaultMaxBytes
    ) throws(StationStatusParseError) -> StationStatus {
        guard data.count <= maxBytes else { throw .tooLarge(byteCount: data.count, limit: maxBytes) }
        let root = try document(data, format: pushed ? .json : rule.format, maxBytes: maxBytes)
        guard case .object = root else { throw .unexpectedStructure("root object") }
        let fill = { (text: String) in NowPlayingRule.fill(text, placeholders) }
        var item = root
        if pushed, !rule.pushItem.isEmpty {
            // A pushed event: its item sits where one of `push_item` says (a ping or another message has none).
            guard let found = rule.pushItem.lazy.compactMap({ $0.value(in: root, fill: fill) }).first else {
                throw .unexpectedStructure(rule.pushItem.map(\.description).joined(separator: "|"))
            }
            item = found
        } else if !pushed, let path = rule.item {
            var miss: NowPlayingPath.Miss?
            guard let found = path.value(in: root, fill: fill, loneItem: loneItem, miss: &miss) else {
                if case let .key(key)? = miss { throw .unexpectedStructure(key) }
                throw .noMatchingSource(streamPath: placeholders["path"])
            }
            item = found
        }
        func field(_ paths: [NowPlayingPath]) -> String? {
            for path in paths {
                guard let text = NowPlayingPath.text(path.value(in: item, fill: fill)) else { continue }
                let trimmed = CharacterReferences.decode(text).trimmingCharacters(in: .whitespacesAndNewlines)
                guard !trimmed.isEmpty, !rule.placeholders.contains(trimmed.lowercased()) else { continue }
                return trimmed.count > maxFieldCharacters ? String(trimmed.prefix(maxFieldCharacters)) : trimmed
            }
            return nil
        }
        var title = combined(artist: field(rule.fields.artist), title: field(rule.fields.title)) ?? field(rule.fields.text)
        if let offline = rule.offline {
            let said = NowPlayingPath.text(offline.path.value(in: item, fill: fill))
            if said?.lowercased() == offline.value.lowercased() { title = nil }
        }
        if rule.recoverLatin1 { title = title.map { TitleByteDecoder.decode(convertedText: $0).text } }
        var status = StationStatus(
            title: title, artworkURL: field(rule.fields.cover).flatMap(webURL), logoURL: field(rule.fields.logo).flatMap(webURL),
            stationName: field(rule.fields.station))
        status.startedAt = field(rule.fields.started).flatMap { time($0, format: rule.startedFormat) }
        status.durationSeconds = field(rule.fields.duration).flatMap(Double.init).flatMap { $0.isFinite && $0 > 0 && $0 < 86_400 ? $0 : nil }
        return status
    }

    /// The answer as a value: JSON as parsed, XML as ``NowPlayingXML`` shapes it, `7.html` as an
    /// object of its named columns.
    static func document(_ data: Data, format: NowPlayingRule.Format, maxBytes: Int) throws(StationStatusParseError) -> JSONValue {
        switch format {
        case .json:
            do {
                return try JSONParser(maxBytes: maxBytes).parse(data)
            } catch {
                throw .notJSON
            }
        case .xml:
            guard let value = NowPlayingXML.parse(data) else { throw .unexpectedStructure("XML document") }
            return value
        case .shoutcast7:
            return try shoutcast7(String(decoding: data, as: UTF8.self))
        }
    }

    /// SHOUTcast v1 `7.html`: `<body>listeners,status,peak,max,unique,bitrate,song title</body>`; the
    /// title is the rest of the line (it may hold commas).
    static func shoutcast7(_ page: String) throws(StationStatusParseError) -> JSONValue {
        let lower = page.lowercased()
        guard let open = lower.range(of: "<body>"), let close = lower.range(of: "</body>", range: open.upperBound..<lower.endIndex) else {
            throw .unexpectedStructure("<body>")
        }
        let start = page.index(page.startIndex, offsetBy: lower.distance(from: lower.startIndex, to: open.upperBound))
        let end = page.index(page.startIndex, offsetBy: lower.distance(from: lower.startIndex, to: close.lowerBound))
        let columns = page[start..<end].split(separator: ",", maxSplits: 6, omittingEmptySubsequences: false).map(String.init)
        let names = ["currentlisteners", "streamstatus", "peaklisteners", "maxlisteners", "uniquelisteners", "bitrate", "songtitle"]
        guard columns.count == names.count, Int(columns[0].trimmingCharacters(in: .whitespaces)) != nil else {
            throw .unexpectedStructure("<body> with seven comma-separated columns")
        }
        return .object(Dictionary(uniqueKeysWithValues: zip(names, columns.map { JSONValue.string($0) })))
    }

    /// "Artist - Title" when both exist (unless the title already starts with the artist).
    static func combined(artist: String?, title: String?) -> String? {
        guard let artist else { return title }
        guard let title else { return artist }
        return title.lowercased().hasPrefix(artist.lowercased()) ? title : "\(artist) - \(title)"
    }

    static func webURL(_ text: String) -> URL? {
        StationStatusParser.webURL(.string(text))
    }

    static func time(_ text: String, format: NowPlayingRule.TimeFormat) -> Date? {
        switch format {
        case .unix, .unixMilliseconds:
            guard let number = Double(text), number.isFinite, number > 0 else { return nil }
            return Date(timeIntervalSince1970: format == .unix ? number : number / 1000)
        case .iso8601:
            let formatter = ISO8601DateFormatter()
            if let date = formatter.date(from: text) { return date }
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.date(from: text)
        }
    }
}
