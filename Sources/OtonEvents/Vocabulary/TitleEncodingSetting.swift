/// How a station's titles are to be read: a station's `title_encoding` in plugins.json.
///
/// `auto` (the default) recovers the bytes a server sent and lets ``TitleByteDecoder``
/// guess; the others say what the station sends, for stations the guess gets wrong.
public enum TitleEncodingSetting: String, Sendable, Equatable, CaseIterable {
    case auto
    case utf8 = "utf-8"
    case windows1251 = "windows-1251"
    case koi8r = "koi8-r"
    case latin1 = "latin-1"

    /// Accepts the names in any case and the common aliases ("utf8", "cp1251", "iso-8859-1", …).
    public init?(configValue: String) {
        let name = configValue.lowercased().replacingOccurrences(of: "_", with: "-")
        switch name {
        case "auto": self = .auto
        case "utf-8", "utf8": self = .utf8
        case "windows-1251", "cp1251", "cp-1251": self = .windows1251
        case "koi8-r", "koi8r": self = .koi8r
        case "latin-1", "latin1", "iso-8859-1", "iso8859-1", "windows-1252", "cp1252": self = .latin1
        default: return nil
        }
    }

    /// The values a config error lists.
    public static var acceptedValues: String {
        allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
    }
}
