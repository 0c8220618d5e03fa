import FoundationEssentials

/// Whether an image is the station's logo rather than cover art. (Whether a
/// status answer names the heard track is the host's decision.)
public enum TrackMatcher {
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
