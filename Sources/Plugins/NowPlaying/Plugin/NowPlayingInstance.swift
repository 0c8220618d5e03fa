import CGio
import FoundationEssentials
import NowPlayingLogic
import OtonGLibThread
import OtonPluginKit
import PluginAPI

/// One now-playing instance: the MPRIS object and the notifier on a private
/// session-bus connection, served by the plugin's own GLib thread. Host
/// events are handed to that thread; the model is touched only there.
final class NowPlayingInstance: MprisController, @unchecked Sendable {
    static let busName = "org.mpris.MediaPlayer2.oton"

    private let host: HostHandle
    private let config: NowPlayingConfig
    private let glib = GLibThread()
    private let cancellable = g_cancellable_new()
    private(set) var model: NowPlayingModel
    private var connection: OpaquePointer?
    private var mpris: MprisObject?
    private var notifier: DesktopNotifier?
    /// The window Raise shows (watched on the bus), and what keeps the computer awake while playing.
    private var window: DesktopWindow?
    private var inhibitor: SleepInhibitor?
    private var toldNoInhibitor = false
    private var ownedName: String?
    /// Timeshift as the last `status` said it (GLib thread); nil: none.
    private var timeline: TimeshiftTimeline?
    private var notifyFailing = false
    private var toldNoServer = false

    init(host: HostHandle, config: NowPlayingConfig) {
        self.host = host
        self.config = config
        model = NowPlayingModel(announcer: TrackAnnouncer(skipPatterns: config.skipPatterns), notifications: config.notifications)
        guard config.mpris || config.notifications || config.inhibitSleep else {
            host.log(OTON_LOG_INFO, "MPRIS, notifications and inhibit_sleep are all off in the config: nothing to do")
            return
        }
        glib.start(name: "org.oton.now-playing") { [self] in connect() }
    }

    /// On the GLib thread. False leaves the plugin idle (no session bus).
    private func connect() -> Bool {
        do {
            let connection = try SessionBus.connect(cancellable: cancellable)
            self.connection = connection
            if let volume = host.current(OTON_EVENT_VOLUME)?.volume { _ = model.applyVolume(volume.volume) }
            if config.notifications {
                let notifier = DesktopNotifier(connection: connection, timeoutMilliseconds: config.notificationTimeoutMilliseconds)
                // The wish notification's action: the same command as `oton ctl switch-to-wish`.
                notifier.listenForActions { [host] in host.runCommand("switch-to-wish") }
                self.notifier = notifier
            }
            var announced: [(String, String)] = []
            if config.mpris {
                let object = MprisObject(connection: connection, controller: self)
                try object.register()
                mpris = object
                let window = DesktopWindow(connection: connection) { [weak self] in
                    self?.mpris?.propertiesChanged(["CanRaise"], of: MprisIntrospection.rootInterface)
                }
                window.start()
                self.window = window
                let name = try Self.ownBusName(on: connection)
                ownedName = name
                announced.append((OTON_FIELD_BUS_NAME, name))
                host.log(OTON_LOG_INFO, "MPRIS on the session bus as \(name)")
            }
            if config.inhibitSleep {
                inhibitor = SleepInhibitor(connection: connection, reason: host.tr("Playing internet radio"))
                keepAwakeWhilePlaying()
            }
            host.publish(OTON_EVENT_NAME_NOW_PLAYING_READY, announced)
            return true
        } catch {
            host.log(OTON_LOG_INFO, "no session bus (\(error)): MPRIS and notifications stay idle")
            closeConnection()
            return false
        }
    }

    func handle(_ event: EventView.Snapshot) {
        glib.invoke { [self] in apply(event) }
    }

