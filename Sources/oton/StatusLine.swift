import Foundation
import OtonHost
import PluginAPI

/// The one-line terminal status (state, station, artist – title, time on this
/// track, volume, sleep timer) and its keys: space pause/resume, + and - volume,
/// s sleep presets, c cancel the sleep timer, h share, q quit. Plugin keys call
/// the same commands as `oton ctl`.
/// It is a bus subscriber like any plugin, and sends requests like one.
final class StatusLine: MailboxConsumer, @unchecked Sendable {
    private static let id = "oton.cli.status-line"
    private let session: HostSession
    private let mailbox: Mailbox
    private let lock = NSLock()
    private var state = "connecting"
    private var track: TrackInfo?
    private var trackStarted = Date()
    private var volume = 1.0
    private var extra: String?
    private var notice: String?
    private var noticeUntil = Date.distantPast
    private var saved = termios()
    private var timer: DispatchSourceTimer?
    private var keyThread: Thread?
    private var closed = false

    init(session: HostSession) {
        self.session = session
        mailbox = session.bus.makeMailbox(for: Self.id)
        mailbox.start(consumer: self)
        session.bus.subscribe(id: Self.id, kinds: .all, mailbox: mailbox)
        enterRawMode()
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [weak self] in self?.draw() }
        timer.resume()
        self.timer = timer
        let thread = Thread { [weak self] in self?.readKeys() }
        thread.name = "oton.keys"
        keyThread = thread
        thread.start()
    }

    func deliver(event: FrozenEvent) {
        lock.lock()
        switch event.event.payload {
        case let .state(info):
            state = info.state.name
            if let percent = info.bufferingPercent { state += " \(percent)%" }
            if let error = info.error { state = info.retryAttempt > 0 ? "reconnecting (\(error.kind))" : "error: \(error.message)" }
        case let .track(info, _):
            if info.title != track?.title || info.artist != track?.artist { trackStarted = Date() }
            track = info
        case let .volume(value):
            volume = value
        default:
            if event.event.name == OTON_EVENT_NAME_SLEEP_SET {
                extra = "sleep \(event.event.field("mode") == "after-track" ? "after track" : (event.event.field("seconds") ?? "") + " s")"
            } else if event.event.name == OTON_EVENT_NAME_SLEEP_CANCELLED || event.event.name == OTON_EVENT_NAME_SLEEP_FIRED {
                extra = nil
            }
        }
        lock.unlock()
        draw()
    }

    func deliver(media: MediaPacket, extraFlags: UInt32) {}
    func deliverDropNotice(_ counts: Mailbox.DropCounts) {}

    private func draw() {
        lock.lock()
        let elapsed = Int(Date().timeIntervalSince(trackStarted))
        var parts = [stateSymbol + " " + state, session.player.station.name]
        if let track { parts.append([track.artist, track.title].compactMap { $0 }.joined(separator: " – ")) }
        parts.append(String(format: "%d:%02d", elapsed / 60, elapsed % 60))
        parts.append("vol \(Int((volume * 100).rounded()))%")
        if let extra { parts.append(extra) }
        if let notice, Date() < noticeUntil { parts.append(notice) }
        let done = closed
        lock.unlock()
        guard !done else { return }
        var line = parts.filter { !$0.isEmpty }.joined(separator: " · ")
        let width = Self.terminalWidth()
        if line.count > width - 1 { line = String(line.prefix(max(width - 2, 10))) + "…" }
        StandardOutput.write("\r\u{1B}[2K" + line)
    }

    private var stateSymbol: String {
        state.hasPrefix("playing") ? "▶" : state.hasPrefix("paused") ? "⏸" : state.hasPrefix("idle") ? "■" : "…"
    }

    private func readKeys() {
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1 {
            lock.lock()
            let (done, current) = (closed, volume)
            lock.unlock()
            if done { return }
            switch byte {
            case UInt8(ascii: " "): session.player.submit(.playPause, from: "terminal")
            case UInt8(ascii: "+"), UInt8(ascii: "="): session.player.submit(.setVolume(min(current + 0.05, 1.5)), from: "terminal")
            case UInt8(ascii: "-"), UInt8(ascii: "_"): session.player.submit(.setVolume(max(current - 0.05, 0)), from: "terminal")
            case UInt8(ascii: "s"): runPluginCommand("sleep", ["next"])
            case UInt8(ascii: "c"): runPluginCommand("sleep", ["cancel"])
            case UInt8(ascii: "h"): runPluginCommand("share", [])
            case UInt8(ascii: "q"), 3: session.requestQuit() // 3: Ctrl-C in raw mode
            default: break
            }
        }
    }

    /// Runs a plugin's command off the key thread and shows the first line of its reply.
    private func runPluginCommand(_ name: String, _ arguments: [String]) {
        let plugins = session.plugins
        DispatchQueue.global().async { [weak self] in
            let reply = plugins.run(command: name, arguments: arguments)
            let line = reply.map { $0.text.split(separator: "\n").first.map(String.init) ?? "" } ?? "no plugin provides \"\(name)\""
            guard let self else { return }
            lock.lock(); notice = line; noticeUntil = Date().addingTimeInterval(4); lock.unlock()
            draw()
        }
    }

    private func enterRawMode() {
        tcgetattr(STDIN_FILENO, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
    }

    func close() {
        lock.lock()
        closed = true
        lock.unlock()
        timer?.cancel()
        session.bus.unsubscribe(id: Self.id)
        mailbox.close()
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
        StandardOutput.write("\n")
    }

    private static func terminalWidth() -> Int {
        var size = winsize()
        return ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }
}

extension BusEvent {
    func field(_ key: String) -> String? { fields.first { $0.key == key }?.value }
}
