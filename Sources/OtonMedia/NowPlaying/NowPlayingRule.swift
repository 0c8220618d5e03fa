import Foundation
import OtonJSON
import OtonSupport

/// One rule of the now-playing provider catalogue (docs/titles.md): how to recognise a platform from
/// a stream URL, the now-playing URL to ask, how often, and where the fields sit in its answer.
/// Read from the catalogue's JSON by ``NowPlayingRule/init(json:file:)``; immutable after.
public struct NowPlayingRule: Hashable, Sendable {
    public enum Format: String, Hashable, Sendable, CaseIterable {
        case json
        case xml
        /// SHOUTcast v1's `7.html`: seven comma-separated columns in `<body>`.
        case shoutcast7 = "shoutcast-7html"
    }

    public enum TimeFormat: String, Hashable, Sendable, CaseIterable {
        case unix
        case unixMilliseconds = "unix-ms"
        case iso8601
    }

    public struct Fields: Hashable, Sendable {
        /// Each field: the paths tried in order (`"a|b"` in the file).
        public var artist: [NowPlayingPath] = []
        public var title: [NowPlayingPath] = []
        /// "Artist - Title" in one field, used when `title` finds nothing.
        public var text: [NowPlayingPath] = []
        public var started: [NowPlayingPath] = []
        public var duration: [NowPlayingPath] = []
        public var cover: [NowPlayingPath] = []
        public var station: [NowPlayingPath] = []
        /// The station's logo (radio.co's `logo_url`).
        public var logo: [NowPlayingPath] = []
    }

