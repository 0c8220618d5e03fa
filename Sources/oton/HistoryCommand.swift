import ArgumentParser
import Foundation
import OtonHost

/// `oton history` and `oton history stats`: answered by the History plugin
/// (org.oton.history) through its `history` control command, with no player.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show the tracks heard (from the History plugin's history.sqlite).",
        discussion: """
            A track heard for less than the scrobbling threshold (min_live_seconds in the History plugin's config, 30 s by default), \
            or the station's placeholder instead of a title ("Unknown - Unknown"), is kept but marked skipped: \
            the list hides it unless --all, and stats never count it.
            """,
        subcommands: [Latest.self, Stats.self],
        defaultSubcommand: Latest.self
    )

    struct Filters: ParsableArguments {
        @Option(name: .long, help: "How many rows (tracks; for stats: entries per list)")
        var limit: Int?

        @Option(name: .long, help: "Only tracks started since DATE: 2024-05-01, \"2024-05-01 18:30\", today, yesterday, 12h, 7d")
        var since: String?

        @Option(name: .long, help: "Only this station (case-insensitive)")
        var station: String?

        @Option(name: .long, help: "Only tracks whose artist or title contains TEXT (ignoring case and accents, in any script)")
        var search: String?

        @Flag(name: .long, help: "Also the skipped tracks (heard less than the scrobbling threshold, or a placeholder title), marked [skipped]")
        var all = false

        @Option(name: .long, help: "table, json or csv")
        var format: String = "table"

        var arguments: [String] {
            var out: [String] = []
            if let limit { out += ["--limit", String(limit)] }
            if let since { out += ["--since", since] }
            if let station { out += ["--station", station] }
            if let search { out += ["--search", search] }
            if all { out.append("--all") }
            return out + ["--format", format]
        }
    }

    struct Latest: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "The latest tracks, newest first.")
        @OptionGroup var options: GlobalOptions
        @OptionGroup var filters: Filters

        func run() throws {
            try PluginCommandLine.run(pluginID: "org.oton.history", library: "libOtonHistory.so", command: "history",
                                      arguments: filters.arguments, options: options)
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Top artists and tracks, and hours listened per station.")
        @OptionGroup var options: GlobalOptions
        @OptionGroup var filters: Filters

        func run() throws {
            try PluginCommandLine.run(pluginID: "org.oton.history", library: "libOtonHistory.so", command: "history",
                                      arguments: ["stats"] + filters.arguments, options: options)
        }
    }
}

/// Runs one control command of a plugin without a player and prints its reply.
enum PluginCommandLine {
    static func run(pluginID: String, library: String, command: String, arguments: [String], options: GlobalOptions) throws {
        options.bootstrapLogging()
        let config = (try? ConfigLoader.load(explicit: options.config)) ?? OtonConfig()
        if options.config != nil { _ = try options.loadConfig() } // an explicit file that is broken is an error
        let reply: CommandReply
        do {
            reply = try OfflineCommand.run(pluginID: pluginID, command: command, arguments: arguments, config: config,
                                           defaultLibrary: library)
        } catch {
            Terminal.error("\(error)")
            throw ExitStatus.configuration
        }
        guard reply.ok else {
            Terminal.error(reply.text)
            throw ExitStatus.configuration
        }
        StandardOutput.write(reply.text)
    }
}
