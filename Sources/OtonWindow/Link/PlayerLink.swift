import Foundation
import OtonControl
import OtonJSON
import OtonSupport

/// The window's one way to the player: its control socket (docs/control.md). A reader thread
/// subscribes to the bus and hands every event to the main loop; commands go out one at a time
/// on a queue of their own, each on a fresh connection, so the window never waits on the player.
final class PlayerLink: @unchecked Sendable {
    enum Update: @unchecked Sendable {
        /// Connected: the player's `status` data and its stations (`stations` data), before any event.
        case attached(status: [String: JSONValue], stations: [StationRow])
        case event([String: JSONValue])
        /// The socket closed: the player quit or gave up.
        case gone(reason: String)
    }

    let instance: String
    /// What the window started itself (stopped when the window quits); nil when it attached to a running one.
    private(set) var player: PlayerProcess?
    private let config: String?
    private let commands = DispatchQueue(label: "oton.window.commands")

    init(instance: String, player: PlayerProcess?, config: String?) {
        self.instance = instance
        self.player = player
        self.config = config
    }

    /// Finds the player to attach to (`--instance`, else "default", else the only one running), or starts one.
    static func attachOrStart(instance chosen: String?, config: String?) throws -> PlayerLink {
        let live = ControlSocketPath.instances().filter { UnixSocket.isLive(ControlSocketPath.socket(instance: $0)) }
        if let chosen {
            if live.contains(chosen) { return PlayerLink(instance: chosen, player: nil, config: config) }
            return PlayerLink(instance: chosen, player: try PlayerProcess(instance: chosen, config: config), config: config)
        }
        if live.contains("default") { return PlayerLink(instance: "default", player: nil, config: config) }
        if live.count == 1 { return PlayerLink(instance: live[0], player: nil, config: config) }
        let name = live.isEmpty ? "default" : "window-\(getpid())"
        return PlayerLink(instance: name, player: try PlayerProcess(instance: name, config: config), config: config)
    }

    /// Whether the window started the player (and so restarts it on Play after it stopped).
    var ownsPlayer: Bool { player != nil }

    /// Starts a new player after the last one ended (the window's own only).
    func restartPlayer() throws {
        guard player != nil else { return }
        player = try PlayerProcess(instance: instance, config: config)
    }

    /// Reads the player on a thread of its own until its socket closes; `update` gets every change.
    func follow(_ update: @escaping @Sendable (Update) -> Void) {
        let thread = Thread { [self] in
            update(readUntilClosed(update))
        }
        thread.name = "oton.window.link"
        thread.start()
    }

    private func readUntilClosed(_ update: @escaping @Sendable (Update) -> Void) -> Update {
        let path = ControlSocketPath.socket(instance: instance)
        // A player the window just started needs a moment (plugins, the socket); 60 s on a loaded machine.
        let deadline = Date().addingTimeInterval(60)
        while !UnixSocket.isLive(path) {
            if let player, !player.isRunning { return .gone(reason: tr("the player stopped")) }
            if Date() > deadline { return .gone(reason: tr("no oton answers at {path}", ["path": path])) }
            usleep(50_000)
        }
        do {
            let events = try ControlClient(instance: instance)
            let reply = try events.send(["subscribe"])
            guard reply["ok"]?.boolValue == true else { return .gone(reason: reply["error"]?.stringValue ?? "subscribe refused") }
            let status = try ControlClient(instance: instance).send(["status"])["data"]?.objectValue ?? [:]
            let stations = try ControlClient(instance: instance).send(["stations"])["data"]
            update(.attached(status: status, stations: StationRow.list(from: stations)))
            while let line = events.nextLine() {
                guard let object = try? JSONValue.parse(Data(line.utf8), maxBytes: ControlClient.maximumLineBytes),
                    let event = object["event"]?.objectValue
                else { continue }
                update(.event(event))
            }
            return .gone(reason: tr("the player stopped"))
        } catch {
            return .gone(reason: error.description)
        }
    }

    /// Sends one control command; `reply` gets the error text of a refused or failed one (nil when it worked).
    func send(_ words: [String], reply: @escaping @Sendable (String?) -> Void = { _ in }) {
        ask(words) { _, problem in reply(problem) }
    }

    /// Sends one control command; `answer` gets the whole reply object when it worked (`text`, `data`),
    /// else the error text of a refused or failed one. A plugin's command (`history`, `share`) may take a while: 60 s.
    func ask(_ words: [String], answer: @escaping @Sendable (_ reply: [String: JSONValue]?, _ problem: String?) -> Void) {
        let instance = instance
        commands.async {
            do {
                let client = try ControlClient(instance: instance)
                client.setTimeout(seconds: 60)
                let reply = try client.send(words)
                if reply["ok"]?.boolValue == true {
                    answer(reply, nil)
                } else {
                    answer(nil, reply["error"]?.stringValue ?? tr("the player refused"))
                }
            } catch {
                answer(nil, "\(error)")
            }
        }
    }

    /// Asks the player for its stations (`stations`); `list` gets them (empty when it did not answer).
    func stations(_ list: @escaping @Sendable ([StationRow]) -> Void) {
        let instance = instance
        commands.async {
            let data = (try? ControlClient(instance: instance).send(["stations"]))?["data"]
            list(StationRow.list(from: data))
        }
    }

    /// Asks the player's tray plugin whether a closing window leaves it playing (`background
    /// window-closed`: with keep_playing on, it says so in a notification); false without that plugin
    /// or an answer within `seconds`. Synchronous: the window is closing.
    func keepsPlayingAfterClose(config: String?, seconds: Int) -> Bool {
        var words = ["background", "window-closed", "--instance", instance, "--format", "json"]
        if let config { words += ["--config", URL(fileURLWithPath: config).standardizedFileURL.path] }
        guard let client = try? ControlClient(instance: instance) else { return false }
        client.setTimeout(seconds: seconds)
        guard let reply = try? client.send(words), reply["ok"]?.boolValue == true, let text = reply["text"]?.stringValue,
            let answer = try? JSONValue.parse(Data(text.utf8))
        else { return false }
        return answer["keep_playing"]?.boolValue == true
    }

    /// Leaves the player the window started playing after the window (the lifeline says so, then closes).
    func leaveOwnPlayerPlaying() {
        player?.leavePlaying()
    }

    /// Stops the player the window started (not one it attached to); waits for it to end.
    func stopOwnPlayer() {
        player?.stop(waiting: 10)
    }
}

/// A station of the player's list (`oton ctl stations`).
struct StationRow: Equatable, Sendable {
    var number: Int
    var name: String
    var isCurrent: Bool
    var url = ""

    static func list(from data: JSONValue?) -> [StationRow] {
        guard case let .array(entries)? = data?["stations"] else { return [] }
        return entries.compactMap { entry in
            guard let name = entry["name"]?.stringValue, let number = entry["number"]?.int64Value else { return nil }
            return StationRow(number: Int(number), name: name, isCurrent: entry["current"]?.boolValue ?? false, url: entry["url"]?.stringValue ?? "")
        }
    }
}
