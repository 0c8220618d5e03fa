import Foundation

/// One mount as listed in Icecast's `/status-json.xsl`.
public struct MountStatus: Sendable, Equatable {
    /// Mount path, e.g. "/test.mp3" (derived from `listenurl`).
    public let mount: String
    public let listenURL: String
    public let serverName: String?
    public let serverType: String?
    public let genre: String?
    /// For MP3: the ICY "song"; for Ogg: the Vorbis TITLE (artist separate).
    public let title: String?
    public let artist: String?
    public let listeners: Int?
    /// All fields, stringified.
    public let raw: [String: String]
}

/// Parsed `/status-json.xsl` document.
public struct IcecastStatus: Sendable {
    public let serverID: String?
    public let mounts: [MountStatus]

    public func mount(_ path: String) -> MountStatus? { mounts.first { $0.mount == path } }

    /// Parses the JSON. Handles `icestats.source` being absent (no mounts),
    /// an object (one mount) or an array (several mounts).
    /// Throws on invalid JSON: Icecast 2.4.4 can emit a truncated/invalid
    /// document for a few milliseconds right after start-up.
    public static func parse(_ data: Data) throws -> IcecastStatus {
        let object = try JSONSerialization.jsonObject(with: data)
        guard let root = object as? [String: Any], let stats = root["icestats"] as? [String: Any] else {
            throw FixtureError("status-json.xsl: no icestats object")
        }
        var sources: [[String: Any]] = []
        if let one = stats["source"] as? [String: Any] {
            sources = [one]
        } else if let many = stats["source"] as? [[String: Any]] {
            sources = many
        }
        let mounts = sources.map { s -> MountStatus in
            var raw: [String: String] = [:]
            for (k, v) in s where !(v is NSNull) { raw[k] = "\(v)" }
            let url = raw["listenurl"] ?? ""
            let mount = URL(string: url)?.path ?? url
            return MountStatus(
                mount: mount, listenURL: url,
                serverName: raw["server_name"], serverType: raw["server_type"], genre: raw["genre"],
                title: raw["title"], artist: raw["artist"],
                listeners: raw["listeners"].flatMap { Int($0) }, raw: raw)
        }
        return IcecastStatus(serverID: stats["server_id"] as? String, mounts: mounts)
    }
}
