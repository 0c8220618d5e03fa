import Foundation
import Logging
import OtonControl
import OtonEvents
import OtonJSON
import OtonPlayback
import OtonPlugins
import OtonStations
import OtonSupport
import PluginAPI

/// The built-in control commands, and the plugins' commands after them.
/// A request never touches playback except through the player's requests.
package struct ControlCommands: ControlHandler {
    package let bus: PluginBus
    package let player: Player
    package let plugins: PluginManager
    /// Snooze, and a sleep timer cancelled when an alarm takes over (nil: a player without a session).
    package var alarm: AlarmClock? = nil

    package static let builtIn: [(name: String, usage: String, help: String)] = [
        ("status", "status", N_("what is playing: state, station, track, volume")),
        ("play", "play [STATION]", N_("play (a live stream reconnects); with a station, switch to it first")),
        ("pause", "pause", N_("pause")),
        ("toggle", "toggle", N_("pause or resume")),
        ("stop", "stop", N_("stop playing")),
        ("station", "station NAME|NUMBER|URL", N_("switch to a station of plugins.json (by name or number) or to a stream or playlist URL")),
        ("next", "next", N_("switch to the next station of plugins.json (wraps around)")),
        ("prev", "prev", N_("switch to the previous station (wraps around)")),
        ("stations", "stations", N_("the stations to switch between, the current one marked")),
        ("switch-to-wish", "switch-to-wish", N_("switch to the station where a wish was last heard (\"watch_wishes\": true)")),
        ("snooze", "snooze [DURATION]", N_("stop now and play again after DURATION (default 10m), rising from silence as an alarm does")),
        ("volume", "volume [N|+N|-N]", N_("show or set the volume in percent: 50 or 50%, +5, -5 (0–100, up to 150 amplified)")),
        ("level", "level [on|off]", N_("show loudness levelling (gain, measured loudness) or turn it on or off")),
        ("seek", "seek -30s|+10s|-5m", N_("timeshift: play from earlier (-) or later (+) than what is heard")),
        ("live", "live", N_("timeshift: back to the live edge")),
        (
            "effect", "effect [NAME [bypass on|off | preset PRESET | PARAMETER VALUE]]",
            N_("show the effect chain, or change an effect while playing: its bypass, the equalizer's preset, a parameter (docs/effects.md)")
        ),
        ("plugins", "plugins", N_("the plugins and their state")),
        ("reload-stations", "reload-stations", N_("re-read the stations from plugins.json (oton stations add/remove/move send it)")),
        ("commands", "commands", N_("every command, the plugins' included")),
        ("subscribe", "subscribe", N_("stream every bus event as JSON lines until you disconnect")),
        ("quit", "quit", N_("end oton")),
    ]

    package func run(_ request: ControlRequest) -> ControlReply {
        switch request.name {
        case "status": return status()
        case "play" where !request.arguments.isEmpty: return switchStation(request.arguments.joined(separator: " "))
        case "play": return submit(.play, tr("playing"))
        case "station":
            guard !request.arguments.isEmpty else { return .failure(tr("usage: station NAME|NUMBER|URL (`oton ctl stations` lists them)")) }
            return switchStation(request.arguments.joined(separator: " "))
        case "switch-to-wish": return switchToWish()
        case "next": return step(1)
        case "prev", "previous": return step(-1)
        case "stations":
            let current = player.station
            let list = player.stationList.stations.enumerated().map { entry -> JSONValue in
                [
                    "number": .int(entry.offset + 1), "name": .string(entry.element.name), "url": .string(entry.element.url),
                    "current": .bool(entry.element.url == current.url),
                ]
            }
            return .success(player.stationList.listing(current: current), data: ["stations": .array(list)])
        case "pause": return submit(.pause, tr("paused"))
        case "toggle", "play-pause": return submit(.playPause, tr("toggled"))
        case "stop": return submit(.stop, tr("stopped"))
        case "quit": return .success(tr("quitting"))  // the quit itself follows the reply: see afterReply
        case "volume": return volume(request.arguments)
        case "level": return level(request.arguments)
        case "seek": return seek(request.arguments)
        case "live": return live()
        case "effect", "effects": return effect(request.arguments)
        case "snooze": return snooze(request.arguments)
        case "alarm-takeover":
            // An alarm starts in another process: this player makes way (see AlarmTakeover); the quit follows the reply.
            guard let alarm else { return .failure("only a playing oton makes way for an alarm") }
            alarm.cancelSleepTimer()
            // The listener sees this oton end: say why (a warning, so the status line shows it too).
            Logger(label: "oton.alarm").warning("\(tr("an alarm is starting: this oton makes way for it and quits"))")
            return .success("making way for the alarm")
        case "plugins": return pluginList()
        case "reload-stations": return reloadStations()
        case "commands", "help": return commandList()
        default:
            guard let reply = plugins.run(command: request.name, arguments: request.arguments) else {
                return .failure(tr("unknown command \"{command}\"; `oton ctl commands` lists them", ["command": request.name]))
            }
            return ControlReply(ok: reply.ok, text: reply.text, data: nil)
        }
    }

    /// What a request does once its reply is on its way: quitting before that would close the
    /// socket under the reply, and `oton ctl quit` would fail although oton quits.
    /// These commands as the plugins' gateway runs them (ABI 1.3 run_command): the reply, then the
    /// after-reply step, so `quit` quits.
    package var runner: @Sendable (ControlRequest) -> ControlReply {
        { request in
            let reply = run(request)
            afterReply(request)
            return reply
        }
    }

    package func afterReply(_ request: ControlRequest) {
        if request.name == "quit" || (request.name == "alarm-takeover" && alarm != nil) { player.submit(.quit, from: "control") }
    }

    private func switchStation(_ argument: String) -> ControlReply {
        do {
            return switchTo(try player.stationList.find(argument))
        } catch {
            return .failure(error.description)
        }
    }

    /// The last `org.oton.wish.heard` on this bus: a wish heard on another favourite (`watch_wishes`).
    private func lastWish() -> (fields: [String: String], secondsAgo: Int)? {
        guard let event = bus.registry.kind(for: OTON_EVENT_NAME_WISH_HEARD).flatMap(bus.current)?.event else { return nil }
        let fields = Dictionary(event.fields.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        return (fields, Int(max(0, Clock.monotonicNanoseconds() - event.monotonicNanoseconds) / 1_000_000_000))
    }

    private func switchToWish() -> ControlReply {
        guard let wish = lastWish(), let name = wish.fields[OTON_FIELD_STATION] else {
            return .failure("no wish heard yet; with \"watch_wishes\": true in plugins.json, oton play watches the favourites for the wishlist's tracks")
        }
        guard let station = player.stationList.stations.first(where: { $0.name == name }) else {
            return .failure("the wish was heard on \"\(name)\", which is no longer in plugins.json")
        }
        return switchTo(station)
    }

    private func step(_ step: Int) -> ControlReply {
        guard let next = player.stationList.station(after: player.station, step: step) else {
            return .failure(tr("plugins.json lists no stations to switch between"))
        }
        return switchTo(next)
    }

    private func switchTo(_ station: Station) -> ControlReply {
        player.submit(.switchStation(station), from: "control")
        return .success(tr("switching to {station}", ["station": station.name]), data: ["station": .string(station.name), "url": .string(station.url)])
    }

    func submit(_ request: PlayerRequest, _ text: String) -> ControlReply {
        player.submit(request, from: "control")
        return .success(text)
    }

    private func fields(_ kind: UInt32) -> [String: String] {
        guard let event = bus.current(kind)?.event else { return [:] }
        return Dictionary(event.fields.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// The player's own volume, 0–150 %.
    private var volumePercent: Int { player.snapshot.volumePercent }

    private func status() -> ControlReply {
        let state = fields(OTON_EVENT_STATE)
        let track = fields(OTON_EVENT_TRACK)
        var data: [String: JSONValue] = [
            OTON_FIELD_STATE: .string(state[OTON_FIELD_STATE] ?? "idle"),
            "station": .string(player.station.name),
            "url": .string(player.station.url),
            "volume": .int(volumePercent),
        ]
        if let engine = player.snapshot.engine { data["engine"] = .string(engine.rawValue) }
        for key in [
            OTON_FIELD_TITLE, OTON_FIELD_ARTIST, OTON_FIELD_RAW_TITLE, OTON_FIELD_GENRE, OTON_FIELD_CODEC, OTON_FIELD_BITRATE,
            OTON_FIELD_ARTWORK_URL, OTON_FIELD_TITLE_SOURCE,
        ] { data[key] = track[key].map(JSONValue.string) }
        // The artwork plugin's last picture, so a client that attaches mid-track (the window) shows it at once.
        if let kind = bus.registry.kind(for: OTON_EVENT_NAME_ARTWORK_READY), let artwork = bus.current(kind)?.event {
            data["artwork"] = .object(Dictionary(artwork.fields.map { ($0.key, JSONValue.string($0.value)) }, uniquingKeysWith: { _, last in last }))
        }
        if let kind = state[OTON_FIELD_ERROR_KIND] {
            data["error"] = [
                "kind": .string(kind), "message": .string(state[OTON_FIELD_ERROR_MESSAGE] ?? ""),
                "suggestion": .string(state[OTON_FIELD_ERROR_SUGGESTION] ?? ""),
            ]
        }
        // A title the stream did not send says where it came from (SongText).
        let song = SongText.line(artist: track[OTON_FIELD_ARTIST], title: track[OTON_FIELD_TITLE], source: track[OTON_FIELD_TITLE_SOURCE])
        // The text is for a person, in their language (the data above is the API, in English).
        var text = "\(tr(state[OTON_FIELD_STATE] ?? "idle")) · \(player.station.name)"
        if !song.isEmpty { text += " · " + song }
        text += " · " + tr("volume {volume}", ["volume": VolumeArgument.text(percent: volumePercent, in: .current)])
        let shift = Self.behindLive(player.snapshot.timeshift)
        if !shift.text.isEmpty {
            data.merge(shift.data) { _, new in new }
            text += " · " + shift.text
        }
        if let level = levelStatus() {
            data["level"] = .object(level.data)
            text += " · " + level.text
        }
        if let guarded = guardStatus() {
            data["guarded"] = .object(guarded.data)
            text += " · " + guarded.text
        }
        if let sleep = sleepTimer() {
            data["sleep"] = .object(sleep.data)
            text += " · " + sleep.text
        }
        if let until = alarm?.snoozedUntil {
            let left = max(0, Int(until.timeIntervalSinceNow.rounded(.up)))
            data["snooze_seconds_left"] = .int(left)
            text += " · snoozing " + TimeText.minutesSeconds(left)
        }
        if let wish = lastWish(), let station = wish.fields[OTON_FIELD_STATION] {
            let song = [wish.fields[OTON_FIELD_ARTIST], wish.fields[OTON_FIELD_TITLE]].compactMap { $0 }.joined(separator: " – ")
            data["wish"] = .object([
                "station": .string(station), "artist": wish.fields[OTON_FIELD_ARTIST].map(JSONValue.string) ?? .null,
                "title": .string(wish.fields[OTON_FIELD_TITLE] ?? ""), "seconds_ago": .int(wish.secondsAgo),
            ])
            text +=
                "\n"
                + tr(
                    "wish: {song} on {station}, {seconds} s ago (oton ctl switch-to-wish)", ["song": song, "station": station, "seconds": "\(wish.secondsAgo)"])
        }
        if let message = state[OTON_FIELD_ERROR_MESSAGE] { text += "\n\(message)\n\(state[OTON_FIELD_ERROR_SUGGESTION] ?? "")" }
        return .success(text, data: data)
    }

    /// The sleep timer as its plugin last announced it: "sleep 4:52" (counting down from the set
    /// event's time) or "sleep after track"; nil when none is set.
    private func sleepTimer() -> (text: String, data: [String: JSONValue])? {
        let latest = [OTON_EVENT_NAME_SLEEP_SET, OTON_EVENT_NAME_SLEEP_CANCELLED, OTON_EVENT_NAME_SLEEP_FIRED]
            .compactMap { bus.registry.kind(for: $0).flatMap(bus.current) }
            .max { $0.event.monotonicNanoseconds < $1.event.monotonicNanoseconds }
        guard let event = latest?.event, event.name == OTON_EVENT_NAME_SLEEP_SET else { return nil }
        let field = { (key: String) in event.fields.last { $0.key == key }?.value }
        if field(OTON_FIELD_MODE) == "after-track" { return (tr("sleep after track"), ["mode": "after-track"]) }
        guard let seconds = field(OTON_FIELD_SECONDS).flatMap(Double.init), seconds.isFinite else { return nil }
        let elapsed = Double(Clock.monotonicNanoseconds() - event.monotonicNanoseconds) / 1e9
        let left = Int(max(0, min(seconds - elapsed, 86_400 * 7)).rounded(.up))
        return (tr("sleep {time}", ["time": TimeText.minutesSeconds(left)]), ["mode": "duration", "seconds_left": .int(left)])
    }

    /// `snooze [10m]`: stop now, ring again later (see ``AlarmClock/snooze(seconds:)``).
    private func snooze(_ arguments: [String]) -> ControlReply {
        guard let alarm else { return .failure("snooze needs a playing oton") }
        let text = arguments.first ?? "10m"
        guard let typed = try? DurationText.seconds(text), typed > 0, typed <= 86_400 else {
            return .failure(tr("snooze {value}: use 90s, 10m, 1h or 4:30 (more than 0, at most 24 hours)", ["value": text]))
        }
        let seconds = Int(typed.rounded(.up))
        let at = alarm.snooze(seconds: seconds)
        return .success(
            "snoozing: playing again at \(TimeText.local(at, "HH:mm:ss")) (in \(seconds) s)",
            data: ["seconds": .int(seconds), "until": .string(TimeText.iso8601(at))])
    }

    private func volume(_ arguments: [String]) -> ControlReply {
        guard let argument = arguments.first else {
            return .success(tr("volume {volume}", ["volume": VolumeArgument.text(percent: volumePercent, in: .current)]), data: ["volume": .int(volumePercent)])
        }
        let target: Int
        switch Self.volumeArgument(argument) {
        case let .success(.absolute(percent)):
            target = percent
            player.submit(.setVolume(Double(percent) / 100), from: "control")
        case let .success(.relative(change)):
            target = VolumeArgument.relative(change).applied(to: volumePercent)  // what the player will make of it, for the reply
            player.submit(.changeVolume(byPercent: change), from: "control")
        case let .failure(error): return .failure(error.description)
        }
        return .success(tr("volume {volume}", ["volume": VolumeArgument.text(percent: target, in: .current)]), data: ["volume": .int(target)])
    }

    /// `level [on|off]`: loudness levelling shown, or turned on or off (docs/levelling.md).
    private func level(_ arguments: [String]) -> ControlReply {
        guard player.snapshot.levellingEnabled != nil else { return .failure(tr("loudness levelling is not available here (oton play levels)")) }
        if let argument = arguments.first {
            guard arguments.count == 1, let on = ["on": true, "off": false][argument.lowercased()] else {
                return .failure(tr("usage: level [on|off]"))
            }
            player.submit(.setLevelling(on), from: "control")
            player.settle()
        }
        guard let level = levelStatus() else { return .failure(tr("loudness levelling is not available here (oton play levels)")) }
        return .success(level.text, data: level.data)
    }

    /// Levelling as the status says it: "level +3.5 dB (−21.5 LUFS)", "level off"; nil when not configured.
    private func levelStatus() -> (text: String, data: [String: JSONValue])? {
        let snapshot = player.snapshot
        guard let enabled = snapshot.levellingEnabled else { return nil }
        var data: [String: JSONValue] = ["enabled": .bool(enabled)]
        guard enabled else { return (tr("level off"), data) }
        guard let reading = snapshot.levelling else { return (tr("level on"), data) }
        let gain = (reading.gainDB * 10).rounded() / 10
        data["gain_db"] = .number(gain)
        data["target_lufs"] = .number(reading.targetLUFS)
        data["limiter_db"] = .number((reading.limiterDB * 10).rounded() / 10)
        guard let loudness = reading.loudnessLUFS else { return (tr("level {gain} dB", ["gain": Self.signed(gain)]), data) }
        data["loudness_lufs"] = .number((loudness * 10).rounded() / 10)
        return (tr("level {gain} dB ({loudness} LUFS)", ["gain": Self.signed(gain), "loudness": String(format: "%.1f", loudness)]), data)
    }

    /// "+3.5", "-2.0", "0.0".
    static func signed(_ value: Double) -> String {
        (value > 0 ? "+" : "") + String(format: "%.1f", value == 0 ? 0 : value)
    }

    package typealias VolumeArgument = OtonHost.VolumeArgument

    /// The volume grammar (``VolumeArgument``), as the control socket reads it.
    package static func volumeArgument(_ text: String) -> Result<VolumeArgument, VolumeArgument.Invalid> {
        VolumeArgument.parse(text)
    }

    /// Re-reads plugins.json's stations into the player's ``StationCatalogue``; playback goes on untouched.
    private func reloadStations() -> ControlReply {
        do {
            let stations = try player.stations.reload()
            let values = ["count": String(stations.count), "file": player.stations.file ?? "?"]
            return .success(
                stations.count == 1 ? tr("1 station reloaded from {file}", values) : tr("{count} stations reloaded from {file}", values),
                data: ["stations": .strings(stations.map(\.name))])
        } catch {
            return .failure(tr("stations not reloaded: {reason}; the old list stays. Hint: {hint}", ["reason": error.message, "hint": error.hint]))
        }
    }

    private func pluginList() -> ControlReply {
        var lines: [String] = []
        var list: [JSONValue] = []
        for report in plugins.reports {
            let status: String
            switch report.status {
            case let .running(manifest): status = "running \(manifest.version)"
            case .disabled: status = "disabled"
            case let .failed(error): status = "failed: \(error.reason)"
            }
            // The line in the person's language; the JSON status stays English.
            let shown =
                switch report.status {
                case let .running(manifest): tr("running {version}", ["version": manifest.version])
                case .disabled: tr("disabled")
                case let .failed(error): tr("failed: {reason}", ["reason": error.reason(in: .current)])
                }
            lines.append("\(report.id)  \(shown)")
            var entry: [String: JSONValue] = ["id": .string(report.id), "status": .string(status), "path": .string(report.path)]
            if case let .running(manifest) = report.status {
                entry["name"] = .string(manifest.name)
                entry["description"] = .string(manifest.description)
            }
            list.append(.object(entry))
        }
        return .success(lines.isEmpty ? tr("no plugins configured") : lines.joined(separator: "\n"), data: ["plugins": .array(list)])
    }

    private func commandList() -> ControlReply {
        // The lines are for a person (help in their language); the JSON keeps the English help.
        var lines = Self.builtIn.map { "\($0.usage)\n    \(tr($0.help))" }
        var list: [JSONValue] = Self.builtIn.map { ["name": .string($0.name), "usage": .string($0.usage), "help": .string($0.help), "plugin": "host"] }
        for entry in plugins.commands.all {
            lines.append("\(entry.command.usage)\n    \(tr(entry.command.help)) [\(entry.pluginID)]")
            list.append([
                "name": .string(entry.command.name), "usage": .string(entry.command.usage), "help": .string(entry.command.help),
                "plugin": .string(entry.pluginID),
            ])
        }
        return .success(lines.joined(separator: "\n"), data: ["commands": .array(list)])
    }
}

extension ControlServer {
    /// Listens at the instance's socket with one player's commands. A live socket of the same name
    /// means another oton runs as that instance; a stale one (nobody listening) is replaced.
    public convenience init(
        instance: String, bus: PluginBus, player: Player, plugins: PluginManager,
        logger: Logger = Logger(label: "oton.control"), alarm: AlarmClock? = nil
    ) throws {
        try self.init(
            instance: instance, bus: bus, handler: ControlCommands(bus: bus, player: player, plugins: plugins, alarm: alarm),
            logger: logger)
    }
}
