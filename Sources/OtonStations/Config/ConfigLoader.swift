import Foundation
import OtonEvents
import OtonJSON
import OtonMedia
import OtonSupport

/// Finds and reads plugins.json.
///
/// Lookup order: `--config FILE`, `$OTON_CONFIG`, `$XDG_CONFIG_HOME/oton/plugins.json`
/// (default `~/.config`), `./plugins.json`, and when none of these exists the
/// built-in default (``BuiltInConfig``). Relative plugin paths are resolved
/// against the directory of the file.
public enum ConfigLoader {
    /// plugins.json may be at most this large (1 MiB); a longer file is refused before parsing.
    public static let maxBytes = 1 << 20

    /// The files tried, in order, for the given flag and environment.
    public static func candidates(explicit: String?, environment: [String: String], currentDirectory: String) -> [String] {
        if let explicit { return [explicit] }
        var out: [String] = []
        if let fromEnvironment = environment["OTON_CONFIG"], !fromEnvironment.isEmpty { out.append(fromEnvironment) }
        if let user = XDGPaths(environment: environment).userConfigFile { out.append(user) }
        out.append(currentDirectory + "/plugins.json")
        return out
    }

    /// Which configuration is in use, and why.
    public enum Location: Equatable, Sendable {
        /// A file: `reason` says which rule chose it ("--config", "$OTON_CONFIG", …).
        case file(String, reason: String)
        /// No file exists in any of `tried`.
        case builtIn(tried: [String])
    }

    /// The configuration the lookup order chooses. An explicit or `$OTON_CONFIG` file that is missing is an error.
    public static func locate(
        explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) throws(ConfigError) -> Location {
        let tried = candidates(explicit: explicit, environment: environment, currentDirectory: currentDirectory)
        let fromEnvironment = !(environment["OTON_CONFIG"] ?? "").isEmpty
        let mustExist = explicit != nil || fromEnvironment
        for (index, file) in tried.enumerated() {
            if FileManager.default.fileExists(atPath: file) {
                let reason =
                    if explicit != nil { "given with --config" } else if fromEnvironment && index == 0 {
                        "named by $OTON_CONFIG"
                    } else if index == tried.count - 1 { "plugins.json in the current folder" } else {
                        "the user's configuration ($XDG_CONFIG_HOME/oton, default ~/.config/oton)"
                    }
                return .file(file, reason: reason)
            }
            if mustExist && index == 0 { throw .unreadable(file: file, reason: "no such file") }
        }
        return .builtIn(tried: tried)
    }

    /// Loads the configuration ``locate`` chooses.
    public static func load(
        explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) throws(ConfigError) -> OtonConfig {
        switch try locate(explicit: explicit, environment: environment, currentDirectory: currentDirectory) {
        case let .file(file, _): try load(file: file)
        case .builtIn: try loadBuiltIn()
        }
    }

    /// The built-in default; bare plugin file names resolve beside the oton executable.
    public static func loadBuiltIn() throws(ConfigError) -> OtonConfig {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let directory = (executable as NSString).deletingLastPathComponent
        return try parse(Data(BuiltInConfig.text.utf8), file: directory + "/" + BuiltInConfig.name)
    }

    public static func load(file: String) throws(ConfigError) -> OtonConfig {
        // Relative paths inside the file are anchored at its directory, so make that absolute.
        let file = URL(fileURLWithPath: file).standardizedFileURL.path
        let data: Data
        do {
            // Read one byte past the limit, never the whole of a huge file (or of /dev/zero).
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
            defer { try? handle.close() }
            data = try handle.read(upToCount: maxBytes + 1) ?? Data()
        } catch {
            throw .unreadable(file: file, reason: (error as NSError).localizedDescription)
        }
        guard data.count <= maxBytes else {
            throw .unreadable(file: file, reason: "larger than \(maxBytes) bytes, the limit for plugins.json")
        }
        return try parse(data, file: file)
    }

