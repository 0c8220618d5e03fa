import Dispatch
import Foundation
import OtonPluginKit
import PluginAPI
import WebRemoteLogic

/// One web remote: the page state built from bus events (under a lock: events arrive on the
/// host's mailbox, requests on the server's thread), the server, and the actions it may take,
/// which are exactly the player requests of the ABI and the control commands `oton ctl` runs
/// (ABI 1.3 run_command: `sleep` and `level`, and `stations`, `history` and `level` to fill the page).
final class WebRemoteInstance: @unchecked Sendable {
    private let host: HostHandle
    private let config: WebRemoteConfig
    /// Set once the server has its port (the gate needs it); under `lock`, since the server's
    /// threads may already ask. Until then every request is refused.
    private var gate: RequestGate?
    private let token: String
    private let lock = NSLock()
    private var state = RemoteState()
    private var server: WebServer!

    init(host: HostHandle, config: WebRemoteConfig) throws {
        self.host = host
        self.config = config
        token = try TokenStore.loadOrCreate(directory: host.dataDirectory)
        // What happened before we were enabled: the latest event of each core kind.
        for kind in [OTON_EVENT_STATE, OTON_EVENT_TRACK, OTON_EVENT_VOLUME] {
            if let event = host.current(kind) { apply(event) }
        }
        server = try WebServer(address: config.listen, limits: config.limits, delegate: self)
        let gate = RequestGate(token: token, listen: ListenAddress(host: config.listen.host, port: server.port))
        lock.withLock { self.gate = gate }
        refreshStations()
        refreshLevel()
        runCommand("history", ["--limit", String(RemoteState.historyLimit), "--format", "json"], quietly: true) { [weak self] reply in
            let earlier = CommandReplies.history(reply)
            self?.update { $0.addEarlierHistory(earlier) }
        }
        if config.listen.host == "0.0.0.0" {
            host.log(
                OTON_LOG_WARNING,
                host.tr(
                    "web remote on http://0.0.0.0:{port}/: every network this machine is on can reach it (only the token keeps others out); listen on 127.0.0.1 unless a phone needs it",
                    ["port": String(server.port)]))
        } else {
            host.log(OTON_LOG_INFO, "web remote on http://\(config.listen.host):\(server.port)/ (the token is in `oton ctl web-remote url`)")
        }
    }

    func shutdown() {
        server.stop()
        let dropped = server.droppedUpdates
        if dropped > 0 { host.log(OTON_LOG_INFO, "web remote: \(dropped) updates dropped for slow clients") }
    }

    func handle(_ event: EventView.Snapshot) {
        apply(event)
    }

    private func apply(_ event: EventView.Snapshot) {
        let (changed, stationBefore, stationNow) = lock.withLock {
            let before = state.station
            let changed = state.apply(
                name: event.name, fields: event.fields, monotonicNanoseconds: Self.monotonicNow(),
                wallMicroseconds: event.wallMicroseconds)
            return (changed, before, state.station)
        }
        if changed { server?.stateChanged() }
        if stationNow != stationBefore, server != nil { refreshStations() }  // the list marks the current one
        // The levelling gain is the player's, not an event: asked again when playback (re)starts and per track.
        if server != nil, event.name == "track" || (event.name == "state" && event.fields[OTON_FIELD_STATE] == "playing") { refreshLevel() }
        if server != nil, event.name == "track" || event.name == "state" { refreshTimeshift("status") }
    }

    /// `level` (quietly: an oton that does not level answers with an error, and the page shows no toggle).
    @discardableResult
    private func refreshLevel(_ arguments: [String] = [], quietly: Bool = true) -> oton_status {
        runCommand("level", arguments, quietly: quietly) { [weak self] reply in
            let level = CommandReplies.level(reply)
            self?.update { $0.setLevel(level) }
        }
    }

    /// Where timeshift playback is, from `status`, or from `seek`/`live` after moving it (docs/timeshift.md).
    @discardableResult
    private func refreshTimeshift(_ command: String, _ arguments: [String] = []) -> oton_status {
        runCommand(command, arguments, quietly: command == "status") { [weak self] reply in
            let timeshift = CommandReplies.timeshift(reply)
            self?.update { $0.setTimeshift(timeshift) }
        }
    }

    /// Changes the page state under the lock and tells the clients.
    private func update(_ change: (inout RemoteState) -> Void) {
        let changed = lock.withLock {
            let before = state.version
            change(&state)
            return state.version != before
        }
        if changed { server?.stateChanged() }
    }

    private func refreshStations() {
        runCommand("stations", quietly: true) { [weak self] reply in
            let list = CommandReplies.stations(reply)
            self?.update { $0.setStations(list) }
        }
    }

    /// Runs a control command; `success` gets the reply JSON. A failure is shown on the page, or
    /// only logged (debug) when `quietly` (e.g. `history` without the history plugin).
    @discardableResult
    private func runCommand(
        _ name: String, _ arguments: [String] = [], quietly: Bool = false,
        success: @escaping @Sendable (String) -> Void = { _ in }
    ) -> oton_status {
        let host = self.host
        return host.runCommand(name, arguments) { [weak self] ok, reply in
            if ok {
                if !quietly { self?.update { $0.setNotice(nil) } }
                success(reply)
            } else if quietly {
                host.log(OTON_LOG_DEBUG, "web remote: \"\(name)\" failed: \(CommandReplies.error(reply))")
            } else {
                self?.update { $0.setNotice("\(name): \(CommandReplies.error(reply))") }
            }
        }
    }