    public var name: String
    /// A regular expression over the stream URL; named groups become placeholders of `url`.
    public var streamPattern: String
    /// Matches any station (Icecast, SHOUTcast): tried only after the platform rules, when found by trying.
    public var generic: Bool
    /// The now-playing URL: a template of `{scheme}`, `{host}`, `{port}`, `{authority}`, `{path}`,
    /// `{mount}` and the pattern's named groups.
    public var url: String
    /// A push channel (SSE) the platform documents; followed where oton can, else `url` is polled.
    public var push: String?
    /// Where each pushed event's item sits (AzuraCast wraps it in the channel's message); nil: the root.
    public var pushItem: [NowPlayingPath]
    public var pollSeconds: Double
    public var format: Format
    /// The item the fields are read from (a filter picks the stream's mount); nil: the root.
    public var item: NowPlayingPath?
    public var fields: Fields
    public var startedFormat: TimeFormat
    /// A path and value that mean the station is off air: the title is dropped (radio.co's `status`).
    public var offline: (path: NowPlayingPath, value: String)?
    /// Values that mean "no value" for every field (Icecast's "Unspecified name").
    public var placeholders: [String]
    /// Titles may be Latin-1 read as UTF-8 (Icecast): recover the bytes as for ICY titles.
    public var recoverLatin1: Bool

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name && lhs.url == rhs.url && lhs.streamPattern == rhs.streamPattern }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    public static let pollRange: ClosedRange<Double> = 5...3600

    /// Reads one rule; the error names `file`, the rule and the field, and says what to write.
    public init(json: JSONValue, file: String, index: Int) throws(CatalogueMessage) {
        guard case .object = json else {
            throw CatalogueMessage(
                N_("{file}: rule {index} is not an object: write {\"name\": …, \"match\": …, \"url\": …}"), ["file": file, "index": String(index + 1)])
        }
        guard let name = json["name"]?.stringValue?.trimmingCharacters(in: .whitespaces), !name.isEmpty,
            name.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) })
        else {
            throw CatalogueMessage(N_("{file}: rule {index} needs a \"name\" of letters, digits, '.', '_' or '-'"), ["file": file, "index": String(index + 1)])
        }
        func wrong(_ field: String, _ expected: String) -> CatalogueMessage {
            CatalogueMessage(N_("{file}: rule \"{rule}\": \"{field}\" must be {expected}"), ["file": file, "rule": name, "field": field, "expected": expected])
        }
        self.name = name
        generic = json["generic"]?.boolValue ?? false
        let match = json["match"]
        guard let pattern = match?.stringValue ?? (generic ? "^https?://" : nil) else {
            throw wrong("match", N_("a regular expression over the stream URL"))
        }
        do {
            _ = try Regex(pattern)
        } catch {
            throw wrong("match", N_("a regular expression over the stream URL") + " (\(error))")
        }
        streamPattern = pattern
        guard let url = json["url"]?.stringValue, url.hasPrefix("http://") || url.hasPrefix("https://") || url.hasPrefix("{scheme}://") else {
            throw wrong("url", N_("an http(s) URL template such as {scheme}://{authority}/status-json.xsl"))
        }
        self.url = url
        push = json["push"]?.stringValue
        let poll = json["poll_seconds"].map { $0.numberValue } ?? 30
        guard let poll, Self.pollRange.contains(poll) else { throw wrong("poll_seconds", N_("a number of seconds from 5 to 3600")) }
        pollSeconds = poll
        let formatText = json["format"]?.stringValue ?? "json"
        guard let format = Format(rawValue: formatText) else { throw wrong("format", N_("one of json, xml, shoutcast-7html")) }
        self.format = format
        let timeText = json["started_format"]?.stringValue ?? "unix"
        guard let time = TimeFormat(rawValue: timeText) else { throw wrong("started_format", N_("one of unix, unix-ms, iso8601")) }
        startedFormat = time
        func paths(_ field: String, _ value: JSONValue?) throws(CatalogueMessage) -> [NowPlayingPath] {
            guard let value else { return [] }
            guard let text = value.stringValue else { throw wrong(field, N_("a path such as icestats.source[listenurl~={path}].title")) }
            var list: [NowPlayingPath] = []
            for part in text.split(separator: "|") {
                guard let path = NowPlayingPath(String(part)) else { throw wrong(field, N_("a path such as icestats.source[listenurl~={path}].title")) }
                list.append(path)
            }
            return list
        }
        item = try paths("item", json["item"]).first
        pushItem = try paths("push_item", json["push_item"])
        guard let fieldsJSON = json["fields"], case .object = fieldsJSON else {
            throw wrong("fields", N_("an object naming where \"title\" (or \"text\") and \"artist\" sit"))
        }
        fields = Fields(
            artist: try paths("fields.artist", fieldsJSON["artist"]), title: try paths("fields.title", fieldsJSON["title"]),
            text: try paths("fields.text", fieldsJSON["text"]), started: try paths("fields.started", fieldsJSON["started"]),
            duration: try paths("fields.duration", fieldsJSON["duration"]), cover: try paths("fields.cover", fieldsJSON["cover"]),
            station: try paths("fields.station", fieldsJSON["station"]), logo: try paths("fields.logo", fieldsJSON["logo"]))
        guard !fields.title.isEmpty || !fields.text.isEmpty else {
            throw wrong("fields", N_("an object naming where \"title\" (or \"text\") and \"artist\" sit"))
        }
        if let offline = json["offline"] {
            guard let path = try paths("offline.path", offline["path"]).first, let value = offline["value"]?.text else {
                throw wrong("offline", N_("an object {\"path\": …, \"value\": …}"))
            }
            self.offline = (path, value)
        } else {
            offline = nil
        }
        placeholders = (json["placeholders"]?.stringsValue ?? []).map { $0.lowercased() }
        recoverLatin1 = json["recover_latin1"]?.boolValue ?? false
    }

    /// The placeholders for `streamURL` when the rule matches it, else nil.
    public func placeholders(for streamURL: URL) -> [String: String]? {
        guard let scheme = streamURL.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = streamURL.host,
            let regex = try? Regex(streamPattern), let match = try? regex.firstMatch(in: streamURL.absoluteString)
        else { return nil }
        var values: [String: String] = [:]
        for capture in match.output {
            if let name = capture.name, let text = capture.substring { values[name] = String(text) }
        }
        let port = streamURL.port.map(String.init) ?? (scheme == "https" ? "443" : "80")
        let path = streamURL.path.isEmpty ? "/" : streamURL.path
        values["scheme"] = values["scheme"] ?? scheme
        values["host"] = values["host"] ?? host
        values["port"] = values["port"] ?? port
        values["authority"] = values["authority"] ?? (streamURL.port.map { "\(host):\($0)" } ?? host)
        values["path"] = values["path"] ?? path
        values["mount"] = values["mount"] ?? String(path.drop(while: { $0 == "/" }))
        return values
    }

    /// The push channel's URL for these placeholders (its JSON query percent-encoded), or nil.
    public func pushURL(_ values: [String: String]) -> URL? {
        guard let push else { return nil }
        let filled = Self.fill(push, values)
        return URL(string: filled) ?? filled.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed).flatMap(URL.init(string:))
    }

    /// Whether the platform documents only the push channel (Zeno): it is followed to find a title too.
    public var pushOnly: Bool { push != nil && push == url }

    /// `template` with each `{name}` replaced; an unknown name stays as written.
    public static func fill(_ template: String, _ values: [String: String]) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let after = rest.index(after: open)
            let end = rest[after...].firstIndex(where: { !($0.isLetter || $0.isNumber || $0 == "_") }) ?? rest.endIndex
            guard end < rest.endIndex, rest[end] == "}", end > after, let value = values[String(rest[after..<end])] else {
                out += "{"
                rest = rest[after...]
                continue
            }
            out += value
            rest = rest[rest.index(after: end)...]
        }
        return out + rest
    }
}
