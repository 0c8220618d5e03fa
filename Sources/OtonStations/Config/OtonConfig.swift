import Foundation
import OtonEvents
import OtonJSON
import OtonMedia
import OtonSupport

/// Where a plugin runs: `"isolation"` in its plugins.json entry.
public enum PluginIsolation: String, Equatable, Sendable, CaseIterable {
    /// Inside oton (the default): a crash in the plugin ends oton, which names it first.
    case inProcess = "in-process"
    /// In a child process of its own, so that its crash cannot end oton (issue 17; not built yet).
    case process

    /// The accepted spellings, for messages.
    public static var acceptedValues: String {
        allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
    }
}

/// A plugin the listener has chosen, as plugins.json declares it.
public struct PluginEntry: Equatable, Sendable {
    public var id: String
    /// Absolute path of the shared library (relative paths are resolved against plugins.json).
    public var path: String
    public var enabled: Bool
    /// The plugin's "config" object, handed to create() as JSON text.
    public var config: JSONValue
    /// Where in plugins.json this entry stands, for messages ("plugins[2]").
    public var location: String
    public var isolation: PluginIsolation

    public init(
        id: String, path: String, enabled: Bool = true, config: JSONValue = .object([:]), location: String = "",
        isolation: PluginIsolation = .inProcess
    ) {
        self.id = id
        self.path = path
        self.enabled = enabled
        self.config = config
        self.location = location
        self.isolation = isolation
    }
}

/// The contents of plugins.json: stations and plugins.
public struct OtonConfig: Equatable, Sendable {
    public var file: String?
    public var defaultStationName: String?
    public var stations: [Station]
    public var plugins: [PluginEntry]
    /// `shutdown_timeout_ms` in seconds: the plugins' shutdown deadline (see PluginManager.shutdown).
    public var shutdownTimeout: Double = OtonConfig.defaultShutdownTimeout
    /// The plugins' shutdown deadline when plugins.json sets none, in seconds.
    public static let defaultShutdownTimeout = 3.0

    /// Where it came from, as a person reads it: the file, or "(built-in default)" for the built-in
    /// one (whose `file` is a path beside the executable only so its plugin paths resolve there).
    public var origin: String {
        guard let file else { return BuiltInConfig.name }
        return (file as NSString).lastPathComponent == BuiltInConfig.name ? BuiltInConfig.name : file
    }
    /// `watch_wishes`: `oton play` watches the other favourites for wishes (docs/wishlist.md). Off by default.
    public var watchWishes = false
    /// `loudness`: the levelling target of what plays (a number of LUFS), or `false` to start with
    /// levelling off (docs/levelling.md). On at −18 LUFS by default.
    public var loudness = LevellingSettings()
    /// `timeshift`: how much of the received stream `oton play` keeps to pause and rewind (docs/timeshift.md);
    /// 30 minutes unless set (`"2h"`, `--timeshift 2h`); 0 turns it off.
    public var timeshift = TimeshiftSettings()
    /// `effects`: the effect chain of what plays, in order (docs/effects.md). Read here as written;
    /// whether each LV2 plugin is installed and its parameters fit is ``EffectCatalogue``'s to say.
    public var effects: [EffectSettings] = []

    public init(file: String? = nil, defaultStationName: String? = nil, stations: [Station] = [], plugins: [PluginEntry] = []) {
        self.file = file
        self.defaultStationName = defaultStationName
        self.stations = stations
        self.plugins = plugins
    }

    /// The station named "default_station", else the first.
    public var defaultStation: Station? {
        if let name = defaultStationName, let station = station(named: name) { return station }
        return stations.first
    }

    /// Case-insensitive lookup by name.
    public func station(named name: String) -> Station? {
        stations.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }
}
