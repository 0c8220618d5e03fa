import OtonPluginKit

/// The sleep timer's decisions, free of threads and clocks so that every
/// rule can be tested: the plugin feeds it monotonic time and events and
/// carries out the effects it returns.
public struct SleepTimerModel: Sendable {
    /// What happens when the fade is over: stop or pause playback, or end oton (exit 0).
    public enum Action: String, Sendable, CaseIterable { case stop, pause, quit }

    public struct Settings: Sendable, Equatable {
        public var fadeMilliseconds: Int
        public var action: Action
        public var presetsMinutes: [Int]

        public init(fadeMilliseconds: Int = 10_000, action: Action = .stop, presetsMinutes: [Int] = [5, 10, 15, 30, 45, 60]) {
            self.fadeMilliseconds = fadeMilliseconds
            self.action = action
            self.presetsMinutes = presetsMinutes
        }
    }

    public enum Mode: Equatable, Sendable {
        case off
        /// Fires when the monotonic clock reaches `deadline` (nanoseconds).
        case duration(deadline: Int64, seconds: Int)
        /// Fires when the track with sequence `track` gives way to the next sequence (a track or a break);
        /// nil until a track is heard (set before the first title or during a break).
        case afterTrack(track: UInt64?)
        /// Fired: fading out, then the action.
        case fading
    }

    public enum Effect: Equatable, Sendable {
        /// Publish org.oton.sleep.set with these fields.
        case announceSet(seconds: Int?, mode: String)
        case announceCancelled
        case announceFired
        /// Arm the one timer for `nanoseconds` from now (replacing any armed one), or disarm with nil.
        case arm(nanoseconds: Int64?)
        /// Fade the volume to 0 over the fade time, then call `fadeFinished`.
        case fadeOut(milliseconds: Int)
        /// Stop or pause, then put the volume back to what it was before the fade.
        case finish(Action, restoreVolume: Double)
        /// Put the volume back (a fade was cancelled).
        case restoreVolume(Double)
    }

    public let settings: Settings
    public private(set) var mode: Mode = .off
    /// The volume before the fade started, restored for the next play.
    public private(set) var volume: Double = 1.0
    /// The sequence of the track heard now; nil before the first one and during a break.
    private var currentTrack: UInt64?

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    public var isActive: Bool { mode != .off }

    /// A timer of `seconds`: the sound is gone at the time set, so the fade starts that much earlier
    /// (`sleep 30s` with a 10 s fade ends at 0:30, not 0:40; a timer shorter than the fade fades over all of it).
    public mutating func set(seconds: Int, now: Int64) -> [Effect] {
        mode = .duration(deadline: now + Int64(seconds) * 1_000_000_000, seconds: seconds)
        return [
            .arm(nanoseconds: Int64(seconds) * 1_000_000_000 - fadeNanoseconds(within: Int64(seconds) * 1_000_000_000)),
            .announceSet(seconds: seconds, mode: "duration"),
        ]
    }

    /// The fade, shortened to what is left when less is.
    private func fadeNanoseconds(within left: Int64) -> Int64 {
        max(0, min(Int64(settings.fadeMilliseconds) * 1_000_000, left))
    }

    public mutating func setAfterTrack() -> [Effect] {
        mode = .afterTrack(track: currentTrack)
        return [.arm(nanoseconds: nil), .announceSet(seconds: nil, mode: "after-track")]
    }

    public mutating func cancel() -> [Effect] {
        guard mode != .off else { return [] }
        let wasFading = mode == .fading
        mode = .off
        // Cancelling during the fade brings the volume back at once.
        return [.arm(nanoseconds: nil), .announceCancelled] + (wasFading ? [.restoreVolume(volume)] : [])
    }

    /// The next preset after the current setting: off → 5 → 10 → … → 60 → off.
    public mutating func cycle(now: Int64) -> [Effect] {
        let currentMinutes: Int? = if case let .duration(_, seconds) = mode { seconds / 60 } else { nil }
        let next = settings.presetsMinutes.first { currentMinutes == nil || $0 > currentMinutes! }
        guard let minutes = next, !(currentMinutes == settings.presetsMinutes.last) else { return cancel() }
        return set(seconds: minutes * 60, now: now)
    }

    /// The armed timer went off (monotonic `now`).
    public mutating func timerFired(now: Int64) -> [Effect] {
        guard case let .duration(deadline, seconds) = mode else { return [] }
        let fadeStart = deadline - fadeNanoseconds(within: Int64(seconds) * 1_000_000_000)
        guard now >= fadeStart else { return [.arm(nanoseconds: fadeStart - now)] }  // early wake: re-arm
        return fire(fadeMilliseconds: Int(fadeNanoseconds(within: Int64(seconds) * 1_000_000_000) / 1_000_000))
    }

    /// A track event. The host numbers heard tracks: a new `sequence` if and only if the heard track
    /// changed (title, artist, or a break began), so the same track announced again with a station name,
    /// artwork or bitrate added keeps its number and is no change. `heard`: the event names a track (a
    /// title, artist or raw title, and no `break` field); a break or an untitled event does not.
    public mutating func trackChanged(sequence: UInt64, heard: Bool) -> [Effect] {
        let previous = currentTrack
        if heard { currentTrack = sequence } else if sequence != previous { currentTrack = nil }
        guard case let .afterTrack(startedOn) = mode else { return [] }
        // Set before any track was heard (or during a break): the first one heard is the one to finish.
        guard let startedOn else {
            if heard { mode = .afterTrack(track: sequence) }
            return []
        }
        return sequence == startedOn ? [] : fire()
    }

    /// `trackChanged(sequence:heard:)` from a track event's text fields.
    public mutating func trackChanged(fields: [String: String]) -> [Effect] {
        guard let track = TrackFields(fields: fields) else { return [] }
        return trackChanged(sequence: track.sequence, heard: track.namesSomething && !track.isBreak)
    }

    public mutating func volumeChanged(_ value: Double) {
        if mode != .fading { volume = value }
    }

    public mutating func fadeFinished() -> [Effect] {
        guard mode == .fading else { return [] }
        mode = .off
        return [.finish(settings.action, restoreVolume: volume)]
    }

    /// Seconds left, for a duration timer.
    public func remainingSeconds(now: Int64) -> Int? {
        guard case let .duration(deadline, _) = mode else { return nil }
        return Int(max(0, (deadline - now + 999_999_999) / 1_000_000_000))
    }

    private mutating func fire(fadeMilliseconds: Int? = nil) -> [Effect] {
        mode = .fading
        return [.arm(nanoseconds: nil), .announceFired, .fadeOut(milliseconds: fadeMilliseconds ?? settings.fadeMilliseconds)]
    }
}
