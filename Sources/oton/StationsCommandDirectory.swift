import ArgumentParser
import Foundation
import Logging
import OtonHost

/// Options that choose the directory server, shared by `stations search` and `play --search`.
struct DirectoryServerOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            tr("Radio Browser server (default: \"directory_server\" in plugins.json, else one found through DNS)"),
            valueName: "url"))
    var server: String?

    @Option(name: .long, help: ArgumentHelp(tr("Seconds to wait for the directory's answer")))
    var timeout: Double = 10

    /// A client for the chosen server, or what is wrong: exit 2 for a bad --server, exit 1 when no
    /// directory can be reached (no network).
    func client(config: String?) throws -> StationDirectoryClient {
        try Self.client(server: server, timeout: timeout, config: config)
    }

    static func client(server: String?, timeout: Double = 10, config: String?) throws -> StationDirectoryClient {
        let configFile: String? = if case let .file(file, _)? = try? ConfigLoader.locate(explicit: config) { file } else { nil }
        do {
            let chosen = try DirectoryServerSetting.choose(flag: server, configFile: configFile)
            return try StationDirectoryClient(server: chosen, timeoutSeconds: timeout)
        } catch {
            Terminal.error(error.description)
            throw error.isUsageError ? ExitStatus.configuration : ExitCode.failure
        }
    }
}

/// Runs a directory search for the command line: the answer, or one clear error and exit 1.
enum DirectorySearchRunner {
    static func search(_ query: DirectorySearchQuery, with client: StationDirectoryClient) throws -> [DirectoryStation] {
        let result: StationDirectoryClient.SearchResult
        do {
            result = try client.search(query)
        } catch {
            Terminal.error(error.description)
            throw ExitCode.failure
        }
        if result.skipped > 0 {
            Terminal.note("skipped \(result.skipped) entr\(result.skipped == 1 ? "y" : "ies") of the answer without a usable name or http(s) URL")
        }
        guard !result.stations.isEmpty else {
            Terminal.error("the directory at \(client.server) has no station matching \"\(query.name)\"\(filters(query))\n  hint: try fewer words or filters")
            throw ExitCode.failure
        }
        return result.stations
    }

    /// Counts the play with the directory on a background thread; never holds playback.
    static func countPlay(of station: DirectoryStation, with client: StationDirectoryClient) {
        guard let uuid = station.uuid else { return }
        let thread = Thread {
            do {
                try client.click(uuid: uuid)
            } catch {
                Logger(label: "oton.directory").info("play not counted by the directory: \(error)")
            }
        }
        thread.name = "oton.directory.click"
        thread.start()
    }

    private static func filters(_ query: DirectorySearchQuery) -> String {
        let parts = [("tag", query.tag), ("country", query.countryCode), ("language", query.language), ("codec", query.codec)]
            .compactMap { name, value in value.map { "\(name) \($0)" } }
        return parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")"
    }
}
