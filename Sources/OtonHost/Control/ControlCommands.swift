import Foundation
import PluginAPI

/// What answers the control socket's requests: one player's commands (``ControlCommands``), or a
/// recorder of many stations (``RecorderCommands``).
protocol ControlHandler: Sendable {
    func run(_ request: ControlRequest) -> ControlReply
    /// What a request does once its reply is on its way (quit).
    func afterReply(_ request: ControlRequest)
}

/// The built-in control commands, and the plugins' commands after them.
/// A request never touches playback except through the player's requests.
struct ControlCommands: ControlHandler {
    let bus: PluginBus
    let player: Player
    let plugins: PluginManager
    /// The list as it is now (`reload-stations` may have changed it).
    let stations: @Sendable () -> StationList

    static let builtIn: [(name: String, usage: String, help: String)] = [
        ("status", "status", "what is playing: state, station, track, volume"),
        ("play", "play [STATION]", "play (a live stream reconnects); with a station, switch to it first"),
        ("pause", "pause", "pause"),
        ("toggle", "toggle", "pause or resume"),
        ("stop", "stop", "stop playing"),
        ("station", "station NAME|NUMBER|URL", "switch to a station of plugins.json (by name or number) or to a stream or playlist URL"),
        ("next", "next", "switch to the next station of plugins.json (wraps around)"),
        ("prev", "prev", "switch to the previous station (wraps around)"),
        ("stations", "stations", "the stations to switch between, the current one marked"),
        ("switch-to-wish", "switch-to-wish", "switch to the station where a wish was last heard (\"watch_wishes\": true)"),
        ("volume", "volume [N|+N|-N]", "show or set the volume in percent: 50 or 50%, +5, -5 (0–100, up to 150 amplified)"),
        ("plugins", "plugins", "the plugins and their state"),
        ("reload-stations", "reload-stations", "re-read the stations from plugins.json (oton stations add/remove/move send it)"),
        ("commands", "commands", "every command, the plugins' included"),
        ("subscribe", "subscribe", "stream every bus event as JSON lines until you disconnect"),
        ("quit", "quit", "end oton"),
    ]

    func run(_ request: ControlRequest) -> ControlReply {
        switch request.name {
        case "status": return status()
        case "play" where !request.arguments.isEmpty: return switchStation(request.arguments.joined(separator: " "))
        case "play": return submit(.play, "playing")
        case "station":
            guard !request.arguments.isEmpty else { return .failure("usage: station NAME|NUMBER|URL (`oton ctl stations` lists them)") }
            return switchStation(request.arguments.joined(separator: " "))
        case "switch-to-wish": return switchToWish()
        case "next": return step(1)
        case "prev", "previous": return step(-1)
        case "stations":
            let current = player.station
            let list = stations().stations.enumerated().map { entry -> JSONValue in
                ["number": .int(entry.offset + 1), "name": .string(entry.element.name), "url": .string(entry.element.url),
                 "current": .bool(entry.element.url == current.url)]
            }
            return .success(stations().listing(current: current), data: ["stations": .array(list)])
        case "pause": return submit(.pause, "paused")
        case "toggle", "play-pause": return submit(.playPause, "toggled")
        case "stop": return submit(.stop, "stopped")
        case "quit": return .success("quitting") // the quit itself follows the reply: see afterReply
        case "volume": return volume(request.arguments)
        case "plugins": return pluginList()
        case "reload-stations": return reloadStations()
        case "commands", "help": return commandList()
        default:
            guard let reply = plugins.run(command: request.name, arguments: request.arguments) else {
                return .failure("unknown command \"\(request.name)\"; `oton ctl commands` lists them")
            }
            return ControlReply(ok: reply.ok, text: reply.text, data: nil)
        }
    }

    /// What a request does once its reply is on its way: quitting before that would close the
    /// socket under the reply, and `oton ctl quit` would fail although oton quits.
    func afterReply(_ request: ControlRequest) {
        if request.name == "quit" { player.submit(.quit, from: "control") }
    }

