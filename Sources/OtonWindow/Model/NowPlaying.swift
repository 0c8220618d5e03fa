import Foundation
import OtonJSON
import OtonSupport
import PluginAPI

/// What the window shows, built only from the player's bus events (as `oton ctl subscribe` streams
/// them) and its `status` reply. Pure: no GTK, no socket; the time comes in as an argument.
public struct NowPlaying: Equatable, Sendable {
    /// A reconnect the player waits for: when (monotonic seconds) and which attempt.
    public struct Reconnect: Equatable, Sendable {
        public var at: Double
        public var attempt: Int
        public var maximum: Int?
    }

    public var state = "connecting"
    public var bufferingPercent: Int?
    public var reconnect: Reconnect?
    public var errorMessage: String?
    public var errorSuggestion: String?
    public var station = ""
    public var artist = ""
    public var title = ""
    public var trackSequence: String?
    public var volumePercent = 100
    /// The artwork plugin's picture (a file it caches); nil: the built-in one.
    public var artworkPath: String?
    /// What the picture is (the artwork event's type): "cover", "station-logo" or "default".
    public var artworkType: String?
    /// Its average colour, "#RRGGBB" only (it ends up in CSS).
    public var colour: String?
    /// The player's control socket went away (it quit, or gave up on the station it started with).
    public var playerGone = false
    /// The last error since the player last played: what a player that quit gave up on (its last
    /// state events, stopping, carry no error).
    public var lastProblem: Problem?

    public struct Problem: Equatable, Sendable {
        public var message: String
        public var suggestion: String?
    }

    /// The sleep timer as its plugin announced it: a deadline (monotonic seconds), or "after this track".
    public enum Sleep: Equatable, Sendable {
        case at(Double)
        case afterTrack
    }

    public var sleep: Sleep?

    /// Timeshift (docs/timeshift.md): how far behind live playback was at `at` (monotonic seconds), from
    /// `status`'s `behind_live_ms`; nil when the player keeps no ring. While paused it grows as time passes.
    public struct Timeshift: Equatable, Sendable {
        public var behindMilliseconds: Int
        public var at: Double
        /// The ring's length (`timeshift_limit_ms`): paused longer, playback is that far behind at most.
        public var limitMilliseconds: Int?
    }

    public var timeshift: Timeshift?
    /// Loudness levelling on or off (`status`'s `level.enabled`); nil when the player does not level.
    public var levelling: Bool?

    /// A track heard since the window attached, newest first: "14:05  Artist – Title · Station".
    public private(set) var history: [String] = []

    public init() {}

    /// Applies one `{"kind": …, "fields": {…}}` event object; returns whether anything shown changed.
    @discardableResult
    /// `clock`: the listener's time of day, for the history ("14:05"); events arrive as they happen.
    public mutating func apply(event: [String: JSONValue], now: Double, clock: String = NowPlaying.localClock()) -> Bool {
        guard let kind = event["kind"]?.stringValue, case let .object(raw)? = event["fields"] else { return false }
        let fields = raw.compactMapValues(\.text)
        let before = self
        switch kind {
        case "state": applyState(fields, now: now)
        case "track": applyTrack(fields, clock: clock)
        case "volume":
            if let volume = fields[OTON_FIELD_VOLUME].flatMap(Double.init), volume.isFinite {
                volumePercent = min(max(Int((volume * 100).rounded()), 0), 150)
            }
        case OTON_EVENT_NAME_ARTWORK_READY: applyArtwork(fields)
        case OTON_EVENT_NAME_SLEEP_SET:
            if fields[OTON_FIELD_MODE] == "after-track" {
                sleep = .afterTrack
            } else if let seconds = fields[OTON_FIELD_SECONDS].flatMap(Double.init), seconds.isFinite, seconds >= 0 {
                sleep = .at(now + min(seconds, 86_400 * 7))
            }
        case OTON_EVENT_NAME_SLEEP_CANCELLED, OTON_EVENT_NAME_SLEEP_FIRED:
            sleep = nil
        default: return false
        }
        return self != before
    }

