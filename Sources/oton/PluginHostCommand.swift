import ArgumentParser
import Foundation
import Logging
import OtonHost

/// `oton plugin-host`: the child process of a plugin with `"isolation": "process"`. oton starts it
/// with one end of a socket pair as `--fd`, and sends the plugin's config over it, not as an
/// argument; it is not for people to run (hidden from help). Without
/// `--worker` it is the keeper of the plugin's process tree and starts itself again with `--worker`,
/// which loads the plugin (``PluginHostKeeper``).
struct PluginHostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin-host",
        abstract: tr("Run one isolated plugin for a parent oton (started by oton itself)."),
        shouldDisplay: false
    )

    @Option(name: .long) var fd: Int32
    @Option(name: .long) var id: String
    @Option(name: .long) var path: String
    @Option(name: .customLong("data-home")) var dataHome: String
    @Option(name: .customLong("cache-home")) var cacheHome: String
    @Flag(name: .long) var worker = false
    /// oton started this child again after a crash (``PluginHostChild/run(fd:id:path:directories:restart:)``).
    @Flag(name: .long) var restart = false

    func run() throws {
        // At the parent oton's level (info when not said): see IsolatedPluginProcess.spawn.
        let level = ProcessInfo.processInfo.environment[IsolatedPluginProcess.logLevelVariable].flatMap(Logger.Level.init(rawValue:)) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        guard worker else { throw ExitCode(PluginHostKeeper.run(handing: fd)) }
        let status = PluginHostChild.run(
            fd: fd, id: id, path: path, directories: .init(dataHome: dataHome, cacheHome: cacheHome),
            restart: restart)
        throw ExitCode(status)
    }
}
