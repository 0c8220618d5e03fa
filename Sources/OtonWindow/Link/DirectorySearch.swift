import Foundation
import OtonJSON
import OtonSupport

/// The Radio Browser directory through the command line the user has (`oton stations search
/// --format json`, `oton stations add NAME URL --homepage PAGE`): the same client, server choice and
/// atomic plugins.json editor as the CLI, and no directory code in the window. A result is added
/// from what the window shows, not with `--from-search N`, whose cache a newer search may have
/// replaced by the time it is read.
/// A search runs as a child process of its own, and a newer search ends it (SIGKILL): only the
/// newest one answers. Adding runs on a queue of its own. The answers come back on any thread.
final class DirectorySearch: @unchecked Sendable {  // `running` and `newest` are shared between threads: under `lock`
    struct Result: Equatable, Sendable {
        var position: Int
        var name: String
        var playURL: String
        var homepage: String?
        /// "DE · MP3 128 kbps · jazz, swing"
        var detail: String
    }

    private let config: String?
    private let queue = DispatchQueue(label: "oton.window.directory")
    private let lock = NSLock()
    /// The search running now, and the number of the newest one asked for.
    private var running: Process?
    private var newest = 0

    init(config: String?) {
        self.config = config
    }

    /// Searches by name, ending the search still running; `done` gets the results or the CLI's message
    /// (offline, no answer …), and is not called for a search a newer one replaced.
    func search(_ query: String, done: @escaping @Sendable (Swift.Result<[Result], Failure>) -> Void) {
        var words = ["stations", "search", query, "--format", "json", "--limit", "100"]
        if let config { words += ["--config", config] }
        let number = lock.withLock {
            newest += 1
            if let running { OtonCommand.end(running) }
            running = nil
            return newest
        }
        DispatchQueue.global().async { [self, words] in
            let run = OtonCommand.run(words) { process in
                lock.withLock {
                    if number == newest { running = process } else { OtonCommand.end(process) }
                }
            }
            let current = lock.withLock {
                if number == newest { running = nil }
                return number == newest
            }
            guard current else { return }
            guard run.status == 0 else { return done(.failure(Failure(run.message))) }
            guard case let .array(entries)? = try? JSONValue.parse(Data(run.output.utf8), maxBytes: 64 << 20) else {
                return done(.failure(Failure(tr("the directory's answer could not be read"))))
            }
            done(.success(entries.compactMap(Self.result)))
        }
    }

    /// Adds `result` to plugins.json as `--from-search` would (its name, stream URL and homepage); the
    /// CLI tells every running oton.
    func addToFavourites(_ result: Result, done: @escaping @Sendable (String?) -> Void) {
        var words = ["stations", "add", result.name, result.playURL]
        if let homepage = result.homepage { words += ["--homepage", homepage] }
        if let config { words += ["--config", config] }
        queue.async { [words] in
            let run = OtonCommand.run(words)
            done(run.status == 0 ? nil : run.message)
        }
    }

    struct Failure: Error, Sendable {
        let message: String
        init(_ message: String) { self.message = message }
    }

    private static func result(_ entry: JSONValue) -> Result? {
        guard let position = entry["position"]?.int64Value, let name = entry["name"]?.stringValue,
            let url = entry["play_url"]?.stringValue ?? entry["url"]?.stringValue
        else { return nil }
        var parts: [String] = []
        if let country = entry["countrycode"]?.stringValue, !country.isEmpty { parts.append(country) }
        let codec = [entry["codec"]?.stringValue, entry["bitrate"]?.int64Value.map { "\($0) kbps" }].compactMap { $0 }.joined(separator: " ")
        if !codec.isEmpty { parts.append(codec) }
        let tags = (entry["tags"]?.arrayValue ?? []).compactMap(\.stringValue).prefix(3).joined(separator: ", ")
        if !tags.isEmpty { parts.append(tags) }
        return Result(
            position: Int(position), name: name, playURL: url, homepage: entry["homepage"]?.stringValue, detail: parts.joined(separator: " · "))
    }
}
