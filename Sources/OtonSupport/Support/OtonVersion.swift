/// The version of oton itself (not of the plugin ABI).
public enum OtonVersion {
    public static let current = "0.1.0"
    /// What oton calls itself in every request to a station (its streams, playlists, segments, probes
    /// and status API), unless the station names its own `user_agent`: one client to a CDN.
    public static let userAgent = "oton/\(current)"
}
