import CGtk
import Foundation
import OtonJSON
import OtonSupport
import PluginAPI

/// `oton window`: an AdwApplication (one per session: a second start raises the first), a client
/// of the player's bus through the control socket. GTK and every widget live on the main thread;
/// the socket's reader hands its updates over through the default main context.
@MainActor
public final class WindowApplication {
    /// The desktop file's id (OTON_DESKTOP_APP_ID): owned on the session bus, where MPRIS's Raise activates it.
    public static let identifier = OTON_DESKTOP_APP_ID
    let arguments: WindowArguments
    private let application: UnsafeMutablePointer<AdwApplication>
    var window: MainWindow?
    var link: PlayerLink?
    var playing = NowPlaying()
    var stations: [StationRow] = []
    lazy var directory = DirectorySearch(config: arguments.config)
    lazy var favourites = FavouritesEditor(config: arguments.config)
    lazy var alarms = AlarmEditor(config: arguments.config)
    var results: [DirectorySearch.Result] = []
    var searchGeneration = 0
    private var historyGeneration = 0
    /// Whether the player answers `history` (its history plugin runs); nil until asked.
    private var pluginHistory: Bool?
    var preferences: PreferencesWindow?
    /// Quit (Ctrl+Q) was chosen: the window's own player stops whatever "keep playing" says.
    var quitting = false
    /// "Record this station": made when first used.
    private var stationRecorder: StationRecorder?
    private var showsRecording = false

    public init(arguments: WindowArguments) {
        self.arguments = arguments
        application = adw_application_new(Self.identifier, GApplicationFlags(0))!
    }

    /// Runs until the last window closes; returns the exit status.
    public func run() -> Int32 {
        let app = UnsafeMutableRawPointer(application)
        Signal.connect(app, "startup") { [unowned self] in startup() }
        Signal.connect(app, "activate") { [unowned self] in activate() }
        Signal.connect(app, "shutdown") { [unowned self] in
            stationRecorder?.stop(waiting: 10)
            leavePlayer()
        }
        let status = g_application_run(cast(application), 0, nil)
        g_object_unref(app)
        return status
    }

    /// The first instance only: actions, keys, and the link to the player.
    private func startup() {
        addActions()
        do {
            let link = try PlayerLink.attachOrStart(instance: arguments.instance, config: arguments.config)
            self.link = link
            follow(link)
        } catch {
            FileHandle.standardError.write(Data(("oton window: " + tr("cannot start the player: {reason}", ["reason": "\(error)"]) + "\n").utf8))
        }
        MainThread.every(seconds: 1) { [weak self] in
            guard let self else { return false }
            if playing.isCountingDown { window?.showState(playing, now: Self.now()) }
            let recording = stationRecorder?.isRecording ?? false
            if recording != showsRecording {  // a recorder that ended by itself (the station gave up)
                showsRecording = recording
                window?.showRecordingStation(recording)
            }
            return true
        }
    }

    private func activate() {
        if window == nil {
            let actions = MainWindow.Actions(
                act: { [unowned self] in send($0) }, playOrPause: { [unowned self] in playOrPause() },
                search: { [unowned self] in search($0) },
                searchHistory: { [unowned self] _ in refreshHistory() },
                historyShown: { [unowned self] in refreshHistory() },
                rename: { [unowned self] in editFavourite("rename", $0, to: $1) },
                setURL: { [unowned self] in editFavourite("set-url", $0, to: $1) },
                addStation: { [unowned self] in addStation($0, url: $1) })
            window = MainWindow(application: cast(application), size: arguments.size, actions: actions)
            if let window {
                oton_gtk_on_space(
                    window.window,
                    { data in
                        MainActor.assumeIsolated { Unmanaged<WindowApplication>.fromOpaque(data!).takeUnretainedValue().playOrPause() }
                    }, Unmanaged.passUnretained(self).toOpaque())
            }
            window?.show(playing, now: Self.now())
            window?.show(stations: stations)
        }
        window?.present()
    }

