import Foundation

/// The parts of a radio.co status document the artwork plugin needs:
/// `{"current_track": {"title": …, "artwork_url": …, "artwork_url_large": …}, "logo_url": …}`.
public struct StationStatus: Equatable, Sendable {
    public var title: String?
    /// artwork_url_large, else artwork_url.
    public var artworkURL: String?
    public var logoURL: String?

    public init(title: String? = nil, artworkURL: String? = nil, logoURL: String? = nil) {
        self.title = title
        self.artworkURL = artworkURL
        self.logoURL = logoURL
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public static func parse(_ data: Data) throws -> StationStatus {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw Invalid(description: "the status is not a JSON object")
        }
        let track = root["current_track"] as? [String: Any]
        func web(_ value: Any?) -> String? {
            guard let text = value as? String, let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { return nil }
            return text
        }
        return StationStatus(title: (track?["title"] as? String).flatMap { $0.isEmpty ? nil : $0 },
                             artworkURL: web(track?["artwork_url_large"]) ?? web(track?["artwork_url"]),
                             logoURL: web(root["logo_url"]))
    }

    /// The status URL with a cache-busting `_` parameter.
    public static func cacheBusted(_ url: String, now: Int64) -> String {
        url + (url.contains("?") ? "&" : "?") + "_=\(now)"
    }
}
