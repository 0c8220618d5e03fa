import Foundation

/// Whether the status API's title is the track playing now (the API lags the
/// stream), and whether an image is the station's logo rather than cover art.
public enum TrackMatcher {
    /// radio.co titles are "Artist - Title"; the stream may say the same, or the host may have split it.
    public static func matches(statusTitle: String, title: String?, artist: String?, rawTitle: String?) -> Bool {
        let status = normalize(statusTitle)
        guard !status.isEmpty else { return false }
        var candidates = [rawTitle, title].compactMap { $0 }.map(normalize)
        if let artist, let title { candidates.append(normalize("\(artist) - \(title)")) }
        if candidates.contains(status) { return true }
        if let title, !normalize(title).isEmpty { return status.hasSuffix(" - " + normalize(title)) }
        return false
    }

    /// A URL under the station-logo path, or a status whose title is the station's name.
    public static func isStationLogo(url: String, statusTitle: String?, station: String?, logoURL: String?) -> Bool {
        if let logoURL, url == logoURL { return true }
        let path = URL(string: url)?.path.lowercased() ?? url.lowercased()
        if path.contains("/station_logos/") || path.contains("/station-logos/") { return true }
        if let statusTitle, let station, !normalize(station).isEmpty, normalize(statusTitle) == normalize(station) { return true }
        return false
    }

    static func normalize(_ text: String) -> String {
        text.lowercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