    private func follow(_ link: PlayerLink) {
        link.follow { update in
            MainThread.run { [weak self] in self?.apply(update) }
        }
    }

    private func apply(_ update: PlayerLink.Update) {
        switch update {
        case let .attached(status, list):
            playing.apply(status: status, now: Self.now())
            playing.playerGone = false
            stations = list
            window?.show(stations: list)
            refreshHistory()
        case let .event(event):
            let (heard, newest) = (playing.history.count, playing.history.first)
            let kind = event["kind"]?.stringValue
            if kind == "track" || (kind == "state" && ["playing", "paused"].contains(event["fields"]?["state"]?.stringValue ?? "")) {
                refreshLiveAndLevel()  // neither is an event: asked of `status` as playback starts, pauses, or a track changes
            }
            guard playing.apply(event: event, now: Self.now()) else { return }
            if playing.history.count != heard || playing.history.first != newest { historyHeard() }
        case let .gone(reason):
            playing.playerGone = true
            if playing.lastProblem == nil, reason != tr("the player stopped") { playing.lastProblem = .init(message: reason, suggestion: nil) }
        }
        window?.show(playing, now: Self.now())
    }

    func send(_ words: [String]) {
        guard let link else { return }
        if playing.playerGone, link.ownsPlayer, words != ["stop"] {
            // The window's own player quit (it gave up on its station): a new one, then the command.
            restartPlayer(then: words)
            return
        }
        link.ask(words) { reply, problem in
            let data = reply?["data"]?.objectValue
            MainThread.run { [weak self] in
                guard let self else { return }
                if let problem {
                    window?.say(problem)
                    return
                }
                // `live` and `level` answer with where playback is now and whether it levels.
                if let data, ["live", "level", "seek"].contains(words.first ?? ""), playing.apply(timeshiftAndLevel: data, now: Self.now()) {
                    window?.show(playing, now: Self.now())
                }
            }
        }
    }

    /// Timeshift's "behind live" and levelling, from `status` (docs/timeshift.md, docs/levelling.md).
    private func refreshLiveAndLevel() {
        link?.ask(["status"]) { reply, _ in
            guard let data = reply?["data"]?.objectValue else { return }
            MainThread.run { [weak self] in
                guard let self, playing.apply(timeshiftAndLevel: data, now: Self.now()) else { return }
                window?.show(playing, now: Self.now())
            }
        }
    }

    private func restartPlayer(then words: [String]) {
        guard let link else { return }
        do {
            try link.restartPlayer()
            playing = NowPlaying()
            window?.show(playing, now: Self.now())
            follow(link)
            if words != ["play"] { link.send(words) }
        } catch {
            window?.say(tr("cannot start the player: {reason}", ["reason": "\(error)"]))
        }
    }

    /// Today's tracks, or those the history search finds, from the player's history plugin (`history
    /// --format json`); without that plugin, the tracks heard since the window opened. A late answer to
    /// an older query is dropped.
    private func refreshHistory() {
        guard let link, let window, window.hasHistory else { return }  // filled when first shown
        let query = window.history.query
        if pluginHistory == false { return showOwnHistory() }
        historyGeneration += 1
        let generation = historyGeneration
        let filter = query.isEmpty ? ["--since", "today"] : ["--search", query]
        link.ask(["history"] + filter + ["--limit", "\(HistoryLines.limit)", "--format", "json"]) { reply, _ in
            MainThread.run { [weak self] in
                guard let self, generation == historyGeneration else { return }
                guard let text = reply?["text"]?.stringValue, let lines = HistoryLines.lines(fromJSON: text) else {
                    pluginHistory = false
                    return showOwnHistory()
                }
                pluginHistory = true
                self.window?.history.show(lines)
                self.window?.history.say(
                    query.isEmpty
                        ? (lines.isEmpty ? tr("nothing heard today yet") : tr("today's tracks"))
                        : lines.isEmpty
                            ? tr("no track in the history matches \"{query}\"", ["query": query])
                            : tr("tracks in the history matching \"{query}\"", ["query": query]))
            }
        }
    }