    private func switchStation(_ argument: String) -> ControlReply {
        do {
            return switchTo(try stations().find(argument))
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
        guard let wish = lastWish(), let name = wish.fields["station"] else {
            return .failure("no wish heard yet; with \"watch_wishes\": true in plugins.json, oton play watches the favourites for the wishlist's tracks")
        }
        guard let station = stations().stations.first(where: { $0.name == name }) else {
            return .failure("the wish was heard on \"\(name)\", which is no longer in plugins.json")
        }
        return switchTo(station)
    }

    private func step(_ step: Int) -> ControlReply {
        guard let next = stations().station(after: player.station, step: step) else {
            return .failure("plugins.json lists no stations to switch between")
        }
        return switchTo(next)
    }

    private func switchTo(_ station: Station) -> ControlReply {
        player.submit(.switchStation(station), from: "control")
        return .success("switching to \(station.name)", data: ["station": .string(station.name), "url": .string(station.url)])
    }

    private func submit(_ request: PlayerRequest, _ text: String) -> ControlReply {
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
            "state": .string(state["state"] ?? "idle"),
            "station": .string(player.station.name),
            "url": .string(player.station.url),
            "volume": .int(volumePercent),
        ]
        if let engine = player.snapshot.engine { data["engine"] = .string(engine.rawValue) }
        for key in ["title", "artist", "raw_title", "genre", "codec", "bitrate", "artwork_url"] { data[key] = track[key].map(JSONValue.string) }
        if let kind = state["error_kind"] {
            data["error"] = ["kind": .string(kind), "message": .string(state["error_message"] ?? ""), "suggestion": .string(state["error_suggestion"] ?? "")]
        }
        let song = [track["artist"], track["title"]].compactMap { $0 }.joined(separator: " – ")
        var text = "\(state["state"] ?? "idle") · \(player.station.name)"
        if !song.isEmpty { text += " · " + song }
        text += " · volume \(VolumeArgument.text(percent: volumePercent))"
        if let sleep = sleepTimer() {
            data["sleep"] = .object(sleep.data)
            text += " · " + sleep.text
        }
        if let wish = lastWish(), let station = wish.fields["station"] {
            let song = [wish.fields["artist"], wish.fields["title"]].compactMap { $0 }.joined(separator: " – ")
            data["wish"] = .object(["station": .string(station), "artist": wish.fields["artist"].map(JSONValue.string) ?? .null,
                                    "title": .string(wish.fields["title"] ?? ""), "seconds_ago": .int(wish.secondsAgo)])
            text += "\nwish: \(song) on \(station), \(wish.secondsAgo) s ago (oton ctl switch-to-wish)"
        }
        if let message = state["error_message"] { text += "\n\(message)\n\(state["error_suggestion"] ?? "")" }
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
        if field("mode") == "after-track" { return ("sleep after track", ["mode": "after-track"]) }
        guard let seconds = field("seconds").flatMap(Double.init), seconds.isFinite else { return nil }
        let elapsed = Double(Clock.monotonicNanoseconds() - event.monotonicNanoseconds) / 1e9
        let left = Int(max(0, min(seconds - elapsed, 86_400 * 7)).rounded(.up))
        return (String(format: "sleep %d:%02d", left / 60, left % 60), ["mode": "duration", "seconds_left": .int(left)])
    }

    private func volume(_ arguments: [String]) -> ControlReply {
        guard let argument = arguments.first else {
            return .success("volume \(VolumeArgument.text(percent: volumePercent))", data: ["volume": .int(volumePercent)])
        }
        let target: Int
        switch Self.volumeArgument(argument) {
        case let .success(.absolute(percent)):
            target = percent
            player.submit(.setVolume(Double(percent) / 100), from: "control")
        case let .success(.relative(change)):
            target = VolumeArgument.relative(change).applied(to: volumePercent) // what the player will make of it, for the reply
            player.submit(.changeVolume(byPercent: change), from: "control")
        case let .failure(error): return .failure(error.description)
        }
        return .success("volume \(VolumeArgument.text(percent: target))", data: ["volume": .int(target)])
    }

    typealias VolumeArgument = OtonHost.VolumeArgument

    /// The volume grammar (``VolumeArgument``), as the control socket reads it.
    static func volumeArgument(_ text: String) -> Result<VolumeArgument, VolumeArgument.Invalid> {
        VolumeArgument.parse(text)
    }

    /// Re-reads plugins.json's stations into ``LiveStationList``; playback goes on untouched.
    private func reloadStations() -> ControlReply {
        do {
            let stations = try LiveStationList.shared.reload()
            return .success("\(stations.count) station\(stations.count == 1 ? "" : "s") reloaded from \(LiveStationList.shared.file ?? "?")",
                            data: ["stations": .strings(stations.map(\.name))])
        } catch {
            return .failure("stations not reloaded: \(error.message); the old list stays. Hint: \(error.hint)")
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
            lines.append("\(report.id)  \(status)")
            list.append(["id": .string(report.id), "status": .string(status), "path": .string(report.path)])
        }
        return .success(lines.isEmpty ? "no plugins configured" : lines.joined(separator: "\n"), data: ["plugins": .array(list)])
    }

    private func commandList() -> ControlReply {
        var lines = Self.builtIn.map { "\($0.usage)\n    \($0.help)" }
        var list: [JSONValue] = Self.builtIn.map { ["name": .string($0.name), "usage": .string($0.usage), "help": .string($0.help), "plugin": "host"] }
        for entry in plugins.commands.all {
            lines.append("\(entry.command.usage)\n    \(entry.command.help) [\(entry.pluginID)]")
            list.append(["name": .string(entry.command.name), "usage": .string(entry.command.usage), "help": .string(entry.command.help),
                         "plugin": .string(entry.pluginID)])
        }
        return .success(lines.joined(separator: "\n"), data: ["commands": .array(list)])
    }
}
