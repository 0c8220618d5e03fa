import ArgumentParser
import Foundation
import OtonHost

extension StationsCommand {
    /// `oton stations search QUERY`: the Radio Browser directory, most-voted first.
    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: tr("Search the Radio Browser directory; `oton stations add --from-search N` keeps a result."),
            discussion: tr("Shows name, country, codec, bitrate, tags, and whether the directory's last check found the stream online.")
        )

        @Argument(help: ArgumentHelp(tr("Words in the station's name")))
        var query: String

        @Option(name: .long, help: ArgumentHelp(tr("Only stations with this tag (jazz, news, …)")))
        var tag: String?

        @Option(name: .long, help: ArgumentHelp(tr("Only stations from this country (ISO 3166 code: DE, FR, …)"), valueName: "cc"))
        var country: String?

        @Option(name: .long, help: ArgumentHelp(tr("Only stations in this language (english, german, …)")))
        var language: String?

        @Option(name: .long, help: ArgumentHelp(tr("Only stations with this codec (MP3, AAC, OGG, …)")))
        var codec: String?

        @Option(name: .long, help: ArgumentHelp(tr("At most this many results, 1–{maximum}", ["maximum": String(DirectorySearchQuery.maxLimit)])))
        var limit: Int = DirectorySearchQuery.defaultLimit

        @Option(name: .long, help: ArgumentHelp(tr("table or json")))
        var format: StationsOutputFormat = .table

        @OptionGroup var directory: DirectoryServerOptions

        @Option(name: .long, help: ArgumentHelp(tr("plugins.json to read \"directory_server\" from")))
        var config: String?

        func validate() throws {
            guard (1...DirectorySearchQuery.maxLimit).contains(limit) else {
                throw ValidationError(tr("--limit {value}: use 1 to {maximum}", ["value": String(limit), "maximum": String(DirectorySearchQuery.maxLimit)]))
            }
            if let country, country.count != 2 || !country.allSatisfy(\.isLetter) {
                throw ValidationError(tr("--country {value}: use a two-letter country code such as DE or FR", ["value": country]))
            }
        }

        func run() throws {
            let client = try directory.client(config: config)
            let query = DirectorySearchQuery(name: query, tag: tag, countryCode: country, language: language, codec: codec, limit: limit)
            let stations = try DirectorySearchRunner.search(query, with: client)
            print(format == .json ? StationsTable.json(stations) : StationsTable.table(stations))
            do {
                try LastSearchStore.save(stations, query: query.name, server: client.server)
            } catch {
                Terminal.note("the results were not kept for `add --from-search`: \(error)")
            }
        }
    }
}