    /// The tracks heard since the window opened (no history plugin in the player), filtered by the search.
    private func showOwnHistory() {
        guard let window, window.hasHistory else { return }
        window.history.show(HistoryLines.matching(playing.history, window.history.query))
        window.history.say(tr("the player keeps no history (its history plugin is off): tracks heard since the window opened"))
    }

    /// A new track: the history shows it (the plugin writes it as the track starts: asked a moment later).
    private func historyHeard() {
        if pluginHistory == false { return showOwnHistory() }
        MainThread.after(seconds: 1) { [weak self] in self?.refreshHistory() }
    }

    /// Share (app.share): the share plugin's text for the track playing, put on the clipboard.
    private func share() {
        link?.ask(["share", "--format", "json"]) { reply, problem in
            let text = reply?["text"]?.stringValue.flatMap { try? JSONValue.parse(Data($0.utf8)) }?["text"]?.stringValue
            MainThread.run { [weak self] in
                guard let window = self?.window else { return }
                if let text {
                    window.copy(text, saying: tr("copied: {text}", ["text": text]))
                } else {
                    window.say(problem ?? tr("the share plugin gave no text"))
                }
            }
        }
    }

    /// Record this station (app.record-station): starts `oton record` on the player's station URL, or stops it.
    private func toggleStationRecording() {
        if let recorder = stationRecorder, recorder.isRecording {
            DispatchQueue.global().async {
                recorder.stop(waiting: 30)
                MainThread.run { [weak self] in
                    self?.showsRecording = false
                    self?.window?.showRecordingStation(false)
                    self?.window?.say(tr("the recording is finished: {folder}", ["folder": StationRecorder.folder()]))
                }
            }
            return
        }
        link?.ask(["status"]) { reply, problem in
            let url = reply?["data"]?["url"]?.stringValue ?? ""
            MainThread.run { [weak self] in
                guard let self else { return }
                guard !url.isEmpty else {
                    window?.say(problem ?? tr("no station to record"))
                    return
                }
                let recorder = stationRecorder ?? StationRecorder(config: arguments.config)
                stationRecorder = recorder
                do {
                    try recorder.start(url: url)
                    showsRecording = true
                    window?.showRecordingStation(true)
                    window?.say(tr("recording the station into {folder}", ["folder": StationRecorder.folder()]))
                } catch {
                    window?.say(tr("cannot start the recorder: {reason}", ["reason": "\(error)"]))
                }
            }
        }
    }

    /// A command whose reply is worth saying when it worked too (`record-current`: where the file goes).
    private func sendSaying(_ words: [String]) {
        link?.ask(words) { reply, problem in
            let said = problem ?? reply?["text"]?.stringValue ?? ""
            MainThread.run { [weak self] in if !said.isEmpty { self?.window?.say(said) } }
        }
    }

    func showStations(_ list: [StationRow]) {
        stations = list
        window?.show(stations: list)
    }

    private func playOrPause() {
        send([playing.isPlaying ? "pause" : "play"])
    }

