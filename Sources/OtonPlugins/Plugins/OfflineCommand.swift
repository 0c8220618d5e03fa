import Foundation
import Logging
import OtonEvents
import OtonStations

/// Runs a plugin's control commands without a player: loads the one plugin
/// through the ABI (as plugins.json configures it, or a default library beside
/// the executable when plugins.json does not list it), creates it on a bus of
/// its own with a request sink that does nothing, runs the commands and
/// destroys it. The plugin sees no track or state event, so a plugin can tell
/// that no player runs. This is how `oton history` reaches the History plugin
/// without the `oton` executable linking what the plugin links.
public enum OfflineCommand {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// A created plugin to send commands to.
    public struct Session: Sendable {
        package let manager: PluginManager

        public func run(
            _ command: String, _ arguments: [String] = [], timeout: Double = 30,
            output: (@Sendable (String) -> Void)? = nil
        ) -> CommandReply {
            manager.run(command: command, arguments: arguments, timeout: timeout, output: output)
                ?? CommandReply(ok: false, text: "the plugin does not provide the command \"\(command)\"")
        }
    }

    /// Creates plugin `pluginID`, hands it to `body`, then destroys it.
    public static func with<T>(
        pluginID: String, defaultLibrary: String, config: OtonConfig,
        logger: Logger = OfflineCommand.quietLogger,
        _ body: (Session) throws -> T
    ) throws -> T {
        var entry =
            config.plugins.first { $0.id == pluginID }
            ?? PluginEntry(id: pluginID, path: defaultLibrary, location: "(default)")
        entry.enabled = true  // a plugin disabled for playback can still answer, e.g., for its stored data
        let manager = PluginManager(bus: PluginBus(logger: logger), requests: NoRequests(), logger: logger)
        let configDirectory = config.file.map { ($0 as NSString).deletingLastPathComponent }
        let reports = manager.start([entry], configDirectory: configDirectory)
        if case let .failed(error)? = reports.first?.status {
            throw Failure(description: error.description(in: .current))
        }
        defer { manager.shutdown() }
        return try body(Session(manager: manager))
    }

    /// Runs one command and returns its reply. With `output`, a long reply goes there in pieces
    /// as the plugin writes it, and `timeout` is the longest wait between pieces.
    public static func run(
        pluginID: String, command: String, arguments: [String], config: OtonConfig,
        defaultLibrary: String, timeout: Double = 30, output: (@Sendable (String) -> Void)? = nil
    ) throws -> CommandReply {
        try with(pluginID: pluginID, defaultLibrary: defaultLibrary, config: config) { $0.run(command, arguments, timeout: timeout, output: output) }
    }

    /// Warnings and errors only: the command's reply is the output.
    public static var quietLogger: Logger {
        var logger = Logger(label: "oton.plugins")
        logger.logLevel = .warning
        return logger
    }
}

/// Requests go nowhere: no player runs.
private struct NoRequests: PlayerRequestSink {
    func submit(_ request: PlayerRequest, from source: String) {}
}