    /// `web-remote url`: the URL with the token and a QR code of it.
    func command(_ arguments: [String]) -> (Bool, String) {
        switch arguments.first {
        case nil, "url":
            let url = self.url()
            var reply = url
            if let code = try? QRCode(encoding: url) { reply += "\n\n" + QRTerminalRendering.render(code) }
            if !config.listen.isLoopback {
                reply +=
                    "\n\n"
                    + host.tr(
                        "Anyone on this network with this URL can control playback; `rm` the token file in {folder} and re-enable the plugin for a new one.",
                        ["folder": host.dataDirectory])
            }
            return (true, reply)
        case "status":
            var reply = host.tr(
                "listening on {address}, {waiting} connections waiting for a request (at most {waitingMaximum}), {clients} event clients (at most {maximum}), {dropped} updates dropped for slow clients",
                [
                    "address": "\(config.listen.host):\(server.port)", "waiting": String(server.waitingConnections),
                    "waitingMaximum": String(config.limits.maximumWaitingConnections), "clients": String(server.eventClients),
                    "maximum": String(config.limits.maximumEventClients), "dropped": String(server.droppedUpdates),
                ])
            if config.listen.host == "0.0.0.0" {
                reply = host.tr("warning: every network this machine is on can reach the web remote (only the token keeps others out)") + "\n" + reply
            }
            return (true, reply)
        case let other?:
            return (false, host.tr("unknown web-remote command \"{command}\"; usage: oton ctl web-remote url|status", ["command": other]))
        }
    }

    func url() -> String {
        var address = config.listen.host
        if address == "0.0.0.0" { address = LocalAddress.firstLANAddress() ?? "127.0.0.1" }
        return "http://\(address):\(server.port)/?token=\(token)"
    }

    static func monotonicNow() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds) }

    private func carryOut(_ action: RemoteAction) -> oton_status {
        switch action {
        case .play: host.request(OTON_REQUEST_PLAY)
        case .pause: host.request(OTON_REQUEST_PAUSE)
        case .playPause: host.request(OTON_REQUEST_PLAY_PAUSE)
        case .stop: host.request(OTON_REQUEST_STOP)
        case let .volume(value): host.request(OTON_REQUEST_SET_VOLUME, volume: value)
        case .nextStation: host.request(OTON_REQUEST_NEXT_STATION)
        case .previousStation: host.request(OTON_REQUEST_PREV_STATION)
        case let .switchStation(name): host.request(OTON_REQUEST_SWITCH_STATION, station: name)
        case let .sleep(argument): runCommand("sleep", [argument])
        case let .level(on): refreshLevel([on ? "on" : "off"], quietly: false)
        case let .seek(seconds): refreshTimeshift("seek", [(seconds < 0 ? "-" : "+") + "\(abs(seconds))s"])
        case .live: refreshTimeshift("live")
        }
    }
}

extension WebRemoteInstance: WebServerDelegate {
    func currentState() -> (version: UInt64, json: String) {
        let now = Self.monotonicNow()
        return lock.withLock { (state.version, state.render(monotonicNow: now)) }
    }

    func decide(_ request: HTTPRequest) -> RequestGate.Decision {
        guard let gate = lock.withLock({ gate }) else { return .reject(status: 503, message: "the web remote is starting; try again") }
        return gate.decide(request)
    }

    func respond(to request: HTTPRequest, route: RequestGate.Route) -> HTTPResponse {
        switch route {
        case .page:
            return HTTPResponse.bytes(status: 200, contentType: "text/html; charset=utf-8", body: Array(RemotePage.html.utf8))
        case .state:
            return HTTPResponse.json(status: 200, currentState().json)
        case .events:
            return HTTPResponse.text(status: 500, "the event channel is the server's")  // WebServer opens it itself
        case .artwork:
            return artwork()
        case .action:
            do {
                let action = try RemoteAction.parse(request.body)
                let status = carryOut(action)
                return status == OTON_OK
                    ? HTTPResponse.json(status: 202, #"{"ok":true}"#)
                    : HTTPResponse.text(status: 400, "the player refused the request (status \(status))")
            } catch {
                return HTTPResponse.text(status: 400, error.description)
            }
        }
    }

    /// The bytes of the artwork the artwork plugin announced: the page sees a URL of ours, never the path.
    private func artwork() -> HTTPResponse {
        guard let path = lock.withLock({ state.artworkPath }) else { return HTTPResponse.text(status: 404, "no artwork yet") }
        guard let handle = FileHandle(forReadingAtPath: path) else { return HTTPResponse.text(status: 404, "the artwork file is gone") }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: config.limits.maximumArtworkBytes + 1)) ?? Data()
        guard !data.isEmpty, data.count <= config.limits.maximumArtworkBytes else { return HTTPResponse.text(status: 404, "the artwork is empty or too large") }
        let bytes = [UInt8](data)
        return HTTPResponse.bytes(status: 200, contentType: HTTPResponse.imageType(bytes), body: bytes)
    }
}
