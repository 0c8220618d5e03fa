import Foundation
import OtonJSON

/// Edits plugins.json's stations through the CLI's editor (`oton stations default|move|remove`),
/// which writes atomically and tells every running oton to reload its stations.
final class FavouritesEditor: @unchecked Sendable {
    private let config: String?
    private let queue = DispatchQueue(label: "oton.window.favourites")

    init(config: String?) {
        self.config = config
    }

    /// What `oton stations add NAME URL` needs besides, to add station `name` back as it is
    /// (`--homepage`, `--status-url`, from `oton stations list --format json`); none when not found.
    func keptOptions(of name: String, done: @escaping @Sendable ([String]) -> Void) {
        var command = ["stations", "list", "--format", "json"]
        if let config { command += ["--config", config] }
        queue.async { [command] in
            let run = OtonCommand.run(command)
            let list = (try? JSONValue.parse(Data(run.output.utf8)))?.arrayValue ?? []
            guard run.status == 0, let station = list.first(where: { $0["name"]?.stringValue == name }) else { return done([]) }
            done(
                [("--homepage", "homepage"), ("--status-url", "status_url")].flatMap { option, key in
                    station[key]?.stringValue.map { [option, $0] } ?? []
                })
        }
    }

    /// `words` after `oton stations` ("default", NAME); `done` gets the CLI's message on failure.
    func edit(_ words: [String], done: @escaping @Sendable (String?) -> Void) {
        var command = ["stations"] + words
        if let config { command += ["--config", config] }
        queue.async { [command] in
            let run = OtonCommand.run(command)
            done(run.status == 0 ? nil : run.message)
        }
    }
}