    /// Parses plugins.json text; `file` names it in messages and anchors relative paths.
    public static func parse(_ data: Data, file: String) throws(ConfigError) -> OtonConfig {
        let root: JSONValue
        do {
            root = try JSONValue.parse(data, maxBytes: maxBytes)
        } catch {
            // The parser's own words stay English; the frame is the person's.
            let reason = error.kind == .syntax ? tr("not valid JSON: {reason}", ["reason": error.reason]) : error.reason
            throw .syntax(file: file, line: error.line, column: error.column, reason: reason)
        }
        return try ConfigReader(file: file).read(root)
    }
}

/// Turns the parsed JSON into an OtonConfig, naming the exact place of any problem.
private struct ConfigReader {
    let file: String

    var directory: String { (file as NSString).deletingLastPathComponent }

    func read(_ root: JSONValue) throws(ConfigError) -> OtonConfig {
        guard case let .object(top) = root else { throw invalid(tr("top level"), tr("must be a JSON object with \"stations\" and \"plugins\"")) }
        var config = OtonConfig(file: file)
        config.defaultStationName = try optionalString(top["default_station"], at: "default_station")
        config.stations = try array(top["stations"], at: "stations").enumerated().map { index, value throws(ConfigError) in
            try station(value, at: "stations[\(index)]")
        }
        config.plugins = try array(top["plugins"], at: "plugins").enumerated().map { index, value throws(ConfigError) in
            try plugin(value, at: "plugins[\(index)]")
        }
        if let value = top["shutdown_timeout_ms"] {
            guard let milliseconds = value.numberValue, milliseconds >= 0, milliseconds <= 600_000 else {
                throw invalid("shutdown_timeout_ms", tr("must be a number of milliseconds from 0 to 600000"))
            }
            config.shutdownTimeout = milliseconds / 1000
        }
        if let value = top["watch_wishes"] {
            guard case let .bool(flag) = value else { throw invalid("watch_wishes", "must be true or false") }
            config.watchWishes = flag
        }
        if let value = top["loudness"] { config.loudness = try loudness(value) }
        if let value = top["timeshift"] { config.timeshift = try timeshift(value) }
        config.effects = try array(top["effects"], at: "effects").enumerated().map { index, value throws(ConfigError) in
            try effect(value, at: "effects[\(index)]")
        }
        var names = Set<String>()
        for (index, effect) in config.effects.enumerated() where !names.insert(effect.name).inserted {
            throw invalid(
                "effects[\(index)].name",
                tr("\"{name}\" names two effects; give each a \"name\" of its own (`oton ctl effect NAME` chooses by it)", ["name": effect.name]))
        }
        var seen = Set<String>()
        for entry in config.plugins {
            guard seen.insert(entry.id).inserted else {
                throw invalid(entry.location + ".id", tr("\"{id}\" appears twice; each plugin id may be listed once", ["id": entry.id]))
            }
        }
        if let name = config.defaultStationName, config.station(named: name) == nil {
            throw invalid("default_station", tr("names \"{name}\", which is not in \"stations\"", ["name": name]))
        }
        return config
    }

    /// `"loudness": -18` (the target in LUFS), `true` (the default target) or `false` (levelling starts off).
    private func loudness(_ value: JSONValue) throws(ConfigError) -> LevellingSettings {
        let range = LevellingSettings.targetRange
        if case let .bool(on) = value { return LevellingSettings(enabled: on) }
        guard let target = value.numberValue, range.contains(target) else {
            throw invalid(
                "loudness",
                tr(
                    "must be a target in LUFS from {low} to {high} (such as -18), or false to turn levelling off",
                    ["low": "\(Int(range.lowerBound))", "high": "\(Int(range.upperBound))"]))
        }
        return LevellingSettings(targetLUFS: target)
    }

