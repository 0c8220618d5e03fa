import CGtk
import Foundation
import OtonJSON
import OtonSupport

/// `oton window`: an AdwApplication (one per session: a second start raises the first), a client
/// of the player's bus through the control socket. GTK and every widget live on the main thread;
/// the socket's reader hands its updates over through the default main context.
@MainActor
public final class WindowApplication {
    public static let identifier = "org.oton.Oton"
    private let arguments: WindowArguments
    private let application: UnsafeMutablePointer<AdwApplication>
    private var window: MainWindow?
    private var link: PlayerLink?
    private var playing = NowPlaying()
    private var stations: [StationRow] = []
    private lazy var directory = DirectorySearch(config: arguments.config)
    private lazy var favourites = FavouritesEditor(config: arguments.config)
    private var results: [DirectorySearch.Result] = []
    private var searchGeneration = 0
    /// The search result played last (`oton stations add --from-search N` adds it).
    private var playedResult: Int?

    public init(arguments: WindowArguments) {
        self.arguments = arguments
        application = adw_application_new(Self.identifier, GApplicationFlags(0))!
    }

    /// Runs until the last window closes; returns the exit status.
    public func run() -> Int32 {
        let app = UnsafeMutableRawPointer(application)
        Signal.connect(app, "startup") { [unowned self] in startup() }
        Signal.connect(app, "activate") { [unowned self] in activate() }
        Signal.connect(app, "shutdown") { [unowned self] in link?.stopOwnPlayer() }
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
            return true
        }
    }

    private func activate() {
        if window == nil {
            window = MainWindow(application: cast(application), size: arguments.size, act: { [unowned self] in send($0) },
                                playOrPause: { [unowned self] in playOrPause() }, search: { [unowned self] in search($0) },
                                addToFavourites: { [unowned self] in addPlayedResult() })
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
            playing.apply(status: status)
            playing.playerGone = false
            stations = list
            window?.show(stations: list)
        case let .event(event):
            guard playing.apply(event: event, now: Self.now()) else { return }
        case let .gone(reason):
            playing.playerGone = true
            if playing.lastProblem == nil, reason != tr("the player stopped") { playing.lastProblem = .init(message: reason, suggestion: nil) }
        }
        window?.show(playing, now: Self.now())
    }

    private func send(_ words: [String]) {
        guard let link else { return }
        if playing.playerGone, link.ownsPlayer, words != ["stop"] {
            // The window's own player quit (it gave up on its station): a new one, then the command.
            restartPlayer(then: words)
            return
        }
        link.send(words) { problem in
            guard let problem else { return }
            MainThread.run { [weak self] in self?.window?.say(problem) }
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

    /// Searches the directory; an older search's late answer is dropped.
    private func search(_ query: String) {
        searchGeneration += 1
        let generation = searchGeneration
        window?.search.say(tr("searching for \"{query}\"…", ["query": query]))
        directory.search(query) { outcome in
            MainThread.run { [weak self] in
                guard let self, generation == searchGeneration else { return }
                switch outcome {
                case let .success(found):
                    results = found
                    playedResult = nil
                    window?.search.allowAdding(false)
                    window?.search.show(found)
                    window?.search.say(found.isEmpty ? tr("the directory has nothing for \"{query}\"", ["query": query])
                        : found.count == 1 ? tr("1 station found") : tr("{count} stations found", ["count": "\(found.count)"]))
                case let .failure(problem):
                    window?.search.say(problem.message)
                }
            }
        }
    }

    /// Plays search result `position` (from 1): a switch to its URL, as `oton ctl station URL`.
    private func playResult(_ position: Int) {
        guard let result = results.first(where: { $0.position == position }) else { return }
        playedResult = position
        window?.search.allowAdding(true)
        send(["station", result.playURL])
    }

    /// Adds the result played last to plugins.json, then shows the player's new list.
    private func addPlayedResult() {
        guard let position = playedResult, let result = results.first(where: { $0.position == position }) else { return }
        directory.addToFavourites(position: position) { problem in
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

    /// A favourite made the default, moved up or removed (`oton stations default|move|remove`), then the new list.
    private func editFavourite(_ action: String, _ name: String) {
        let words: [String]
        switch action {
        case "default": words = ["default", name]
        case "up":
            guard let index = stations.firstIndex(where: { $0.name == name }), index > 0 else { return }
            words = ["move", name, "\(index)"] // positions count from 1: index is the one above
        default: words = ["remove", name]
        }
        favourites.edit(words) { problem in
            MainThread.run { [weak self] in
                guard let self else { return }
                if let problem { window?.say(problem) }
                link?.stations { [weak self] list in MainThread.run { self?.showStations(list) } }
            }
        }
    }

    private func showStations(_ list: [StationRow]) {
        stations = list
        window?.show(stations: list)
    }

    private func playOrPause() {
        send([playing.isPlaying ? "pause" : "play"])
    }

    /// app.quit (Ctrl+Q), app.play-pause (Space), app.station(N) (a favourite's row, Ctrl+1–9), app.search (Ctrl+F),
    /// app.search-result(N) (a search result's row).
    private func addActions() {
        let box = Unmanaged.passUnretained(self).toOpaque()
        oton_gtk_add_action(application, "quit", nil, { _, _, data in
            MainActor.assumeIsolated { Unmanaged<WindowApplication>.fromOpaque(data!).takeUnretainedValue().quit() }
        }, box)
        oton_gtk_add_action(application, "play-pause", nil, { _, _, data in
            MainActor.assumeIsolated { Unmanaged<WindowApplication>.fromOpaque(data!).takeUnretainedValue().playOrPause() }
        }, box)
        oton_gtk_add_action(application, "search-result", oton_gtk_int32_type(), { _, parameter, data in
            let number = g_variant_get_int32(parameter)
            MainActor.assumeIsolated { Unmanaged<WindowApplication>.fromOpaque(data!).takeUnretainedValue().playResult(Int(number)) }
        }, box)
        for edit in ["default", "up", "remove"] {
            let handler: oton_gtk_action_fn = { action, parameter, data in
                let name = String(cString: g_variant_get_string(parameter, nil))
                let gAction: OpaquePointer = cast(action)
                let which = String(cString: g_action_get_name(gAction)).replacingOccurrences(of: "favourite-", with: "")
                MainActor.assumeIsolated { Unmanaged<WindowApplication>.fromOpaque(data!).takeUnretainedValue().editFavourite(which, name) }
            }
            oton_gtk_add_action(application, "favourite-" + edit, oton_gtk_string_type(), handler, box)
        }
        oton_gtk_add_action(application, "search", nil, { _, _, data in
            MainActor.assumeIsolated { Unmanaged<WindowApplication>.fromOpaque(data!).takeUnretainedValue().window?.openSearch() }
        }, box)
        oton_gtk_add_action(application, "station", oton_gtk_int32_type(), { _, parameter, data in
            let number = g_variant_get_int32(parameter)
            MainActor.assumeIsolated { Unmanaged<WindowApplication>.fromOpaque(data!).takeUnretainedValue().send(["station", "\(number)"]) }
        }, box)
        let gtk: UnsafeMutablePointer<GtkApplication> = cast(application)
        oton_gtk_accel(gtk, "app.quit", "<Control>q")
        oton_gtk_accel(gtk, "app.play-pause", "space")
        oton_gtk_accel(gtk, "app.search", "<Control>f")
        for number in 1...9 { oton_gtk_accel(gtk, "app.station(\(number))", "<Control>\(number)") }
    }

    private func quit() {
        if let window { gtk_window_destroy(cast(window.window)) }
        g_application_quit(cast(application))
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
