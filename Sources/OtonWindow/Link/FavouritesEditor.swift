import Foundation

/// Edits plugins.json's stations through the CLI's editor (`oton stations default|move|remove`),
/// which writes atomically and tells every running oton to reload its stations.
final class FavouritesEditor: @unchecked Sendable {
    private let config: String?
    private let queue = DispatchQueue(label: "oton.window.favourites")

    init(config: String?) {
        self.config = config
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
