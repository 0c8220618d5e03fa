import Foundation

/// What `oton stations search` asks the directory: the name and the filters of
/// Radio Browser's `/json/stations/search`, most-voted stations first, broken ones hidden.
public struct DirectorySearchQuery: Equatable, Sendable {
    public static let defaultLimit = 20
    public static let maxLimit = 500

    public var name: String
    public var tag: String?
    public var countryCode: String?
    public var language: String?
    public var codec: String?
    /// 1…`maxLimit`.
    public var limit: Int

    public init(
        name: String, tag: String? = nil, countryCode: String? = nil, language: String? = nil, codec: String? = nil,
        limit: Int = DirectorySearchQuery.defaultLimit
    ) {
        self.name = name
        self.tag = tag
        self.countryCode = countryCode
        self.language = language
        self.codec = codec
        self.limit = min(max(limit, 1), Self.maxLimit)
    }

    /// The request path with its query, e.g. `/json/stations/search?name=jazz&limit=20&…`.
    public var path: String {
        var items: [(String, String)] = [("name", name)]
        if let tag { items.append(("tag", tag)) }
        if let countryCode { items.append(("countrycode", countryCode.uppercased())) }
        if let language { items.append(("language", language)) }
        if let codec { items.append(("codec", codec)) }
        items += [("limit", String(limit)), ("hidebroken", "true"), ("order", "votes"), ("reverse", "true")]
        return "/json/stations/search?" + items.map { "\($0.0)=\(Self.encoded($0.1))" }.joined(separator: "&")
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    package static func encoded(_ text: String) -> String {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
