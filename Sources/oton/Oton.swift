import ArgumentParser
import Foundation

@main
struct Oton: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oton",
        abstract: "Internet radio player and recorder with plugins.",
        version: OtonVersionText.text,
        subcommands: [PlayCommand.self, RecordCommand.self, CtlCommand.self, HistoryCommand.self, LastFMCommand.self, PluginsCommand.self, ConfigCommand.self]
    )

    /// ArgumentParser's main, except that every usage error exits 2 (ArgumentParser's default is
    /// 64), as the README promises: the message, then the hint where to read more.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(ExitStatus.configuration.rawValue)
        }
    }
}
