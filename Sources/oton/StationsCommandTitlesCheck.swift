import ArgumentParser
import Foundation
import OtonHost

extension StationsCommand {
    /// `oton stations titles-check NAME`: which now-playing rule matches a station, the URL it asks and
    /// what it read (docs/titles.md).
    struct TitlesCheck: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "titles-check",
            abstract: tr("Say which now-playing rule matches a station, the URL it asks and what it read (artist, title, start, cover) or why not."),
            discussion: tr(
                "Rules come from oton's catalogue and your own file beside plugins.json (now-playing.json), see docs/titles.md. A station with status_url is read by the rule for that status page. Exit codes: 0 a title was read, 1 no rule named a title, 2 usage or configuration error."
            )
        )

        @Argument(help: ArgumentHelp(tr("The station's name (any case), or a stream URL")))
        var name: String

        @Option(name: .long, help: ArgumentHelp(tr("Try only the rule of this name")))
        var rule: String?

        @Option(name: .long, help: ArgumentHelp(tr("plugins.json to use instead of the lookup")))
        var config: String?

        func run() throws {
            let catalogue = NowPlayingCatalogue.load()
            for problem in catalogue.problems { Terminal.error(problem.text(tr)) }
            let (streamText, statusText) = try station()
            guard let streamURL = URL(string: streamText), streamURL.host != nil else {
                Terminal.error(tr("{url} is not a stream URL", ["url": streamText]))
                throw ExitStatus.configuration
            }
            var tries: [StationStatusPoller] = []
            if let statusText, let statusURL = URL(string: statusText) {
                tries = [StationStatusPoller(statusURL: statusURL, streamURL: streamURL, catalogue: catalogue)]
                print(tr("status_url of plugins.json: {url} (title_source station-api)", ["url": statusText]))
            } else {
                let candidates = catalogue.candidates(for: streamURL).filter { rule == nil || $0.rule.name == rule }
                tries = candidates.compactMap { StationStatusPoller(rule: $0.rule, placeholders: $0.placeholders, streamURL: streamURL) }
                if tries.isEmpty {
                    Terminal.error(
                        tr(
                            "no now-playing rule matches {url}{only}: add one to {file} (docs/titles.md)",
                            ["url": streamText, "only": rule.map { " (--rule \($0))" } ?? "", "file": XDGPaths().nowPlayingRulesFile ?? "now-playing.json"]))
                    throw ExitCode(1)
                }
            }
            for poller in tries {
                let ruleName = poller.rule?.name ?? "?"
                print(tr("rule {rule}: asked {url}", ["rule": ruleName, "url": poller.statusURL.absoluteString]))
                switch poller.fetch() {
                case let .success(status) where status.title != nil:
                    print("  " + tr("title: {title}", ["title": status.title ?? ""]))
                    if let started = status.startedAt { print("  " + tr("started: {time}", ["time": ISO8601DateFormatter().string(from: started)])) }
                    if let seconds = status.durationSeconds { print("  " + tr("duration: {seconds} s", ["seconds": String(Int(seconds))])) }
                    if let cover = status.artworkURL { print("  " + tr("cover: {url}", ["url": cover.absoluteString])) }
                    if let station = status.stationName { print("  " + tr("station: {name}", ["name": station])) }
                    print(
                        tr("matched: {rule} (title_source {source})", ["rule": ruleName, "source": statusText == nil ? "provider:" + ruleName : "station-api"]))
                    return
                case .success:
                    print("  " + tr("no title: {reason}", ["reason": tr("the answer names no title")]))
                case let .failure(error):
                    print("  " + tr("no title: {reason}", ["reason": "\(error)"]))
                }
            }
            throw ExitCode(1)
        }

        /// The stream URL and status_url of NAME in plugins.json, or NAME itself when it is a URL.
        private func station() throws -> (String, String?) {
            if name.hasPrefix("http://") || name.hasPrefix("https://") { return (name, nil) }
            let loaded: OtonConfig
            do {
                loaded = try ConfigLoader.load(explicit: config)
            } catch {
                Terminal.error(error.description)
                throw ExitStatus.configuration
            }
            guard let station = loaded.stations.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                Terminal.error(tr("no station named \"{name}\" in {file}; `oton stations list` shows them", ["name": name, "file": "\(loaded.origin)"]))
                throw ExitStatus.configuration
            }
            return (station.url, station.statusURL)
        }
    }
}