    /// app.quit (Ctrl+Q), app.play-pause (Space), app.station(N) (a favourite's row, Ctrl+1–9), app.search (Ctrl+F),
    /// app.search-result(N) and app.search-add(N) (a search result's row).
    private func addActions() {
        let box = Unmanaged.passUnretained(self).toOpaque()
        // The actions without a parameter, one C handler for them all: it finds the Swift one by the action's name.
        let simple: oton_gtk_action_fn = { action, _, data in
            let gAction: OpaquePointer = cast(action)
            let name = String(cString: g_action_get_name(gAction))
            MainActor.assumeIsolated {
                let application = Unmanaged<WindowApplication>.fromOpaque(data!).takeUnretainedValue()
                WindowApplication.simpleActions[name]?(application)
            }
        }
        for name in Self.simpleActions.keys { oton_gtk_add_action(application, name, nil, simple, box) }
        oton_gtk_add_action(
            application, "search-result", oton_gtk_int32_type(),
            { _, parameter, data in
                let number = g_variant_get_int32(parameter)
                MainActor.assumeIsolated { Unmanaged<WindowApplication>.fromOpaque(data!).takeUnretainedValue().playResult(Int(number)) }
            }, box)
        oton_gtk_add_action(
            application, "search-add", oton_gtk_int32_type(),
            { _, parameter, data in
                let number = g_variant_get_int32(parameter)
                MainActor.assumeIsolated { Unmanaged<WindowApplication>.fromOpaque(data!).takeUnretainedValue().addResult(Int(number)) }
            }, box)
        oton_gtk_add_action(
            application, "copy-line", oton_gtk_string_type(),
            { _, parameter, data in
                let line = String(cString: g_variant_get_string(parameter, nil))
                MainActor.assumeIsolated {
                    Unmanaged<WindowApplication>.fromOpaque(data!).takeUnretainedValue().window?.copy(line, saying: tr("copied: {text}", ["text": line]))
                }
            }, box)
        for edit in ["default", "top", "up", "down", "remove"] {
            let handler: oton_gtk_action_fn = { action, parameter, data in
                let name = String(cString: g_variant_get_string(parameter, nil))
                let gAction: OpaquePointer = cast(action)
                let which = String(cString: g_action_get_name(gAction)).replacingOccurrences(of: "favourite-", with: "")
                MainActor.assumeIsolated { Unmanaged<WindowApplication>.fromOpaque(data!).takeUnretainedValue().editFavourite(which, name) }
            }
            oton_gtk_add_action(application, "favourite-" + edit, oton_gtk_string_type(), handler, box)
        }
        oton_gtk_add_action(
            application, "station", oton_gtk_int32_type(),
            { _, parameter, data in
                let number = g_variant_get_int32(parameter)
                MainActor.assumeIsolated { Unmanaged<WindowApplication>.fromOpaque(data!).takeUnretainedValue().send(["station", "\(number)"]) }
            }, box)
        let gtk: UnsafeMutablePointer<GtkApplication> = cast(application)
        oton_gtk_accel(gtk, "app.quit", "<Control>q")
        // Space: a key controller on the window (MainWindow), not an accelerator, so an entry keeps its spaces.
        oton_gtk_accel(gtk, "app.search", "<Control>f")
        oton_gtk_accel(gtk, "app.preferences", "<Control>comma")
        oton_gtk_accel(gtk, "app.close", "<Control>w")
        oton_gtk_accel(gtk, "app.shortcuts", "<Control>question")
        for number in 1...9 { oton_gtk_accel(gtk, "app.station(\(number))", "<Control>\(number)") }
    }

    /// app.quit, app.play-pause, app.share, app.record-track, app.record-station, app.preferences, app.search, app.close,
    /// app.shortcuts (Ctrl+?) and app.about (the main menu's).
    private static let simpleActions: [String: @MainActor (WindowApplication) -> Void] = [
        "quit": { $0.quit() }, "play-pause": { $0.playOrPause() }, "share": { $0.share() },
        "record-track": { $0.sendSaying(["record-current"]) }, "record-station": { $0.toggleStationRecording() },
        "preferences": { $0.openPreferences() }, "search": { $0.window?.openSearch() },
        // Closes the window as its close button does: the player goes on when "keep playing" says so.
        "close": { app in app.window.map { gtk_window_close(cast($0.window)) } },
        "shortcuts": { app in app.window.flatMap { MainMenu.shortcuts(parent: $0.window) }.map { gtk_window_present(cast($0)) } },
        "about": { app in app.window.map { gtk_window_present(cast(MainMenu.about(parent: $0.window))) } },
    ]

    private func quit() {
        quitting = true
        if let window { gtk_window_destroy(cast(window.window)) }
        g_application_quit(cast(application))
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