    /// `"timeshift": "2h"` (what the ring keeps), `"0"` / `0` / `false` (off) (docs/timeshift.md).
    private func timeshift(_ value: JSONValue) throws(ConfigError) -> TimeshiftSettings {
        if case .bool(false) = value { return TimeshiftSettings(seconds: 0) }
        if value.numberValue == 0 { return TimeshiftSettings(seconds: 0) }
        guard case let .string(text) = value, let settings = TimeshiftSettings(text: text) else {
            throw invalid("timeshift", TimeshiftSettings.problem)
        }
        return settings
    }

    /// `{"equalizer": "bass-cut"}` or `{"lv2": "URI", "parameters": {"gain": -6}}`, with an optional
    /// `name` (default: "equalizer", or the URI's last part) and `bypass`.
    private func effect(_ value: JSONValue, at location: String) throws(ConfigError) -> EffectSettings {
        guard case let .object(members) = value else {
            throw invalid(location, tr("must be an object such as {\"equalizer\": \"bass-cut\"} or {\"lv2\": \"URI\", \"parameters\": {…}}"))
        }
        let known = ["name", "equalizer", "lv2", "parameters", "bypass"]
        for key in members.keys.sorted() where !known.contains(key) {
            let guess = NearestWord.nearest(to: key, among: known).map { tr("; did you mean \"{key}\"?", ["key": $0]) } ?? ""
            throw invalid(
                location + "." + key, tr("is not a key of an effect (known: {known}){guess}", ["known": known.joined(separator: ", "), "guess": guess]))
        }
        var parameters: [String: Double] = [:]
        if let given = members["parameters"] {
            guard case let .object(values) = given else { throw invalid(location + ".parameters", tr("must be an object of numbers, such as {\"gain\": -6}")) }
            for (key, number) in values {
                guard let number = number.numberValue ?? number.boolValue.map({ $0 ? 1 : 0 }), number.isFinite else {
                    throw invalid(location + ".parameters." + key, tr("must be a number"))
                }
                parameters[key] = number
            }
        }
        var bypass = false
        if let flag = members["bypass"] {
            guard let bool = flag.boolValue else { throw invalid(location + ".bypass", tr("must be true or false")) }
            bypass = bool
        }
        let name = try optionalString(members["name"], at: location + ".name")
        switch (members["equalizer"], members["lv2"]) {
        case let (preset?, nil):
            let presetName = try requiredString(preset, at: location + ".equalizer")
            guard var settings = EffectSettings.equalizer(name: name ?? "equalizer", preset: presetName, bypass: bypass) else {
                throw invalid(
                    location + ".equalizer",
                    tr("\"{preset}\" is not a preset; use one of {presets}", ["preset": presetName, "presets": Equalizer.presetNames.joined(separator: ", ")]))
            }
            for (band, gain) in parameters {
                if let problem = EffectCatalogue.check(band, gain, among: EffectCatalogue.equalizerParameters, effect: settings.name) {
                    throw invalid(location + ".parameters." + band, problem.description)
                }
                settings.parameters[band] = gain
            }
            if !parameters.isEmpty { settings.preset = nil }
            return settings
        case let (nil, uri?):
            let uri = try requiredString(uri, at: location + ".lv2")
            let short = uri.split(whereSeparator: { "/#:".contains($0) }).last.map(String.init) ?? uri
            return EffectSettings(name: name ?? short, kind: .lv2(uri: uri), parameters: parameters, bypass: bypass)
        default:
            throw invalid(location, tr("needs either \"equalizer\" (a preset) or \"lv2\" (a plugin's URI)"))
        }
    }

    private func station(_ value: JSONValue, at location: String) throws(ConfigError) -> Station {
        guard case .object = value else { throw invalid(location, tr("must be an object with \"name\" and \"url\"")) }
        let name = try requiredString(value["name"], at: location + ".name")
        let url = try requiredString(value["url"], at: location + ".url")
        guard URL(string: url)?.scheme != nil else {
            throw invalid(location + ".url", tr("\"{url}\" is not a URL (expected http://, https:// or file://)", ["url": url]))
        }
        return Station(
            name: name, url: url,
            statusURL: try optionalString(value["status_url"], at: location + ".status_url"),
            logoURL: try optionalString(value["logo_url"], at: location + ".logo_url"),
            homepage: try optionalString(value["homepage"], at: location + ".homepage"),
            titleEncoding: try titleEncoding(value["title_encoding"], at: location + ".title_encoding"),
            userAgent: try userAgent(value["user_agent"], at: location + ".user_agent")
        )
    }

