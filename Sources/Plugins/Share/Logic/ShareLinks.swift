import Foundation

/// Search links for a track on music services, and the URL encoding they need.
public struct ShareService: Sendable, Equatable {
    public var name: String
    /// A URL with `{query}` where the percent-encoded "artist title" goes.
    public var urlTemplate: String

    public init(name: String, urlTemplate: String) {
        self.name = name
        self.urlTemplate = urlTemplate
    }

    public static let defaults = [
        ShareService(name: "YouTube Music", urlTemplate: "https://music.youtube.com/search?q={query}"),
        ShareService(name: "Spotify", urlTemplate: "https://open.spotify.com/search/{query}"),
        ShareService(name: "Apple Music", urlTemplate: "https://music.apple.com/search?term={query}"),
        ShareService(name: "Yandex Music", urlTemplate: "https://music.yandex.ru/search?text={query}"),
    ]

    public func link(for query: String) -> String {
        urlTemplate.replacingOccurrences(of: "{query}", with: ShareLinks.percentEncoded(query))
    }
}

public enum ShareLinks {
    /// RFC 3986 percent-encoding of everything but the unreserved characters
    /// (A–Z a–z 0–9 - . _ ~), so the result is safe in a path segment and in a
    /// query value alike: "&", "#", "?", "/", "+", quotes and Cyrillic are all encoded.
    public static func percentEncoded(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                output += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return output
    }

    /// "Artist Title", or the raw title when there is no split.
    public static func query(artist: String?, title: String?, rawTitle: String?) -> String? {
        let parts = [artist, title].compactMap { $0 }.filter { !$0.isEmpty }
        if !parts.isEmpty { return parts.joined(separator: " ") }
        return rawTitle.flatMap { $0.isEmpty ? nil : $0 }
    }
}
