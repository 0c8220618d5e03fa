import ArgumentParser
import Foundation
import Logging
import OtonHost

/// Options every command that runs the host takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(tr("plugins.json to use (default: $OTON_CONFIG, $XDG_CONFIG_HOME/oton/plugins.json, ./plugins.json)")))
    var config: String?

    @Option(
        name: .long, help: ArgumentHelp(tr("Log level: debug, info, warning, error (default: info; warning under the status line)")),
        transform: GlobalOptions.level)
    var logLevel: Logger.Level?

    /// A --log-level value; anything else is a usage error naming the accepted ones.
    private static func level(_ text: String) throws -> Logger.Level {
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw ValidationError(tr("use debug, info, warning or error (also trace, notice, critical)"))
        }
        return level
    }

    /// Loads plugins.json or exits with code 2 and a message naming the file, line and column.
    func loadConfig() throws -> OtonConfig {
        do {
            return try ConfigLoader.load(explicit: config)
        } catch {
            Terminal.error(error.description)
            throw ExitStatus.configuration
        }
    }

    /// The STATION|URL|FILE argument as a station, or exit with code 2 and the known names.
    func resolveStation(_ argument: String?, in config: OtonConfig) throws -> Station {
        do {
            return try StationResolver.resolve(argument, in: config)
        } catch {
            Terminal.error(error.description)
            throw ExitStatus.configuration
        }
    }

    /// `terminal`: the status line shows, so log lines go above it through TerminalRow and,
    /// unless --log-level says otherwise, only warnings and errors are shown.
    func bootstrapLogging(terminal: Bool = false) {
        let level = logLevel ?? (terminal ? .warning : .info)
        LoggingSystem.bootstrap { label in
            if terminal { return TerminalLogHandler(label: label, logLevel: level) }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let catalogueProblems = MessageCatalogue.current.problems
        if !catalogueProblems.isEmpty { Logger(label: "oton.locale").debug("\(catalogueProblems.joined(separator: "; "))") }
    }
}

enum Terminal {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data(("oton: " + message + "\n").utf8))
    }
}
