import OtonSupport

/// The directory search: each search replaces the one running (DirectorySearch ends it), and a
/// result plays or goes to the favourites from its row.
extension WindowApplication {
    /// Searches the directory; an older search's late answer is dropped.
    func search(_ query: String) {
        searchGeneration += 1
        let generation = searchGeneration
        window?.search.say(tr("searching for \"{query}\"…", ["query": query]))
        directory.search(query) { outcome in
            MainThread.run { [weak self] in
                guard let self, generation == searchGeneration else { return }
                switch outcome {
                case let .success(found):
                    results = found
                    if found.isEmpty { return showNothingFound(query) }
                    window?.search.show(found)
                    window?.search.say(found.count == 1 ? tr("1 station found") : tr("{count} stations found", ["count": "\(found.count)"]))
                case let .failure(problem) where SearchTrouble.isNothingFound(problem.message):
                    results = []
                    showNothingFound(query)
                case let .failure(problem):
                    let trouble = SearchTrouble.failed(problem.message)
                    window?.search.show(trouble)
                    window?.search.say(trouble.title)
                }
            }
        }
    }

    private func showNothingFound(_ query: String) {
        window?.search.show(SearchTrouble.nothingFound(query))
        window?.search.say(tr("the directory has nothing for \"{query}\"", ["query": query]))
    }

    /// Plays search result `position` (from 1): a switch to its URL, as `oton ctl station URL`.
    func playResult(_ position: Int) {
        guard let result = results.first(where: { $0.position == position }) else { return }
        send(["station", result.playURL])
    }

    /// Adds search result `position` (from 1) to plugins.json, played or not, then shows the player's new list.
    func addResult(_ position: Int) {
        guard let result = results.first(where: { $0.position == position }) else { return }
        directory.addToFavourites(result) { problem in
            MainThread.run { [weak self] in
                guard let self else { return }
                if let problem {
                    window?.say(problem)
                    return
                }
                window?.say(tr("added {name} to the favourites", ["name": result.name]))
                link?.stations { [weak self] list in MainThread.run { self?.showStations(list) } }
            }
        }
    }
}
