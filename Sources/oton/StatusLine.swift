import Foundation
import OtonHost
import OtonJSON
import PluginAPI

/// The one-line terminal status (state, station, artist – title, time on this
/// track, volume, sleep timer) and its keys (``keyList``; `?` shows it). Plugin keys call
/// the same commands as `oton ctl`.
/// It is a bus subscriber like any plugin, and sends requests like one.
final class StatusLine: MailboxConsumer, @unchecked Sendable {
    private static let id = "oton.cli.status-line"
    private let session: HostSession
    private var subscription: BusSubscription?
    private let lock = NSLock()
    private var state = "connecting"
    private var isPlaying = false
    private var track: TrackInfo?
    private var trackSequence: UInt64?
    /// Listening time on this track: what was heard before `playingSince`, plus since then while playing.
    private var listened: TimeInterval = 0
    private var playingSince: Date?
    private var volume = 1.0
    /// The sleep timer: its deadline (duration mode) or "after track".
    private var sleepDeadline: Date?
    private var sleepAfterTrack = false
    /// The timer fired and the volume fades: the action still to come (stop, pause, quit). Its
    /// message shows once playback has in fact stopped or paused, not while the fade still plays.
    private var sleepFadingAction: String?
    /// While waiting to reconnect: when, and what the attempt is.
    private var reconnect: (at: Date, attempt: Int, max: Int?, reason: String)?
    /// What went wrong, in the error state (while reconnecting it is the reconnect's reason).
    private var problem: String?
    private var keysHinted = false
    private var notice: String?
    private var noticeUntil = Date.distantPast
    private var saved = termios()
    private var timer: DispatchSourceTimer?
    private var keyThread: Thread?
    private var closed = false

