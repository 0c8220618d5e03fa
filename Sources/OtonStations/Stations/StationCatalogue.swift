import Foundation
import OtonEvents
import OtonSupport
import Synchronization

/// The one owner of a session's stations: plugins.json's list as last (re)loaded, the station oton
/// was started with, and the unlisted one playing now (placed after the station it was left from).
/// The session makes it and hands it to its Player; the control commands and the Player read
/// ``list`` and nothing else keeps a copy. `reload-stations` (which `oton stations add|remove|move|
/// import` send to every running oton) re-reads the file here.
public final class StationCatalogue: Sendable {
    private struct State {
        var file: String?
        var configured: [Station]
        var started: Station
        var unlisted: StationList.Unlisted?
    }

    private let state: Mutex<State>

    /// `config`'s stations, re-read from its file on reload; nil: no file (a recorder's session, a test).
    public init(config: OtonConfig?, started: Station) {
        state = Mutex(State(file: config?.file, configured: config?.stations ?? [], started: started))
    }

    /// The stations to switch between, as they are now. Any thread.
    public var list: StationList {
        state.withLock { StationList(configured: $0.configured, started: $0.started).placing($0.unlisted) }
    }

    /// The file the stations come from (nil without one).
    public var file: String? { state.withLock { $0.file } }

    /// A switch from `current` to `next`: back into the list, or `next` placed after the listed
    /// station it was left from (an unlisted one left from an unlisted one keeps the first anchor).
    package func noteSwitch(to next: Station, from current: Station) {
        state.withLock { state in
            let listed = StationList(configured: state.configured, started: state.started).stations.contains { $0.url == next.url }
            if listed {
                state.unlisted = nil
            } else {
                let leftFrom = state.unlisted.flatMap { $0.station.url == current.url ? $0.leftFrom : nil } ?? current
                state.unlisted = StationList.Unlisted(station: next, leftFrom: leftFrom)
            }
        }
    }

    /// Re-reads the file and replaces the stations; on any error the list stays as it was. An oton
    /// running on the built-in default reads the user's plugins.json once it exists: the first
    /// `oton stations add` writes it from the default (issue 54 §13: the new station was not seen).
    @discardableResult
    public func reload(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigError) -> [Station] {
        guard var file else {
            throw .unreadable(file: BuiltInConfig.name, reason: "this oton runs on the built-in default; there is no file to reload")
        }
        if file == BuiltInConfig.name || file.hasSuffix("/" + BuiltInConfig.name) {
            guard let user = XDGPaths(environment: environment).userConfigFile, FileManager.default.fileExists(atPath: user) else {
                throw .unreadable(file: BuiltInConfig.name, reason: "this oton runs on the built-in default; there is no file to reload")
            }
            file = user
        }
        let config = try ConfigLoader.load(file: file)
        state.withLock {
            $0.file = file
            $0.configured = config.stations
        }
        return config.stations
    }
}