    /// Applies a `status` reply's `data` (what the player is doing when the window attaches), read at `now`.
    public mutating func apply(status data: [String: JSONValue], now: Double = 0) {
        if let value = data["state"]?.stringValue { state = value }
        if let value = data["station"]?.stringValue { station = value }
        artist = data["artist"]?.stringValue ?? ""
        title = data["title"]?.stringValue ?? ""
        if let volume = data["volume"]?.int64Value { volumePercent = Int(min(max(volume, 0), 150)) }
        if case let .object(artwork)? = data["artwork"] { applyArtwork(artwork.compactMapValues(\.text)) }
        if let error = data["error"] {
            errorMessage = error["message"]?.stringValue
            errorSuggestion = error["suggestion"]?.stringValue
        }
        apply(timeshiftAndLevel: data, now: now)
    }

    /// The timeshift position and levelling of a `status` (or `live`, `seek`, `level`) reply's `data`,
    /// read at `now`. Returns whether anything shown changed.
    @discardableResult
    public mutating func apply(timeshiftAndLevel data: [String: JSONValue], now: Double) -> Bool {
        let before = (timeshift, levelling)
        if let behind = data["behind_live_ms"]?.numberValue, behind.isFinite {
            timeshift = Timeshift(
                behindMilliseconds: Int(max(0, behind)), at: now,
                limitMilliseconds: data["timeshift_limit_ms"]?.numberValue.map { Int($0) })
        } else if data["state"] != nil {
            timeshift = nil  // a whole status without the figures: no ring (off, HLS, another station)
        }
        if let enabled = data["level"]?["enabled"]?.boolValue ?? data["enabled"]?.boolValue {
            levelling = enabled
        } else if data["state"] != nil {
            levelling = nil
        }
        return before != (timeshift, levelling)
    }

    /// How far behind live playback is at `now`; nil without timeshift. Paused, it grows with the
    /// time since it was read, up to the ring's length.
    public func behindLiveMilliseconds(now: Double) -> Int? {
        guard let timeshift else { return nil }
        guard state == "paused", now > timeshift.at else { return timeshift.behindMilliseconds }
        let grown = timeshift.behindMilliseconds + Int(((now - timeshift.at) * 1000).rounded())
        return timeshift.limitMilliseconds.map { min(grown, max($0, timeshift.behindMilliseconds)) } ?? grown
    }

    /// "−1:23 behind live", or "live" within a second of it; nil without timeshift.
    public func behindLiveText(now: Double) -> String? {
        guard let milliseconds = behindLiveMilliseconds(now: now) else { return nil }
        return milliseconds < 1000 ? tr("live") : tr("{behind} behind live", ["behind": TimeText.behindLive(milliseconds: milliseconds)])
    }

    /// The artwork plugin's picture (its event, or `status`'s `artwork` when the window attaches mid-track).
    private mutating func applyArtwork(_ fields: [String: String]) {
        artworkPath = fields[OTON_FIELD_PATH].flatMap { $0.isEmpty ? nil : $0 }
        artworkType = artworkPath == nil ? nil : fields[OTON_FIELD_TYPE]
        colour = fields[OTON_FIELD_COLOR].flatMap(Self.checkedColour)
    }

    private mutating func applyState(_ fields: [String: String], now: Double) {
        guard let name = fields[OTON_FIELD_STATE], !name.isEmpty else { return }
        if let shift = timeshift {  // what a pause added, kept until `status` says it exactly
            timeshift = Timeshift(
                behindMilliseconds: behindLiveMilliseconds(now: now) ?? shift.behindMilliseconds, at: now,
                limitMilliseconds: shift.limitMilliseconds)
        }
        state = name
        playerGone = false
        bufferingPercent = name == "buffering" ? fields[OTON_FIELD_BUFFERING_PERCENT].flatMap { Int($0) } : nil
        let attempt = fields[OTON_FIELD_RETRY_ATTEMPT].flatMap { Int($0) } ?? 0
        let hasError = fields[OTON_FIELD_ERROR_KIND] != nil || fields[OTON_FIELD_ERROR_MESSAGE] != nil
        if hasError, attempt > 0, let delay = fields[OTON_FIELD_RETRY_IN_MS].flatMap(Double.init) {
            reconnect = Reconnect(at: now + delay / 1000, attempt: attempt, maximum: fields[OTON_FIELD_RETRY_MAX].flatMap { Int($0) })
        } else {
            reconnect = nil
        }
        errorMessage = hasError ? fields[OTON_FIELD_ERROR_MESSAGE] : nil
        errorSuggestion = hasError ? fields[OTON_FIELD_ERROR_SUGGESTION] : nil
        if let errorMessage { lastProblem = Problem(message: errorMessage, suggestion: errorSuggestion) }
        if name == "playing" { lastProblem = nil }
    }

