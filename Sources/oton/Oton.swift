import ArgumentParser
import Foundation
import OtonHost

@main
struct Oton: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oton",
        abstract: tr("Internet radio player and recorder with plugins."),
        discussion: HelpText.paragraphs(
            tr(
                "Exit codes: 0 normal, 1 the command failed (a directory search found nothing, a control request refused, units not written), 2 usage or configuration error, 3 stream not playable, 4 recording failed, 5 no display for `oton window`."
            ) + "\n"
                + tr("Shell completion: oton --generate-completion-script bash|zsh|fish."),
            HelpText.examples(
                "oton play \"Oton FM\"", "oton ctl sleep 30m", "oton record \"Oton FM\" --out ~/rec --duration 2h",
                "oton plugins inspect libOtonSleepTimer.so")
        ),
        version: OtonVersionText.text,
        subcommands: [
            PlayCommand.self, RecordCommand.self, CtlCommand.self, StationsCommand.self, WishCommand.self, ScheduleCommand.self, AlarmCommand.self,
            HistoryCommand.self, LastFMCommand.self, PluginsCommand.self, EffectsCommand.self, ConfigCommand.self, WindowCommand.self, PluginHostCommand.self,
        ]
    )

    /// ArgumentParser's main, except that every usage error exits 2 (ArgumentParser's default is
    /// 64), as the README promises: the message, then the hint where to read more.
    static func main() {
        // Chained before Swift's crash handler in every oton process: it also keeps Swift's
        // backtracer from outliving a crashed oton (issue 39, N12; OtonCrashGuard).
        PluginCrashCulprit.installOnce()
        // An unknown command, also with --help, is a usage error, not the top-level help and exit 0.
        if let first = CommandLine.arguments.dropFirst().first, !first.hasPrefix("-"), first != "help", !commandNames.contains(first) {
            let listed = commandNames.filter { $0 != "plugin-host" }.joined(separator: ", ")
            let message = tr("unknown command \"{command}\"; the commands are {commands} (oton --help)", ["command": first, "commands": listed])
            FileHandle.standardError.write(Data(("oton: " + message + "\n").utf8))
            Foundation.exit(ExitStatus.configuration.rawValue)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(ExitStatus.configuration.rawValue)
        }
    }

    /// The subcommands' names, as typed.
    private static var commandNames: [String] {
        var names: [String] = []
        for command in configuration.subcommands { names.append(command._commandName) }
        return names
    }
}
