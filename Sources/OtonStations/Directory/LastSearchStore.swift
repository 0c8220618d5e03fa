import Foundation
import OtonJSON
import OtonSupport

/// The last `oton stations search` answer, kept for `oton stations add --from-search N`:
/// `$XDG_CACHE_HOME/oton/last-search.json` (default `~/.cache`), the stations in the
/// directory's own JSON shape. Written atomically; a damaged file reads as "no search".
public enum LastSearchStore {
    public static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        XDGPaths(environment: environment).otonCache.map { $0 + "/last-search.json" }
    }

    public static func save(
        _ stations: [DirectoryStation], query: String, server: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(AtomicFileWriter.Failure) {
        guard let path = path(environment: environment) else { throw .init(path: "last-search.json", reason: "neither XDG_CACHE_HOME nor HOME is set") }
        let document: JSONValue = .object([
            "query": .string(query), "server": .string(server), "stations": .array(stations.map(\.json)),
        ])
        let directory = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try AtomicFileWriter.write(Data((document.jsonText + "\n").utf8), to: path)
    }

    public struct Saved: Sendable {
        public var query: String
        public var server: String
        public var stations: [DirectoryStation]
    }

    /// The saved search, or nil when there is none (or it cannot be read).
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) -> Saved? {
        guard let path = path(environment: environment), let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: StationDirectoryClient.maxResponseBytes),
            let root = try? JSONValue.parse(data, maxBytes: StationDirectoryClient.maxResponseBytes),
            case let .array(items)? = root["stations"]
        else { return nil }
        return Saved(
            query: root["query"]?.stringValue ?? "", server: root["server"]?.stringValue ?? "",
            stations: items.compactMap(DirectoryStation.init(json:)))
    }
}
