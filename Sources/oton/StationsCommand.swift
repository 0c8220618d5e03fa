import ArgumentParser
import Foundation
import OtonHost

/// `oton stations …`: the station directory (search) and the favourites in plugins.json.
struct StationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stations",
        abstract: tr("Find stations in the Radio Browser directory and keep favourites in plugins.json."),
        discussion: HelpText.paragraphs(
            tr(
                "Edits go to --config FILE, else $OTON_CONFIG, else $XDG_CONFIG_HOME/oton/plugins.json (created from the built-in default when missing). Only the \"stations\" array changes; every other key stays as written. The file is replaced atomically, and every running oton is told (`oton ctl reload-stations`)."
            ),
            tr("Exit codes: 0 done, 1 the directory failed or found nothing, 2 usage or configuration error."),
            HelpText.examples(
                "oton stations search jazz --country DE --limit 10", "oton stations add --from-search 2",
                "oton stations add \"My FM\" https://host/stream.mp3", "oton stations move \"My FM\" 1",
                "oton stations default \"Oton FM\"", "oton stations set-url \"My FM\" https://host/other.mp3",
                "oton stations remove \"My FM\"",
                "oton stations export favourites.m3u", "oton play --search \"radio paradise\"")
        ),
        subcommands: [
            List.self, Search.self, Add.self, Remove.self, Rename.self, SetURL.self, Move.self, Default.self, Import.self, Export.self, TitlesCheck.self,
        ],
        defaultSubcommand: List.self
    )

    /// `oton stations list`: the stations of the plugins.json in use, in order.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("List the stations in plugins.json (the favourites), in order."))

        @Option(name: .long, help: ArgumentHelp(tr("plugins.json to use instead of the lookup")))
        var config: String?

        @Option(name: .long, help: ArgumentHelp(tr("table or json")))
        var format: StationsOutputFormat = .table

        func run() throws {
            let loaded: OtonConfig
            do {
                loaded = try ConfigLoader.load(explicit: config)
            } catch {
                Terminal.error(error.description)
                throw ExitStatus.configuration
            }
            let defaultName = loaded.defaultStation?.name
            switch format {
            case .json:
                let list: [JSONValue] = loaded.stations.map { station in
                    var members: [String: JSONValue] = [
                        "name": .string(station.name), "url": .string(station.url),
                        "default": .bool(station.name == defaultName),
                    ]
                    if let homepage = station.homepage { members["homepage"] = .string(homepage) }
                    if let statusURL = station.statusURL { members["status_url"] = .string(statusURL) }
                    return .object(members)
                }
                print(JSONValue.array(list).jsonText)
            case .table:
                for (index, station) in loaded.stations.enumerated() {
                    let mark = station.name == defaultName ? "  " + tr("(default)") : ""
                    print("\(index + 1). \(StationsTable.clean(station.name))  \(StationsTable.clean(station.url))\(mark)")
                }
                if loaded.stations.isEmpty { Terminal.note("no stations in \(loaded.origin); `oton stations add` or `oton stations search` finds some") }
            }
        }
    }
}

enum StationsOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json
}

extension Terminal {
    /// A line for the reader on standard error (standard output carries only the answer).
    static func note(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