    /// Puts the current track at the top of the history (its wall time as the listener's HH:MM).
    private mutating func remember(clock: String) {
        history.insert(HistoryLines.line(clock: clock, artist: artist, title: title, station: station), at: 0)
        if history.count > HistoryLines.limit { history.removeLast(history.count - HistoryLines.limit) }
    }

    private mutating func applyTrack(_ fields: [String: String], clock: String) {
        if let value = fields[OTON_FIELD_STATION], !value.isEmpty { station = value }
        let sequence = fields[OTON_FIELD_SEQUENCE]
        let ended = sequence != trackSequence
        trackSequence = sequence
        let before = (title, artist)
        title = fields[OTON_FIELD_TITLE] ?? (ended ? "" : title)
        artist = fields[OTON_FIELD_ARTIST] ?? (ended ? "" : artist)
        if !title.isEmpty, ended || before != (title, artist) { remember(clock: clock) }
    }

    /// Whether the main button pauses (true) or plays.
    public var isPlaying: Bool {
        !playerGone && reconnect == nil && ["playing", "buffering", "connecting"].contains(state)
    }

    /// The state in words: "buffering 40 %", "waiting for the station to come back (next try in 2 s)",
    /// "reconnecting in 4 s (attempt 2/3)" (with `--retries`), "gave up".
    public func stateText(now: Double) -> String {
        if let reconnect {
            let values = [
                "seconds": "\(max(0, Int((reconnect.at - now).rounded(.up))))", "attempt": "\(reconnect.attempt)",
                "max": reconnect.maximum.map { "\($0)" } ?? "",
            ]
            return reconnect.maximum == nil
                ? tr("waiting for the station to come back (next try in {seconds} s)", values)
                : tr("reconnecting in {seconds} s (attempt {attempt}/{max})", values)
        }
        if playerGone { return lastProblem == nil ? tr("the player stopped") : tr("gave up") }
        switch state {
        case "connecting": return tr("connecting")
        case "buffering": return bufferingPercent.map { tr("buffering {percent} %", ["percent": "\($0)"]) } ?? tr("buffering")
        case "playing": return tr("playing")
        case "paused": return tr("paused")
        case "stopped": return tr("stopped")
        case "idle": return tr("idle")
        case "error": return tr("gave up")
        default: return state
        }
    }

    /// What a screen reader says the picture is.
    public var artworkDescription: String {
        guard artworkPath != nil else { return tr("No artwork yet") }
        switch artworkType {
        case "cover": return tr("Cover of this track")
        case "station-logo": return tr("Station logo")
        default: return tr("No cover for this track")
        }
    }

    /// "sleep 29:59", "sleep after track"; nil without a sleep timer.
    public func sleepText(now: Double) -> String? {
        switch sleep {
        case nil: return nil
        case .afterTrack: return tr("sleep after track")
        case let .at(deadline): return tr("sleep {time}", ["time": TimeText.minutesSeconds(max(0, Int((deadline - now).rounded(.up))))])
        }
    }

    /// Whether the window has something that counts down each second.
    public var isCountingDown: Bool {
        if reconnect != nil { return true }
        if timeshift != nil, state == "paused" { return true }
        if case .at = sleep { return true }
        return false
    }

    /// The error and what to do about it, on two lines; nil without an error.
    public var problemText: String? {
        let problem = playerGone ? lastProblem : errorMessage.map { Problem(message: $0, suggestion: errorSuggestion) }
        guard let problem, !problem.message.isEmpty else { return nil }
        guard let suggestion = problem.suggestion, !suggestion.isEmpty else { return problem.message }
        return problem.message + "\n" + suggestion
    }

    /// The local time of day, "14:05".
    public static func localClock() -> String {
        TimeText.local(Date(), "HH:mm")
    }

    static func checkedColour(_ text: String) -> String? {
        let hex = text.dropFirst()
        guard text.first == "#", hex.count == 6, hex.allSatisfy(\.isHexDigit) else { return nil }
        return text
    }
}
