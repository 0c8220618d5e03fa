import Foundation
import OtonJSON

/// Now-playing information from a station's status API. Strings are as the
/// API sent them (not yet normalized); URLs are absolute http(s) only.
public struct StationStatus: Hashable, Sendable {
    public var title: String?
    public var artworkURL: URL?
    public var logoURL: URL?
    public var stationName: String?
    /// When the API says the song started (a provider rule's `started`), for timeshift and the log.
    public var startedAt: Date?
    /// The song's length the API gives, in seconds.
    public var durationSeconds: Double?

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

    /// The catalogue rule that reads this format (docs/titles.md): one reader for every provider.
    public var ruleName: String {
        switch self {
        case .radioCo: "radio.co"
        case .icecast: "icecast"
        }
    }

    /// What a `status_url` of plugins.json is: Icecast's status page by its name, else radio.co.
    public init(statusURL: URL) {
        self = statusURL.path.hasSuffix("status-json.xsl") ? .icecast : .radioCo
    }
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

/// Parses untrusted status-API responses of plugins.json's `status_url` by the catalogue's rule for
/// the format (``NowPlayingReader``). Never traps: wrong types are treated as missing fields;
/// structural problems throw.
public enum StationStatusParser {
    public static let defaultMaxBytes = 1 << 20
    /// Longer strings are cut; the normalizer caps display length anyway.
    public static let maxFieldCharacters = NowPlayingReader.maxFieldCharacters
    public static let maxURLLength = 2048

    public static func parse(
        _ data: Data, format: StationStatusFormat, streamURL: URL? = nil,
        maxBytes: Int = defaultMaxBytes, catalogue: NowPlayingCatalogue = .installed
    ) throws(StationStatusParseError) -> StationStatus {
        guard let rule = catalogue.rule(named: format.ruleName) else { throw .unexpectedStructure("catalogue rule \(format.ruleName)") }
        let path = streamURL.map { $0.path.isEmpty ? "/" : $0.path }
        var placeholders = streamURL.flatMap { rule.placeholders(for: $0) } ?? [:]
        placeholders["path"] = path
        // A status_url the user named may report a proxied mount under another name: a lone source is used.
        return try NowPlayingReader.read(data, rule: rule, placeholders: placeholders, loneItem: true, maxBytes: maxBytes)
    }

    /// radio.co: `{"status":"online","current_track":{"title":…,"artwork_url":…,
    /// "artwork_url_large":…},"logo_url":…}`. The large artwork is preferred; when `status` is
    /// "offline" the title is dropped (it would be stale).
    public static func parseRadioCo(_ data: Data, maxBytes: Int = defaultMaxBytes) throws(StationStatusParseError) -> StationStatus {
        try parse(data, format: .radioCo, maxBytes: maxBytes)
    }

    /// Icecast `status-json.xsl`: the source whose `listenurl` path equals `streamURL`'s path
    /// (trailing "/" ignored; hosts are not compared because Icecast often reports an internal host
    /// name), else the only source; the title is "artist - title".
    public static func parseIcecast(
        _ data: Data, streamURL: URL?,
        maxBytes: Int = defaultMaxBytes
    ) throws(StationStatusParseError) -> StationStatus {
        try parse(data, format: .icecast, streamURL: streamURL, maxBytes: maxBytes)
    }

    /// Only absolute http(s) URLs with a host; anything else (javascript:,
    /// file:, relative paths, over-long strings) is dropped.
    package static func webURL(_ value: JSONValue?) -> URL? {
        guard let text = value?.text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty, text.utf8.count <= maxURLLength,
            let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { return nil }
        return url
    }
}
