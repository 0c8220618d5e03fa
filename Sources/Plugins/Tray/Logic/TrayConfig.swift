import OtonJSON
import OtonPluginKit

/// The tray plugin's "config" object: `keep_playing` (a window that closes leaves this player going,
/// said by a notification) and `tray` (the StatusNotifierItem; on unless false).
public struct TrayConfig: Sendable, Equatable {
    public var keepPlaying = false
    public var tray = true
    /// How long the "keeps playing" notification stays (-1: the server decides).
    public var notificationTimeoutMilliseconds: Int32 = -1

    public init() {}

    public static let keys = ["keep_playing", "tray", "notification_timeout_ms"]

    public static func parse(_ json: String) throws(PluginConfigError) -> TrayConfig {
        let reader = try PluginConfigReader(json: json)
        try reader.refuseUnknownKeys(known: Set(keys), owner: "a tray")
        var config = TrayConfig()
        if let flag = try reader.bool("keep_playing") { config.keepPlaying = flag }
        if let flag = try reader.bool("tray") { config.tray = flag }
        if let milliseconds = try reader.integer(
            "notification_timeout_ms", in: -1...3_600_000, expected: "-1 (server default), 0 (never) or up to 3600000")
        {
            config.notificationTimeoutMilliseconds = Int32(milliseconds)
        }
        return config
    }
}

/// `background`, `background on|off`, `background window-closed [--instance NAME] [--config FILE]`,
/// each with `--format json` for a program.
public struct BackgroundCommand: Equatable, Sendable {
    public enum Verb: Equatable, Sendable {
        /// Says whether a closing window leaves the player going.
        case status
        /// Sets it for this run (`oton plugins set org.oton.tray keep_playing …` keeps it for the next).
        case set(Bool)
        /// The window that started this player closes: with keep_playing on, the notification and the
        /// background portal; the reply says whether the player goes on.
        case windowClosed
    }

    public var verb: Verb
    public var json = false
    /// The player's instance and plugins.json as the closing window knew them: "Open" starts
    /// `oton window` with them, so the new window finds this player.
    public var instance: String?
    public var config: String?

    public init(verb: Verb, json: Bool = false, instance: String? = nil, config: String? = nil) {
        self.verb = verb
        self.json = json
        self.instance = instance
        self.config = config
    }

    public static let usage = "background [on|off|window-closed [--instance NAME] [--config FILE]] [--format json]"

    /// Reads the arguments; a wrong word gets a message that says the usage.
    public static func parse(_ arguments: [String]) -> Result<BackgroundCommand, BackgroundCommandError> {
        var command = BackgroundCommand(verb: .status)
        var verbs: [String] = []
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            switch word {
            case "--format", "--instance", "--config":
                guard index + 1 < arguments.count, !arguments[index + 1].isEmpty else { return .failure(BackgroundCommandError(word: word)) }
                let value = arguments[index + 1]
                if word == "--format" {
                    guard value == "json" else { return .failure(BackgroundCommandError(word: value)) }
                    command.json = true
                } else if word == "--instance" {
                    guard value.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) }) else { return .failure(BackgroundCommandError(word: value)) }
                    command.instance = value
                } else {
                    command.config = value
                }
                index += 2
            default:
                verbs.append(word)
                index += 1
            }
        }
        guard verbs.count <= 1 else { return .failure(BackgroundCommandError(word: verbs[1])) }
        switch verbs.first?.lowercased() {
        case nil, "status": command.verb = .status
        case "on", "true": command.verb = .set(true)
        case "off", "false": command.verb = .set(false)
        case "window-closed": command.verb = .windowClosed
        case let word?: return .failure(BackgroundCommandError(word: word))
        }
        return .success(command)
    }

    /// The reply: `{"keep_playing":true}` for a program, else the line for a person (`on` or `off`, translated).
    public static func reply(keepPlaying: Bool, json: Bool, on: String, off: String) -> String {
        if json { return JSONValue.object(["keep_playing": .bool(keepPlaying)]).jsonText }
        return keepPlaying ? on : off
    }
}

public struct BackgroundCommandError: Error, Equatable, Sendable {
    public let word: String
}

/// `oton window` as "Open" starts it: the executable that runs this player, with the instance and
/// plugins.json the closing window named.
public func windowArguments(instance: String?, config: String?) -> [String] {
    ["window"] + (instance.map { ["--instance", $0] } ?? []) + (config.map { ["--config", $0] } ?? [])
}
