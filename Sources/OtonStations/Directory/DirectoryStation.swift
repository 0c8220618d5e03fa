import Foundation
import OtonEvents
import OtonJSON

/// One station as the Radio Browser directory describes it, cleaned for use:
/// text fields without control characters (the directory is written by anyone),
/// URLs only when they are http(s), numbers only when they are numbers.
public struct DirectoryStation: Equatable, Sendable {
    /// `stationuuid`: the key of the click-count call; nil when the directory sent none usable.
    public var uuid: String?
    public var name: String
    /// `url`: what the station registered (often a playlist).
    public var url: String
    /// `url_resolved`: the stream the directory's last check reached.
    public var resolvedURL: String?
    public var homepage: String?
    public var favicon: String?
    public var tags: [String]
    public var countryCode: String?
    public var country: String?
    public var language: String?
    public var codec: String?
    /// kbit/s; nil when unknown (the directory sends 0 then).
    public var bitrate: Int?
    /// Whether the directory's last check found the stream online; nil when it did not say.
    public var lastCheckOK: Bool?

    public init(
        uuid: String? = nil, name: String, url: String, resolvedURL: String? = nil, homepage: String? = nil,
        favicon: String? = nil, tags: [String] = [], countryCode: String? = nil, country: String? = nil,
        language: String? = nil, codec: String? = nil, bitrate: Int? = nil, lastCheckOK: Bool? = nil
    ) {
        self.uuid = uuid
        self.name = name
        self.url = url
        self.resolvedURL = resolvedURL
        self.homepage = homepage
        self.favicon = favicon
        self.tags = tags
        self.countryCode = countryCode
        self.country = country
        self.language = language
        self.codec = codec
        self.bitrate = bitrate
        self.lastCheckOK = lastCheckOK
    }

    /// What to play: the resolved stream when the directory has one, else the registered URL.
    public var playURL: String { resolvedURL ?? url }

    /// The station for plugins.json or the player.
    public var station: Station { Station(name: name, url: playURL, homepage: homepage) }
}

extension DirectoryStation {
    /// Longest name, tag or other text field kept (longer ones are cut).
    package static let maxTextLength = 200
    /// Longest URL kept; a longer one counts as missing.
    package static let maxURLLength = 2048

    /// Reads one element of the directory's answer; nil when it has no usable name or http(s) URL.
    public init?(json value: JSONValue) {
        guard case .object = value else { return nil }
        guard let name = Self.text(value["name"]), !name.isEmpty,
            let url = Self.webURL(value["url"]) ?? Self.webURL(value["url_resolved"])
        else { return nil }
        self.init(name: name, url: url)
        uuid = Self.text(value["stationuuid"]).flatMap(Self.validUUID)
        resolvedURL = Self.webURL(value["url_resolved"])
        homepage = Self.webURL(value["homepage"])
        favicon = Self.webURL(value["favicon"])
        tags = (Self.text(value["tags"]) ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.prefix(20).map { $0 }
        countryCode = Self.text(value["countrycode"]).flatMap { $0.isEmpty ? nil : $0 }
        country = Self.text(value["country"]).flatMap { $0.isEmpty ? nil : $0 }
        language = Self.text(value["language"]).flatMap { $0.isEmpty ? nil : $0 }
        codec = Self.text(value["codec"]).flatMap { $0.isEmpty ? nil : $0 }
        bitrate = Self.text(value["bitrate"]).flatMap { Int($0) }.flatMap { (1...100_000).contains($0) ? $0 : nil }
        switch value["lastcheckok"] {
        case let .bool(flag)?: lastCheckOK = flag
        case let .number(number)?: lastCheckOK = number.int.map { $0 != 0 }
        default: lastCheckOK = nil
        }
    }

    /// The station in the directory's own JSON shape, so the last search reads back through `init(json:)`.
    public var json: JSONValue {
        var members: [String: JSONValue] = ["name": .string(name), "url": .string(url), "tags": .string(tags.joined(separator: ","))]
        let optional: [(String, String?)] = [
            ("stationuuid", uuid), ("url_resolved", resolvedURL), ("homepage", homepage), ("favicon", favicon),
            ("countrycode", countryCode), ("country", country), ("language", language), ("codec", codec),
        ]
        for (key, text) in optional { if let text { members[key] = .string(text) } }
        if let bitrate { members["bitrate"] = .number(JSONNumber(bitrate)) }
        if let lastCheckOK { members["lastcheckok"] = .number(JSONNumber(lastCheckOK ? 1 : 0)) }
        return .object(members)
    }

    /// A string or number as one line of printable text: control characters (C0, C1, DEL) and
    /// bidirectional overrides dropped, whitespace trimmed, at most `maxTextLength` characters.
    package static func text(_ value: JSONValue?) -> String? {
        guard let raw = value?.text else { return nil }
        let kept = raw.unicodeScalars.filter { !isUnprintable($0) }
        var text = String(String.UnicodeScalarView(kept)).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count > maxTextLength { text = String(text.prefix(maxTextLength)) }
        return text
    }

    package static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value) || value == 0x2028 || value == 0x2029
    }

    /// An http(s) URL without spaces or control characters, else nil.
    package static func webURL(_ value: JSONValue?) -> String? {
        guard let raw = value?.stringValue?.trimmingCharacters(in: .whitespaces), raw.utf8.count <= maxURLLength,
            !raw.unicodeScalars.contains(where: { isUnprintable($0) || $0 == " " }),
            let scheme = URL(string: raw)?.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        return raw
    }

    /// A station UUID may only be hex digits and dashes (it becomes part of a URL path).
    package static func validUUID(_ text: String) -> String? {
        guard (1...64).contains(text.utf8.count),
            text.unicodeScalars.allSatisfy({ $0 == "-" || ($0.isASCII && CharacterSet(charactersIn: "0123456789abcdefABCDEF").contains($0)) })
        else { return nil }
        return text
    }
}