    private func apply(_ event: EventView.Snapshot) {
        let changes: NowPlayingModel.Changes
        switch event.kind {
        case OTON_EVENT_TRACK:
            guard let track = event.track else { return }
            changes = model.applyTrack(track)
        case OTON_EVENT_STATE:
            guard let state = event.state else { return }
            changes = model.applyState(PlaybackStatus(state: state.state, retryAttempt: state.retryAttempt))
        case OTON_EVENT_VOLUME:
            guard let volume = event.volume else { return }
            changes = model.applyVolume(volume.volume)
        default:
            if event.name == OTON_EVENT_NAME_WISH_HEARD {
                showWish(event)
                return
            }
            if event.name == OTON_EVENT_NAME_TIMESHIFT_MOVED {
                moved(held: event[OTON_FIELD_TIMESHIFT_HELD_MS], behind: event[OTON_FIELD_BEHIND_LIVE_MS], limit: event[OTON_FIELD_TIMESHIFT_LIMIT_MS])
                return
            }
            if event.name == OTON_EVENT_NAME_CAST {
                let renderer = event[OTON_FIELD_STATE] == "casting" ? event[OTON_FIELD_RENDERER] : nil
                changes = model.applyCast(renderer: renderer, comment: renderer.map { host.tr("Casting to {renderer}", ["renderer": $0]) })
                break
            }
            guard event.name == OTON_EVENT_NAME_ARTWORK_READY else { return }
            changes = model.applyArtwork(fields: event.fields)
        }
        mpris?.propertiesChanged(changes.properties)
        if event.kind == OTON_EVENT_STATE { keepAwakeWhilePlaying() }
        if mpris != nil, event.kind == OTON_EVENT_STATE || event.kind == OTON_EVENT_TRACK { refreshTimeline() }
        if let notification = changes.notification, let notifier { show(notification, with: notifier) }
    }

