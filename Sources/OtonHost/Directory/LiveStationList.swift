import Synchronization

/// The stations of the running oton, re-read from its plugins.json by the control
/// command `reload-stations` (which `oton stations add|remove|move|import` send to every
/// running oton). The host session adopts its config at start; whoever offers station
/// switching reads `stations` from here.
public final class LiveStationList: Sendable {
    public static let shared = LiveStationList()

    private struct State {
        var file: String?
        var stations: [Station] = []
        var defaultStationName: String?
    }

    private let state = Mutex(State())

    public init() {}

    /// The session's configuration: where to re-read from, and the stations it started with.
    public func adopt(_ config: OtonConfig) {
        state.withLock { $0 = State(file: config.file, stations: config.stations, defaultStationName: config.defaultStationName) }
    }

    public var stations: [Station] { state.withLock { $0.stations } }
    public var file: String? { state.withLock { $0.file } }

    /// Re-reads the file and replaces the stations; on any error the list stays as it was.
    @discardableResult
    public func reload() throws(ConfigError) -> [Station] {
        guard let file, file != BuiltInConfig.name, !file.hasSuffix("/" + BuiltInConfig.name) else {
            throw .unreadable(file: BuiltInConfig.name, reason: "this oton runs on the built-in default; there is no file to reload")
        }
        let config = try ConfigLoader.load(file: file)
        state.withLock {
            $0.stations = config.stations
            $0.defaultStationName = config.defaultStationName
        }
        return config.stations
    }
}
