import OtonSupport

/// The preferences window: the player's plugins, and the alarms `oton alarm` keeps.
extension WindowApplication {
    /// Preferences (Ctrl+,): built when first opened, its plugins asked of the player and its alarms of `oton alarm` each time.
    func openPreferences() {
        guard let window else { return }
        let shown =
            preferences
            ?? PreferencesWindow(
                parent: window.window, addAlarm: { [unowned self] in addAlarm(when: $0, station: $1, days: $2) },
                removeAlarm: { [unowned self] in removeAlarm($0) }, keepPlayingChanged: { [unowned self] in setKeepPlaying($0) })
        preferences = shown
        showKeepPlaying()
        shown.suggest(station: playing.station)
        shown.present()
        showAlarms()
        link?.ask(["plugins"]) { reply, problem in
            let rows = PluginRow.list(from: reply?["data"])
            MainThread.run { [weak self] in
                if let problem { self?.window?.say(problem) }
                self?.preferences?.show(plugins: rows)
            }
        }
    }

    private func showAlarms() {
        alarms.list { rows, problem in
            MainThread.run { [weak self] in
                guard let self else { return }
                if let rows { preferences?.show(alarms: rows) } else if let problem { preferences?.say(problem) }
            }
        }
    }

    private func addAlarm(when: String, station: String, days: Set<Int>) {
        alarms.add(when: when, station: station, days: days) { problem in MainThread.run { [weak self] in self?.alarmsChanged(problem) } }
    }

    private func removeAlarm(_ number: Int) {
        alarms.remove(number) { problem in MainThread.run { [weak self] in self?.alarmsChanged(problem) } }
    }

    /// After `oton alarm add|remove`: its refusal said, the list read again.
    private func alarmsChanged(_ problem: String?) {
        if let problem { preferences?.say(problem) }
        showAlarms()
    }
}