    /// "watch_wishes": a wish plays on another favourite; the notification's action switches there.
    private func showWish(_ event: EventView.Snapshot) {
        guard let notifier, let station = event[OTON_FIELD_STATION] else { return }
        let song = [event[OTON_FIELD_ARTIST], event[OTON_FIELD_TITLE]].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " – ")
        switch notifier.showWish(summary: host.tr("Wish on {station}", ["station": station]), body: song, actionLabel: host.tr("Switch")) {
        case nil, .noServer?: break  // no server: said once with the track notifications
        case let .failed(reason)?: host.log(OTON_LOG_WARNING, host.tr("wish notification not shown: {reason}", ["reason": reason]))
        }
    }

    private func show(_ notification: NowPlayingModel.Notification, with notifier: DesktopNotifier) {
        switch notifier.show(notification) {
        case nil:
            notifyFailing = false
        case .noServer:
            // Said in words, once for the session: a desktop without a notification daemon is a
            // fact of that desktop, not an error worth a line per track.
            if !toldNoServer {
                host.log(
                    OTON_LOG_WARNING,
                    host.tr(
                        "no notification server is running, so track changes are not shown as notifications (media controls still work); set \"notifications\": false in the now-playing plugin's config to stop trying"
                    ))
            }
            toldNoServer = true
        case let .failed(reason):
            // Once per failing streak.
            if !notifyFailing { host.log(OTON_LOG_WARNING, host.tr("notification not shown: {reason}", ["reason": reason])) }
            notifyFailing = true
        }
    }

    /// Holds the inhibitor while playing, releases it on pause and stop (GLib thread).
    private func keepAwakeWhilePlaying() {
        guard let inhibitor else { return }
        guard model.status.keepsComputerAwake else { return inhibitor.release() }
        switch inhibitor.hold() {
        case nil:
            break
        case .noService?:
            // Said once for the session, in words: a desktop with neither service is a fact of that desktop.
            if !toldNoInhibitor {
                host.log(
                    OTON_LOG_INFO,
                    host.tr(
                        "neither the Inhibit portal nor a screensaver service runs on this desktop, so nothing keeps the computer from sleeping while oton plays; set \"inhibit_sleep\": false in the now-playing plugin's config to stop trying"
                    ))
            }
            toldNoInhibitor = true
        case let .failed(reason)?:
            host.log(OTON_LOG_WARNING, host.tr("the computer may sleep while oton plays: keeping it awake failed ({reason})", ["reason": reason]))
        }
    }

    // MARK: MprisController (GLib thread)

    var canRaise: Bool { window?.isRunning ?? false }

    func raise() {
        window?.raise()
    }

    func request(_ kind: oton_request_kind) {
        host.request(kind)
    }

    func switchStation(to url: String) {
        host.request(OTON_REQUEST_SWITCH_STATION, station: url)
    }

    func requestVolume(_ volume: Double) {
        host.request(OTON_REQUEST_SET_VOLUME, volume: volume)
    }

    // MARK: timeshift (docs/timeshift.md), GLib thread

    var position: Int64? { timeline?.position(at: Self.monotonicNow()) }

    func seek(byMicroseconds offset: Int64) {
        guard timeline != nil else { return }
        runSeek(TimeshiftTimeline.seekArgument(byMicroseconds: offset))
    }

    func setPosition(_ position: Int64) {
        guard let timeline else { return }
        runSeek(timeline.seekArgument(toPosition: position, at: Self.monotonicNow()))
    }

    /// `oton ctl seek ARG`; the host's org.oton.timeshift.moved that follows says where (Seeked).
    private func runSeek(_ argument: String) {
        host.runCommand("seek", [argument])
    }

    /// Asks `status` where timeshift playback is (on each state and track event).
    private func refreshTimeline() {
        host.runCommand("status") { [weak self] _, reply in
            self?.glib.invoke { [weak self] in self?.readTimeline(reply) }
        }
    }

    private func readTimeline(_ replyJSON: String) {
        let data = (try? JSONValue.parse(Data(replyJSON.utf8), maxBytes: 1 << 20))?["data"]
        let had = timeline != nil
        if let held = data?[OTON_FIELD_TIMESHIFT_HELD_MS]?.numberValue, let behind = data?[OTON_FIELD_BEHIND_LIVE_MS]?.numberValue {
            timeline = TimeshiftTimeline(
                heldMilliseconds: Int64(held), behindMilliseconds: Int64(behind),
                limitMilliseconds: Int64(data?[OTON_FIELD_TIMESHIFT_LIMIT_MS]?.numberValue ?? held), readAt: Self.monotonicNow(),
                playing: model.status == .playing)
        } else {
            timeline = nil
        }
        if had != (timeline != nil) { mpris?.propertiesChanged(["CanSeek"]) }
    }

    /// org.oton.timeshift.moved: playback moved in the ring (a seek from MPRIS, the terminal, the
    /// window, `oton ctl`): the new position, and Seeked with it.
    private func moved(held: String?, behind: String?, limit: String?) {
        guard let held = held.flatMap({ Int64($0) }), let behind = behind.flatMap({ Int64($0) }) else { return }
        let had = timeline != nil
        timeline = TimeshiftTimeline(
            heldMilliseconds: held, behindMilliseconds: behind, limitMilliseconds: limit.flatMap { Int64($0) } ?? held,
            readAt: Self.monotonicNow(), playing: model.status == .playing)
        if !had { mpris?.propertiesChanged(["CanSeek"]) }
        if let position { mpris?.seeked(to: position) }
    }

    private static func monotonicNow() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    // MARK: teardown

    /// Unregisters, releases the name and closes the connection on the GLib thread, then joins it.
    func shutdown() {
        g_cancellable_cancel(cancellable)
        glib.stop { [self] in
            inhibitor?.release()
            inhibitor = nil
            window?.stop()
            window = nil
            mpris?.unregister()
            mpris = nil
            if let connection, let ownedName { SessionBus.release(ownedName, on: connection) }
            closeConnection()
        }
        g_object_unref(UnsafeMutableRawPointer(cancellable))
    }

    private func closeConnection() {
        guard let connection else { return }
        notifier?.stopListening()
        window?.stop()
        window = nil
        inhibitor = nil
        g_dbus_connection_close_sync(connection, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(connection))
        self.connection = nil
        notifier = nil
    }
}
