import CGio
import Foundation
import OtonGLibThread
import OtonPluginKit
import PluginAPI
import TrayLogic

/// One tray instance: the StatusNotifierItem and its menu on a private session-bus connection,
/// registered with the StatusNotifierWatcher whenever one is there, and the "keeps playing" notice.
/// Served by the plugin's own GLib thread; host events and commands are handed to it.
final class TrayInstance: TrayController, @unchecked Sendable {
    private let host: HostHandle
    private let glib = GLibThread()
    private let cancellable = g_cancellable_new()
    /// Set by `background on|off` for this run; read on the mailbox and the GLib thread.
    private let keepPlaying: AtomicFlag
    private let timeout: Int32
    private let showsTray: Bool
    private(set) var menu = TrayMenu()
    private var station = "", track = ""
    private var connection: OpaquePointer?
    private var objects: TrayObjects?
    private var notice: BackgroundNotice?
    private var itemName: String?
    private var watch: guint = 0
    /// What "Open" starts `oton window` with (from the closing window), GLib thread.
    private var openWith: (instance: String?, config: String?) = (nil, nil)

    init(host: HostHandle, config: TrayConfig) {
        self.host = host
        keepPlaying = AtomicFlag(config.keepPlaying)
        timeout = config.notificationTimeoutMilliseconds
        showsTray = config.tray
        glib.start(name: "org.oton.tray") { [self] in connect() }
    }

    /// On the GLib thread. False leaves the plugin idle (no session bus).
    private func connect() -> Bool {
        do {
            let connection = try SessionBus.connect(cancellable: cancellable)
            self.connection = connection
            notice = BackgroundNotice(connection: connection) { [weak self] in self?.perform($0) }
            if let state = host.current(OTON_EVENT_STATE)?.state { _ = menu.setPlaying(Self.isPlaying(state.state)) }
            if let fields = host.current(OTON_EVENT_TRACK)?.track { noteTrack(fields) }
            if showsTray { try showItem(on: connection) }
            refreshStations()
            return true
        } catch {
            host.log(OTON_LOG_INFO, "no session bus (\(error)): no tray icon, no notification")
            closeConnection()
            return false
        }
    }

    /// Exports the item and its menu, owns the item's name and registers with each watcher that appears.
    private func showItem(on connection: OpaquePointer) throws(BusFailure) {
        let objects = TrayObjects(connection: connection, controller: self)
        try objects.register()
        self.objects = objects
        let name = "org.kde.StatusNotifierItem-\(getpid())-1"
        guard SessionBus.own(name, on: connection) else { throw BusFailure("cannot own \(name)") }
        itemName = name
        let box = Unmanaged.passUnretained(self).toOpaque()
        watch = g_bus_watch_name_on_connection(
            connection, "org.kde.StatusNotifierWatcher", G_BUS_NAME_WATCHER_FLAGS_NONE,
            { _, _, _, user in
                guard let user else { return }
                Unmanaged<TrayInstance>.fromOpaque(user).takeUnretainedValue().registerWithWatcher()
            },
            { _, _, user in
                guard let user else { return }
                Unmanaged<TrayInstance>.fromOpaque(user).takeUnretainedValue().noWatcher()
            }, box, nil)
    }

    private var saidNoWatcher = false

    private func registerWithWatcher() {
        guard let connection, let itemName else { return }
        let call = SessionBus.call(
            connection, "org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher",
            "RegisterStatusNotifierItem", oton_variant_tuple1(g_variant_new_string(itemName)))
        switch call {
        case let .success(reply):
            g_variant_unref(reply)
            host.log(OTON_LOG_INFO, "tray icon registered as \(itemName)")
        case let .failure(failure):
            host.log(OTON_LOG_WARNING, host.tr("the tray refused the icon: {reason}", ["reason": failure.description]))
        }
    }

    private func noWatcher() {
        guard !saidNoWatcher else { return }
        saidNoWatcher = true
        host.log(OTON_LOG_DEBUG, "no StatusNotifierWatcher on the session bus: the tray icon shows when one starts")
    }

    // MARK: events (mailbox → GLib thread)

    func handle(_ event: EventView.Snapshot) {
        glib.invoke { [self] in
            switch event.kind {
            case OTON_EVENT_STATE:
                if let state = event.state, menu.setPlaying(Self.isPlaying(state.state)) { objects?.menuChanged() }
            case OTON_EVENT_TRACK:
                if let fields = event.track { noteTrack(fields) }
                refreshStations()  // a switch moves the current mark; an edit of the favourites shows here too
            default:
                break
            }
        }
    }

    private static func isPlaying(_ state: String) -> Bool { ["playing", "buffering", "connecting"].contains(state) }