    /// A header value: 1 to 200 printable ASCII characters (no line break can smuggle a header in).
    private func userAgent(_ value: JSONValue?, at location: String) throws(ConfigError) -> String? {
        guard let text = try optionalString(value, at: location) else { return nil }
        guard (1...Self.userAgentMaxLength).contains(text.unicodeScalars.count),
            text.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) })
        else {
            throw invalid(
                location,
                tr("must be 1 to {max} printable ASCII characters (letters, digits, spaces and punctuation)", ["max": String(Self.userAgentMaxLength)]))
        }
        return text
    }

    static let userAgentMaxLength = 200

    private func titleEncoding(_ value: JSONValue?, at location: String) throws(ConfigError) -> TitleEncodingSetting {
        guard let name = try optionalString(value, at: location) else { return .auto }
        guard let setting = TitleEncodingSetting(configValue: name) else {
            throw invalid(
                location,
                tr("\"{name}\" is not a title encoding oton knows; use one of {values}", ["name": name, "values": TitleEncodingSetting.acceptedValues]))
        }
        return setting
    }

    private func plugin(_ value: JSONValue, at location: String) throws(ConfigError) -> PluginEntry {
        guard case .object = value else { throw invalid(location, tr("must be an object with \"id\" and \"path\"")) }
        let id = try requiredString(value["id"], at: location + ".id")
        let path = try requiredString(value["path"], at: location + ".path")
        var enabled = true
        if let flag = value["enabled"] {
            guard let bool = flag.boolValue else { throw invalid(location + ".enabled", tr("must be true or false")) }
            enabled = bool
        }
        let config = value["config"] ?? .object([:])
        guard case .object = config else { throw invalid(location + ".config", tr("must be an object")) }
        var isolation = PluginIsolation.inProcess
        if let name = try optionalString(value["isolation"], at: location + ".isolation") {
            guard let chosen = PluginIsolation(rawValue: name) else {
                throw invalid(
                    location + ".isolation",
                    tr("\"{name}\" is not a plugin isolation oton knows; use {values}", ["name": name, "values": PluginIsolation.acceptedValues]))
            }
            isolation = chosen
        }
        return PluginEntry(id: id, path: resolve(path), enabled: enabled, config: config, location: location, isolation: isolation)
    }

    /// A path with a slash is relative to plugins.json; a bare file name is kept as is
    /// (the loader looks for it beside plugins.json, then beside the oton executable).
    private func resolve(_ path: String) -> String {
        if path.hasPrefix("/") || !path.contains("/") { return path }
        return (directory as NSString).appendingPathComponent(path)
    }

    private func array(_ value: JSONValue?, at location: String) throws(ConfigError) -> [JSONValue] {
        guard let value else { return [] }
        guard case let .array(items) = value else { throw invalid(location, tr("must be an array")) }
        return items
    }

    private func requiredString(_ value: JSONValue?, at location: String) throws(ConfigError) -> String {
        guard let value else { throw invalid(location, tr("is missing")) }
        guard let string = value.stringValue, !string.isEmpty else { throw invalid(location, tr("must be a non-empty string")) }
        return string
    }

    private func optionalString(_ value: JSONValue?, at location: String) throws(ConfigError) -> String? {
        guard let value, value != .null else { return nil }
        guard let string = value.stringValue else { throw invalid(location, tr("must be a string")) }
        return string
    }

    private func invalid(_ location: String, _ problem: String) -> ConfigError {
        .invalid(file: file, location: location, problem: problem)
    }
}
