import ArgumentParser

@main
struct Oton: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oton",
        abstract: "Internet radio player and recorder with plugins.",
        version: OtonVersionText.text,
        subcommands: [PlayCommand.self, RecordCommand.self, CtlCommand.self, HistoryCommand.self, LastFMCommand.self, PluginsCommand.self, ConfigCommand.self]
    )
}
