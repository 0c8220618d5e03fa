import Foundation
import OtonJSON
import OtonSupport

/// Which provider rule gave each titleless station its titles, found by trying
/// (`$XDG_STATE_HOME/oton/now-playing-found.json`: `{"stations": {"<stream URL>": "<rule>"}}`), so the
/// next play asks that rule first. Forgotten when the rule fails. At most ``maxStations`` entries (the
/// file is rewritten whole, atomically); an unreadable file counts as empty.
///
/// Threading: each call reads or rewrites the file; callers use one queue (the player's).
public struct NowPlayingFoundStore: Sendable {
    public static let maxStations = 2000
    public let file: String?

    public init(file: String? = XDGPaths().nowPlayingFoundFile) {
        self.file = file
    }

    public func rule(for streamURL: String) -> String? { entries()[streamURL] }

    /// Remembers `rule` for the station, or forgets the station's rule when `rule` is nil.
    public func set(_ rule: String?, for streamURL: String) {
        guard let file else { return }
        var stations = entries()
        guard stations[streamURL] != rule else { return }
        stations[streamURL] = rule
        if stations.count > Self.maxStations, let drop = stations.keys.sorted().first(where: { $0 != streamURL }) { stations[drop] = nil }
        let json = JSONValue.object(["stations": .object(stations.mapValues { .string($0) })])
        let folder = (file as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try? Data(json.prettyJSONText.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
    }

    private func entries() -> [String: String] {
        guard let file, let data = FileManager.default.contents(atPath: file), data.count <= 1 << 20,
            let root = try? JSONParser(maxBytes: 1 << 20).parse(data), case let .object(stations)? = root["stations"]
        else { return [:] }
        return stations.compactMapValues(\.stringValue)
    }
}
