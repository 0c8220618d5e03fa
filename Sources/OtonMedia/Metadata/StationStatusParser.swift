import Foundation
import OtonJSON

/// Now-playing information from a station's status API. Strings are as the
/// API sent them (not yet normalized); URLs are absolute http(s) only.
public struct StationStatus: Hashable, Sendable {
    public var title: String?
    public var artworkURL: URL?
    public var logoURL: URL?
    public var stationName: String?

    public init(title: String? = nil, artworkURL: URL? = nil, logoURL: URL? = nil, stationName: String? = nil) {
        self.title = title
        self.artworkURL = artworkURL
        self.logoURL = logoURL
        self.stationName = stationName
    }
}

public enum StationStatusFormat: String, Sendable, CaseIterable {
    /// `https://public.radio.co/stations/<id>/status`
    case radioCo
    /// Icecast `…/status-json.xsl`
    case icecast
}

public enum StationStatusParseError: Error, Hashable, Sendable {
    /// The body is larger than the limit; it was not parsed.
    case tooLarge(byteCount: Int, limit: Int)
    /// The body is not JSON (HTML error page, garbage, nesting deeper than 64, a key twice…).
    case notJSON
    /// Valid JSON, but not shaped like this API (the path that was missing).
    case unexpectedStructure(String)
    /// Icecast: no source (mount) matches the stream URL's path.
    case noMatchingSource(streamPath: String?)
}

/// Parses untrusted status-API responses. Never traps: wrong types are
/// treated as missing fields; structural problems throw.
public enum StationStatusParser {
    public static let defaultMaxBytes = 1 << 20
    /// Longer strings are cut; the normalizer caps display length anyway.
    public static let maxFieldCharacters = 4096
    public static let maxURLLength = 2048

    public static func parse(
        _ data: Data, format: StationStatusFormat, streamURL: URL? = nil,
        maxBytes: Int = defaultMaxBytes
    ) throws(StationStatusParseError) -> StationStatus {
        switch format {
        case .radioCo: try parseRadioCo(data, maxBytes: maxBytes)
        case .icecast: try parseIcecast(data, streamURL: streamURL, maxBytes: maxBytes)
        }
    }

    /// radio.co: `{"status":"online","current_track":{"title":…,"artwork_url":…,
    /// "artwork_url_large":…},"logo_url":…}`. The large artwork is preferred.
    /// When `status` is "offline" the title is dropped (it would be stale);
    /// the logo is kept.
    public static func parseRadioCo(_ data: Data, maxBytes: Int = defaultMaxBytes) throws(StationStatusParseError) -> StationStatus {
        let root = try decode(data, maxBytes: maxBytes)
        guard case .object = root else { throw .unexpectedStructure("root object") }
        let track = root["current_track"]
        let isOffline = root["status"]?.text?.lowercased() == "offline"
        return StationStatus(
            title: isOffline ? nil : field(track?["title"]),
            artworkURL: webURL(track?["artwork_url_large"]) ?? webURL(track?["artwork_url"]),
            logoURL: webURL(root["logo_url"]),
            stationName: field(root["name"])
        )
    }

    /// Icecast `status-json.xsl`: `{"icestats":{"source": {…} | [{…}, …]}}`.
    ///
    /// The source whose `listenurl` path equals `streamURL`'s path (trailing
    /// "/" ignored) is used; hosts are not compared because Icecast often
    /// reports an internal host name. If none matches and there is exactly
    /// one source, that one is used; otherwise `.noMatchingSource` is thrown.
    /// The title is "artist - title" when both fields exist (unless the
    /// title already starts with the artist); `server_name` gives the name,
    /// ignoring Icecast's placeholder "Unspecified name".
    public static func parseIcecast(
        _ data: Data, streamURL: URL?,
        maxBytes: Int = defaultMaxBytes
    ) throws(StationStatusParseError) -> StationStatus {
        let root = try decode(data, maxBytes: maxBytes)
        guard let icestats = root["icestats"], case .object = icestats else {
            throw .unexpectedStructure("icestats")
        }
        let sources: [JSONValue]
        switch icestats["source"] {
        case .object?: sources = [icestats["source"]!]
        case .array(let list)?: sources = list.filter { if case .object = $0 { true } else { false } }
        default: sources = []
        }
        let wantedPath = streamURL.map { normalizedPath($0.path) }
        let match = sources.first { source in
            guard let wantedPath, let listen = field(source["listenurl"]), let url = URL(string: listen) else { return false }
            return normalizedPath(url.path) == wantedPath
        }
        guard let source = match ?? (sources.count == 1 ? sources[0] : nil) else {
            throw .noMatchingSource(streamPath: wantedPath)
        }
        let name = field(source["server_name"]).flatMap { $0.lowercased() == "unspecified name" ? nil : $0 }
        // Icecast reads non-UTF-8 metadata as Latin-1 too: recover the bytes as for ICY titles.
        let title = icecastTitle(source).map { TitleByteDecoder.decode(convertedText: $0).text }
        return StationStatus(title: title, artworkURL: nil, logoURL: nil, stationName: name)
    }

    private static func icecastTitle(_ source: JSONValue) -> String? {
        let title = field(source["title"]) ?? field(source["yp_currently_playing"])
        guard let artist = field(source["artist"]) else { return title }
        guard let title else { return artist }
        return title.lowercased().hasPrefix(artist.lowercased()) ? title : "\(artist) - \(title)"
    }

    private static func decode(_ data: Data, maxBytes: Int) throws(StationStatusParseError) -> JSONValue {
        guard data.count <= maxBytes else { throw .tooLarge(byteCount: data.count, limit: maxBytes) }
        do {
            return try JSONParser(maxBytes: maxBytes).parse(data)
        } catch {
            throw .notJSON
        }
    }

    /// A non-empty, length-capped text field; numbers are accepted as text.
    private static func field(_ value: JSONValue?) -> String? {
        guard let text = value?.text else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        return trimmed.count > maxFieldCharacters ? String(trimmed.prefix(maxFieldCharacters)) : trimmed
    }

    /// Only absolute http(s) URLs with a host; anything else (javascript:,
    /// file:, relative paths, over-long strings) is dropped.
    package static func webURL(_ value: JSONValue?) -> URL? {
        guard let text = field(value), text.utf8.count <= maxURLLength,
            let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { return nil }
        return url
    }

    private static func normalizedPath(_ path: String) -> String {
        var path = path
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