    private func noteTrack(_ fields: TrackFields) {
        station = fields.station ?? ""
        track = [fields.artist, fields.title].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " – ")
    }

    private func refreshStations() {
        host.runCommand("stations") { [weak self] ok, reply in
            guard ok, let stations = TrayStation.list(fromReply: reply) else { return }
            self?.glib.invoke { [weak self] in
                guard let self, menu.setStations(stations) else { return }
                objects?.menuChanged()
            }
        }
    }

    // MARK: TrayController (GLib thread)

    var labels: TrayMenu.Labels { TrayMenu.Labels(play: host.tr("Play"), pause: host.tr("Pause"), open: host.tr("Open Oton"), quit: host.tr("Quit")) }

    var toolTip: (title: String, text: String) { (station.isEmpty ? "Oton" : station, track) }

    func perform(_ action: TrayAction) {
        switch action {
        case .playPause: host.request(OTON_REQUEST_PLAY_PAUSE)
        case let .station(number): host.request(OTON_REQUEST_SWITCH_STATION, station: "\(number)")
        case .quit: host.request(OTON_REQUEST_QUIT)
        case .open: openWindow()
        }
    }

    /// `oton window` (the oton running this player), attaching to this player.
    private func openWindow() {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "oton"
        let arguments = [executable] + windowArguments(instance: openWith.instance, config: openWith.config)
        var copies = arguments.map { strdup($0) }
        copies.append(nil)
        defer { copies.forEach { free($0) } }
        var error: UnsafeMutablePointer<GError>?
        // Not reaped by us: GLib's spawn without DO_NOT_REAP_CHILD leaves no zombie behind.
        if g_spawn_async(nil, &copies, nil, G_SPAWN_DEFAULT, nil, nil, nil, &error) == 0 {
            host.log(OTON_LOG_WARNING, host.tr("cannot open the window: {reason}", ["reason": BusFailure(taking: error).description]))
        }
    }

    // MARK: the `background` command (mailbox)

    func command(_ name: String, _ arguments: [String]) -> (Bool, String) {
        switch BackgroundCommand.parse(arguments) {
        case let .failure(error):
            return (false, host.tr("background does not take \"{word}\"; usage: {usage}", ["word": error.word, "usage": BackgroundCommand.usage]))
        case let .success(command):
            switch command.verb {
            case .status: break
            case let .set(on): keepPlaying.set(on)
            case .windowClosed:
                if keepPlaying.value { glib.invoke { [self] in playingOn(instance: command.instance, config: command.config) } }
            }
            let reply = BackgroundCommand.reply(
                keepPlaying: keepPlaying.value, json: command.json, on: host.tr("a closing window leaves the player playing"),
                off: host.tr("a closing window stops the player it started"))
            return (true, reply)
        }
    }

    /// The window closed and this player goes on: the notification, and the background portal asked.
    private func playingOn(instance: String?, config: String?) {
        openWith = (instance, config)
        guard let notice else { return }
        // The favourite's name as the listener gave it; else the name the stream gives itself.
        let station = menu.stations.first(where: \.isCurrent)?.name ?? self.station
        let body =
            station.isEmpty
            ? host.tr("The window is closed; the player goes on.")
            : host.tr("{station} plays on; the window is closed.", ["station": station])
        if let failure = notice.show(
            summary: host.tr("Oton keeps playing"), body: body, labels: (host.tr("Open"), host.tr("Pause"), host.tr("Quit")), timeout: timeout)
        {
            host.log(OTON_LOG_WARNING, host.tr("the \"keeps playing\" notification was not shown: {reason}", ["reason": failure.description]))
        }
        if let failure = notice.requestBackground(reason: host.tr("Oton plays the radio with its window closed")) {
            host.log(OTON_LOG_DEBUG, "no background portal (\(failure.description)): going on without it")
        }
    }

    // MARK: teardown

    func shutdown() {
        g_cancellable_cancel(cancellable)
        glib.stop { [self] in
            if watch != 0 { g_bus_unwatch_name(watch) }
            watch = 0
            objects?.unregister()
            objects = nil
            closeConnection()
        }
        g_object_unref(UnsafeMutableRawPointer(cancellable))
    }

    private func closeConnection() {
        guard let connection else { return }
        notice?.stop()
        notice = nil
        g_dbus_connection_close_sync(connection, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(connection))
        self.connection = nil
    }
}

/// A flag read and written from the host's mailbox and the GLib thread.
final class AtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Bool
    init(_ value: Bool) { stored = value }
    var value: Bool { lock.withLock { stored } }
    func set(_ value: Bool) { lock.withLock { stored = value } }
}
