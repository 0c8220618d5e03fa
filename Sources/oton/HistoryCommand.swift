import ArgumentParser
import Foundation
import OtonHost

/// `oton history` and `oton history stats`: answered by the History plugin
/// (org.oton.history) through its `history` control command, with no player.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: tr("Show the tracks heard (from the History plugin's history.sqlite)."),
        subcommands: [Latest.self, Stats.self],
        defaultSubcommand: Latest.self
    )

    struct Filters: ParsableArguments {
        @Option(name: .long, help: ArgumentHelp(tr("How many rows (tracks; for stats: entries per list)")))
        var limit: Int?

        @Option(name: .long, help: ArgumentHelp(tr("Only tracks started since DATE: 2024-05-01, \"2024-05-01 18:30\", today, yesterday, 12h, 7d")))
        var since: String?

        @Option(name: .long, help: ArgumentHelp(tr("Only this station (case-insensitive)")))
        var station: String?

        @Option(name: .long, help: ArgumentHelp(tr("Only tracks whose artist or title contains TEXT (case and accents ignored, every script)")))
        var search: String?

        @Flag(
            name: .long,
            help: ArgumentHelp(
                tr(
                    "Also show skipped plays (heard for less than the scrobble threshold, 30 s by default, or a placeholder such as Unknown - Unknown); stats never count them"
                )))
        var all = false

        @Option(name: .long, help: ArgumentHelp(tr("table, json or csv")))
        var format: String = "table"

        /// The History plugin's table words (HistoryLabels.english) in the reader's language.
        static var tableWords: [(String, String)] {
            [
                ("STARTED", tr("STARTED")), ("HEARD", tr("HEARD")), ("STATION", tr("STATION")), ("ARTIST", tr("ARTIST")),
                ("TITLE", tr("TITLE")), ("PLAYS", tr("PLAYS")), ("HOURS", tr("HOURS")), ("TRACKS", tr("TRACKS")),
                ("No tracks in the history match.", tr("No tracks in the history match.")), ("[jingle]", tr("[jingle]")),
                ("[skipped]", tr("[skipped]")), ("[station's website]", tr("[station's website]")), ("[recognised]", tr("[recognised]")),
                ("Top artists", tr("Top artists")), ("Top tracks", tr("Top tracks")),
                ("Hours listened per station", tr("Hours listened per station")), ("(none)", tr("(none)")),
            ]
        }

        var arguments: [String] {
            var out: [String] = []
            if let limit { out += ["--limit", String(limit)] }
            if let since { out += ["--since", since] }
            if let station { out += ["--station", station] }
            if let search { out += ["--search", search] }
            if all { out.append("--all") }
            for (english, text) in Self.tableWords where text != english { out += ["--label", "\(english)=\(text)"] }
            return out + ["--format", format]
        }
    }

    struct Latest: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: tr("The latest tracks, newest first."))
        @OptionGroup var options: GlobalOptions
        @OptionGroup var filters: Filters

        func run() throws {
            // Streamed; a history another program keeps locked is waited for (HistoryDatabaseOpener.lockPatience).
            try PluginCommandLine.run(
                pluginID: "org.oton.history", library: "libOtonHistory.so", command: "history",
                arguments: filters.arguments, options: options, streamed: true, timeout: 60)
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Top artists and tracks, and hours listened per station."))
        @OptionGroup var options: GlobalOptions
        @OptionGroup var filters: Filters

        func run() throws {
            try PluginCommandLine.run(
                pluginID: "org.oton.history", library: "libOtonHistory.so", command: "history",
                arguments: ["stats"] + filters.arguments, options: options, timeout: 60)
        }
    }
}

/// Runs one control command of a plugin without a player and prints its reply.
enum PluginCommandLine {
    /// `streamed`: the reply goes to standard output in pieces as the plugin writes them (a long
    /// listing never sits whole in memory), and `timeout` is the longest pause between pieces.
    static func run(
        pluginID: String, library: String, command: String, arguments: [String], options: GlobalOptions,
        streamed: Bool = false, timeout: Double = 30
    ) throws {
        options.bootstrapLogging()
        let config = (try? ConfigLoader.load(explicit: options.config)) ?? OtonConfig()
        if options.config != nil { _ = try options.loadConfig() }  // an explicit file that is broken is an error
        let write: @Sendable (String) -> Void = { text in _ = StandardOutput.write(text) }
        let output = streamed ? write : nil
        let reply: CommandReply
        do {
            reply = try OfflineCommand.run(
                pluginID: pluginID, command: command, arguments: arguments, config: config,
                defaultLibrary: library, timeout: timeout,
                output: output)
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
