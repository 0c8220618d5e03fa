import OtonSupport

/// The favourites edited through the CLI's editor (`oton stations …`, FavouritesEditor), each edit
/// followed by the player's new list.
extension WindowApplication {
    /// A favourite made the default, moved (to the top, up or down: one `oton stations move NAME POSITION`
    /// however far), removed, renamed or given a new URL (`oton stations default|move|remove|rename|set-url`),
    /// then the new list; the focus follows a moved station. A removed one can be
    /// put back at its place from the toast that says so.
    func editFavourite(_ action: String, _ name: String, to newValue: String = "") {
        let words: [String]
        switch action {
        case "default": words = ["default", name]
        case "rename": words = ["rename", name, newValue]
        case "set-url": words = ["set-url", name, newValue]
        case "up":
            guard let index = stations.firstIndex(where: { $0.name == name }), index > 0 else { return }
            words = ["move", name, "\(index)"]  // positions count from 1: index is the one above
        case "down":
            guard let index = stations.firstIndex(where: { $0.name == name }), index + 1 < stations.count else { return }
            words = ["move", name, "\(index + 2)"]
        case "top":
            guard let index = stations.firstIndex(where: { $0.name == name }), index > 0 else { return }
            words = ["move", name, "1"]
        default: words = ["remove", name]
        }
        if action == "remove", let removed = stations.first(where: { $0.name == name }) {
            // What Undo needs besides the name and URL is read first.
            favourites.keptOptions(of: name) { kept in
                MainThread.run { [weak self] in self?.remove(removed, words, keeping: kept) }
            }
            return
        }
        if words.first == "move" { window?.followFocus(name) }
        favourites.edit(words) { problem in
            MainThread.run { [weak self] in
                if let problem { self?.window?.say(problem) }
                self?.refreshStations()
            }
        }
    }

    /// `oton stations remove NAME`, and a toast whose Undo puts it back (with `kept`: its homepage and status URL).
    private func remove(_ station: StationRow, _ words: [String], keeping kept: [String]) {
        favourites.edit(words) { problem in
            MainThread.run { [weak self] in
                guard let self else { return }
                if let problem {
                    window?.say(problem)
                } else {
                    window?.say(tr("removed {name}", ["name": station.name])) { [weak self] in self?.putBack(station, kept) }
                }
                refreshStations()
            }
        }
    }

    /// Undo of a removal: the station added again (`oton stations add NAME URL [--homepage …] [--status-url …]`),
    /// then moved to the place it had. Keys the CLI cannot set (title_encoding, logo_url …) are not restored.
    private func putBack(_ station: StationRow, _ kept: [String]) {
        favourites.edit(["add", station.name, station.url] + kept) { problem in
            MainThread.run { [weak self] in
                guard let self else { return }
                if let problem { return window?.say(problem) ?? () }
                favourites.edit(["move", station.name, "\(station.number)"]) { problem in
                    MainThread.run { [weak self] in
                        if let problem { self?.window?.say(problem) }
                        self?.refreshStations()
                    }
                }
            }
        }
    }

    /// "Add a station": `oton stations add NAME URL`; the CLI's refusal is said in the popover.
    func addStation(_ name: String, url: String) {
        favourites.edit(["add", name, url]) { problem in
            MainThread.run { [weak self] in
                guard let self else { return }
                if let problem {
                    window?.addStation.refuse(problem)
                    return
                }
                window?.addStation.added()
                window?.say(tr("added {name} to the favourites", ["name": name]))
                refreshStations()
            }
        }
    }

    /// The player's stations (after an edit, which the CLI told it about).
    func refreshStations() {
        link?.stations { [weak self] list in MainThread.run { self?.showStations(list) } }
    }
}
