import OtonSupport

/// The favourites edited through the CLI's editor (`oton stations …`, FavouritesEditor), each edit
/// followed by the player's new list.
extension WindowApplication {
    /// A favourite made the default, moved up, removed, renamed or given a new URL
    /// (`oton stations default|move|remove|rename|set-url`), then the new list. A removed one can be
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
        default: words = ["remove", name]
        }
        let removed = action == "remove" ? stations.first { $0.name == name } : nil
        favourites.edit(words) { problem in
            MainThread.run { [weak self] in
                guard let self else { return }
                if let problem {
                    window?.say(problem)
                } else if let removed {
                    window?.say(tr("removed {name}", ["name": removed.name])) { [weak self] in self?.putBack(removed) }
                }
                refreshStations()
            }
        }
    }

    /// Undo of a removal: the station added again (`oton stations add NAME URL`), then moved to the place it had.
    private func putBack(_ station: StationRow) {
        favourites.edit(["add", station.name, station.url]) { problem in
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