    init(session: HostSession) {
        self.session = session
        subscription = BusSubscription(bus: session.bus, id: Self.id, kinds: .all, consumer: self)
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
            reconnect = nil
            problem = nil
            if let error = info.error {
                if info.retryAttempt > 0 {
                    let delay = event.event.field(OTON_FIELD_RETRY_IN_MS).flatMap(Double.init).map { $0 / 1000 } ?? 0
                    reconnect = (
                        Date().addingTimeInterval(delay), Int(info.retryAttempt), event.event.field(OTON_FIELD_RETRY_MAX).flatMap(Int.init),
                        error.playbackError?.localizedMessage ?? error.message
                    )
                } else {
                    state = "error"
                    problem = error.playbackError?.localizedMessage ?? error.message
                }
            }
            setPlaying(info.state.name == "playing")
            sleepFadeEnded(state: info.state.name)
        case let .track(info, sequence):
            // Another heard track (another song, a break, another station) starts the clock again.
            if sequence != trackSequence {
                listened = 0
                if playingSince != nil { playingSince = Date() }
            }
            // A message about the station left behind (a seek's, a key's) does not outlive it.
            if let before = track?.station, info.station != before { notice = nil }
            track = info
            trackSequence = sequence
        case let .volume(value):
            volume = value
        default:
            if event.event.name == OTON_EVENT_NAME_SLEEP_SET {
                sleepAfterTrack = event.event.field("mode") == "after-track"
                sleepDeadline = sleepAfterTrack ? nil : event.event.field("seconds").flatMap(Double.init).map { Date().addingTimeInterval($0) }
                sleepFadingAction = nil
            } else if event.event.name == OTON_EVENT_NAME_SLEEP_CANCELLED {
                let wasSet = sleepDeadline != nil || sleepAfterTrack || sleepFadingAction != nil
                sleepDeadline = nil
                sleepAfterTrack = false
                sleepFadingAction = nil
                if wasSet { show(notice: tr("sleep timer off"), seconds: 4) }
            } else if event.event.name == OTON_EVENT_NAME_SLEEP_FIRED {
                sleepDeadline = nil
                sleepAfterTrack = false
                sleepFadingAction = event.event.field("action") ?? "stop"
            } else if event.event.name == OTON_EVENT_NAME_WISH_HEARD, let station = event.event.field("station") {
                // "watch_wishes": a wish plays on another favourite.
                let song = [event.event.field("artist"), event.event.field("title")].compactMap { $0 }.joined(separator: " – ")
                show(notice: tr("wish on {station}: {song} (oton ctl switch-to-wish)", ["station": station, "song": song]), seconds: 30)
            }
        }
        lock.unlock()
        draw()
    }

    /// After a sleep timer's fade: the state that ends playback brings its message. Holds `lock`.
    private func sleepFadeEnded(state name: String) {
        guard let action = sleepFadingAction, name != "playing", name != "buffering" else { return }
        sleepFadingAction = nil
        let text =
            switch action {
            case "pause": tr("sleep timer: paused playback (space resumes)")
            case "quit": tr("sleep timer: quitting")
            default: tr("sleep timer: stopped playback (space plays again)")
            }
        show(notice: text, seconds: 10)
    }

    /// A message on the line for a few seconds, in place of the key hint. Holds `lock`.
    private func show(notice text: String, seconds: TimeInterval) {
        notice = text
        noticeUntil = Date().addingTimeInterval(seconds)
        lock.unlock()
        draw()
    }

    func deliver(media: MediaPacket, extraFlags: UInt32) {}
    func deliverDropNotice(_ counts: Mailbox.DropCounts) {}

    /// The track clock counts listening time: it runs only while playing.
    private func setPlaying(_ playing: Bool) {
        if playing, playingSince == nil { playingSince = Date() }
        if !playing, let since = playingSince {
            listened += Date().timeIntervalSince(since)
            playingSince = nil
        }
        isPlaying = playing
    }

    /// One row: what went wrong, the station, a message and the title give way (cut by display width,
    /// with …) so that state, time, volume and the sleep timer always fit.
    private func draw() {
        lock.lock()
        let now = Date()
        let elapsed = Int(listened + (playingSince.map { now.timeIntervalSince($0) } ?? 0))
        var head = [stateSymbol + " " + Self.stateText(state)]
        if let reconnect {
            let seconds = max(0, Int(reconnect.at.timeIntervalSince(now).rounded(.up)))
            let values = ["seconds": "\(seconds)", "attempt": "\(reconnect.attempt)", "max": reconnect.max.map { "\($0)" } ?? ""]
            head = [
                "… "
                    + (reconnect.max == nil
                        ? tr("waiting for the station (next try in {seconds} s)", values)
                        : tr("reconnecting in {seconds} s (attempt {attempt}/{max})", values))
            ]
        }
        let reason = reconnect?.reason ?? problem ?? ""
        let song = track.map { [$0.artist, $0.title].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " – ") } ?? ""
        var tail = [
            TimeText.minutesSeconds(elapsed), tr("vol {volume}", ["volume": VolumeArgument.text(percent: VolumeArgument.percent(of: volume), in: .current)]),
        ]
        if let sleepDeadline {
            let left = max(0, Int(sleepDeadline.timeIntervalSince(now).rounded(.up)))
            tail.append(tr("sleep {time}", ["time": TimeText.minutesSeconds(left)]))
        } else if sleepAfterTrack {
            tail.append(tr("sleep after track"))
        } else if sleepFadingAction != nil {
            tail.append(tr("sleep: fading out"))
        }
        if let until = session.alarm.snoozedUntil {
            let left = max(0, Int(until.timeIntervalSince(now).rounded(.up)))
            tail.append(tr("snoozing {time}", ["time": TimeText.minutesSeconds(left)]))
        }
        if let behind = session.player.snapshot.timeshift?.behindLive, behind >= 1_000_000_000 {
            tail.append(tr("{behind} behind live", ["behind": ControlCommands.behindText(Int(behind / 1_000_000))]))
        }
        // A message gives way like the title does, after the station, so that neither pushes the other off.
        let message = notice.flatMap { now < noticeUntil ? $0 : nil } ?? ""
        if message.isEmpty, !keysHinted { tail.append(tr("? keys")) }
        let station = session.player.station.name
        let done = closed
        lock.unlock()
        guard !done else { return }
        let width = Self.terminalWidth() - 1
        let separator = " · "
        let fixed = (head + tail).map(TerminalText.width).reduce(0, +) + separator.count * (head.count + tail.count - 1)
        var middle: [String] = []
        var room = width - fixed
        for part in [reason, station, message, song] where !part.isEmpty && room > separator.count + 4 {
            let piece = TerminalText.truncated(part, toColumns: room - separator.count)
            middle.append(piece)
            room -= TerminalText.width(piece) + separator.count
        }
        let line = TerminalText.truncated((head + middle + tail).joined(separator: separator), toColumns: width)
        TerminalRow.shared.draw(line)
    }

    /// A state as the listener reads it: "playing", "buffering 40%" (the name from the state event, then any percent).
    private static func stateText(_ state: String) -> String {
        let name = state.prefix { $0 != " " }
        let word =
            switch name {
            case "idle": tr("idle")
            case "connecting": tr("connecting")
            case "playing": tr("playing")
            case "buffering": tr("buffering")
            case "paused": tr("paused")
            case "stopped": tr("stopped")
            case "error": tr("error")
            default: String(name)
            }
        return word + state.dropFirst(name.count)
    }

    private var stateSymbol: String {
        state.hasPrefix("playing") ? "▶" : state.hasPrefix("paused") ? "⏸" : state.hasPrefix("idle") ? "■" : "…"
    }

    private func readKeys() {
        var byte: UInt8 = 0
        var escape = 0  // ESC [ C / ESC [ D: the arrow keys
        while read(STDIN_FILENO, &byte, 1) == 1 {
            if escape == 0, byte == 27 { escape = 1; continue }
            if escape == 1 { escape = byte == UInt8(ascii: "[") ? 2 : 0; continue }
            if escape == 2 {
                escape = 0
                if byte == UInt8(ascii: "C") { seek(by: 10) } else if byte == UInt8(ascii: "D") { seek(by: -10) }
                continue
            }
            lock.lock()
            let (done, retrying) = (closed, reconnect != nil || state.hasPrefix("error"))
            let sleepSet = sleepDeadline != nil || sleepAfterTrack || sleepFadingAction != nil
            keysHinted = true
            lock.unlock()
            if done { return }
            switch byte {
            case UInt8(ascii: "?"): TerminalRow.shared.show(Self.keyList)
            case UInt8(ascii: " "): session.player.submit(retrying ? .play : .playPause, from: "terminal")
            case UInt8(ascii: "+"), UInt8(ascii: "="): changeVolume(by: 5)
            case UInt8(ascii: "-"), UInt8(ascii: "_"): changeVolume(by: -5)
            case UInt8(ascii: "s"): runPluginCommand("sleep", ["next"], onlyFailures: true)
            case UInt8(ascii: "c") where !sleepSet:
                lock.withLock { show(notice: tr("no sleep timer is set"), seconds: 4) }
                draw()
            case UInt8(ascii: "c"): runPluginCommand("sleep", ["cancel"], onlyFailures: true)
            case UInt8(ascii: "h"): runPluginCommand("share", [], showWholeReply: true)
            case UInt8(ascii: "r"): runPluginCommand("record-current", [])
            case UInt8(ascii: "n"): switchStation(step: 1)
            case UInt8(ascii: "p"): switchStation(step: -1)
            case UInt8(ascii: "1")...UInt8(ascii: "9"): switchStation(number: Int(byte - UInt8(ascii: "0")))
            case UInt8(ascii: "L"), UInt8(ascii: "l"): seek(by: nil)
            case UInt8(ascii: "q"), 3: session.requestQuit()  // 3: Ctrl-C in raw mode
            default: break
            }
        }
    }

    /// n and p step through plugins.json's stations (wrapping), 1–9 pick one, as `oton ctl next|prev|station N` do.
    private func switchStation(step: Int? = nil, number: Int? = nil) {
        let list = session.stations
        let target: Station?
        if let number {
            target = list.stations.indices.contains(number - 1) ? list.stations[number - 1] : nil
        } else {
            target = list.station(after: session.player.station, step: step ?? 1)
        }
        guard let target else {
            lock.lock(); notice = tr("no station {number} (plugins.json lists {count})", ["number": "\(number ?? 0)", "count": "\(list.stations.count)"])
            noticeUntil = Date().addingTimeInterval(4); lock.unlock()
            return draw()
        }
        session.player.submit(.switchStation(target), from: "terminal")
    }

    /// ← and → move 10 s through the timeshift ring, L goes live (as `oton ctl seek -10s|+10s` and `live` do).
    private func seek(by seconds: Int64?) {
        let result = session.player.seek(seconds.map { .by($0 * 1_000_000_000) } ?? .behindLive(0))
        let text: String? =
            switch result {
            case nil: ControlCommands.noTimeshift
            case let .clampedToStart(held): Player.clampText(held: held)
            case .live: tr("live")
            case .moved: nil
            }
        if let text { lock.withLock { show(notice: text, seconds: 4) } }
        draw()
    }

    /// + and - change the volume as `oton ctl volume +5` does: in whole percent, within 0–150.
    private func changeVolume(by change: Int) {
        session.player.submit(.changeVolume(byPercent: change), from: "terminal")
    }

    /// The keys, as `?` shows them (space while reconnecting tries at once, as the network error suggests) above the status line.
    /// One message per row, so that a translator can align the columns in their language.
    static var keyList: String {
        [
            tr("keys:  space  pause / resume      + -  volume ±5 %"),
            tr("       s      sleep timer presets  c    cancel the sleep timer"),
            tr("       h      share the track (text, links, clipboard)"),
            tr("       r      record the track playing, from its start"),
            tr("       n p    next / previous station  1–9  station by number"),
            tr("       ← →    back / on 10 s (timeshift)  L  live"),
            tr("       ?      this list            q    quit (Ctrl-C too)"),
        ].joined(separator: "\n")
    }

    /// Runs a plugin's command off the key thread. Its reply shows on the status line for a few
    /// seconds, or (`showWholeReply`, for share's text and links) above it, where it stays.
    /// `onlyFailures`: the line already shows the outcome (the sleep timer's countdown, from its
    /// events), so only a failure or a missing plugin is worth words.
    private func runPluginCommand(_ name: String, _ arguments: [String], showWholeReply: Bool = false, onlyFailures: Bool = false) {
        let plugins = session.plugins
        DispatchQueue.global().async { [weak self] in
            let reply = plugins.run(command: name, arguments: arguments)
            let text = reply?.text ?? tr("no plugin provides \"{command}\"; see `oton plugins list`", ["command": name])
            guard let self else { return }
            if onlyFailures, reply?.ok == true { return }
            if showWholeReply {
                TerminalRow.shared.show(text)
                return
            }
            lock.lock(); notice = text.split(separator: "\n").first.map(String.init) ?? ""; noticeUntil = Date().addingTimeInterval(4); lock.unlock()
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
        subscription?.close(drain: false)
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
        TerminalRow.shared.finish()
    }

    private static func terminalWidth() -> Int {
        var size = winsize()
        return ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }
}

extension BusEvent {
    func field(_ key: String) -> String? { fields.first { $0.key == key }?.value }
}
