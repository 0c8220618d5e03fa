import Foundation
import OtonPluginKit

/// What is known of a track when it starts (or when more of it arrives).
public struct PlayStart: Equatable, Sendable {
    public var sequence: UInt64
    public var station: String?
    public var artist: String?
    public var title: String?
    public var rawTitle: String?
    public var streamURL: String?
    /// Seconds, when the source knows it (a file); nil for live radio.
    public var durationSeconds: Double?
    /// Unix time in microseconds (wall clock) when the track started.
    public var startedAtMicroseconds: Int64
    public var isJingle: Bool
    /// Where the title came from (the track's `title_source`: stream, station-api, provider:<rule>,
    /// recognised); nil from an older host.
    public var titleSource: String?

    public init(
        sequence: UInt64, station: String? = nil, artist: String? = nil, title: String? = nil, rawTitle: String? = nil,
        streamURL: String? = nil, durationSeconds: Double? = nil, startedAtMicroseconds: Int64, isJingle: Bool = false,
        titleSource: String? = nil
    ) {
        self.sequence = sequence
        self.station = station
        self.artist = artist
        self.title = title
        self.rawTitle = rawTitle
        self.streamURL = streamURL
        self.durationSeconds = durationSeconds
        self.startedAtMicroseconds = startedAtMicroseconds
        self.isJingle = isJingle
        self.titleSource = titleSource
    }
}

/// How a track ended.
public struct PlayEnd: Equatable, Sendable {
    public var start: PlayStart
    public var endedAtMicroseconds: Int64
    public var secondsListened: Double
    /// True when a new title replaced it; false when playback stopped or failed.
    public var endedByTitleChange: Bool

    public init(start: PlayStart, endedAtMicroseconds: Int64, secondsListened: Double, endedByTitleChange: Bool) {
        self.start = start
        self.endedAtMicroseconds = endedAtMicroseconds
        self.secondsListened = secondsListened
        self.endedByTitleChange = endedByTitleChange
    }
}

/// Follows track and state events and says when a track starts and ends.
/// A new `sequence` is a new track; stopped, idle and error end the current
/// one. A break (the field `break` = "1": an ad, a jingle, an empty title) ends
/// the current track and is not a play itself, so it is never recorded or
/// scrobbled. Seconds listened count monotonic time spent outside pause.
public struct ListeningTracker: Sendable {
    public enum Effect: Equatable, Sendable {
        case started(PlayStart)
        /// The same track, with more known (e.g. the station name arrived alone).
        case updated(PlayStart)
        case ended(PlayEnd)
    }

    public var jingles: JingleDetector
    public private(set) var current: PlayStart?
    private var lastSequence: UInt64?
    private var listenedNanoseconds: Int64 = 0
    /// Monotonic time since which the current track has been heard, nil while paused.
    private var runningSince: Int64?
    private var paused = false

    public init(jingles: JingleDetector = JingleDetector()) {
        self.jingles = jingles
    }

    /// A track event: its fields, monotonic and wall timestamps.
    public mutating func track(fields: [String: String], monoNanoseconds: Int64, wallMicroseconds: Int64) -> [Effect] {
        guard let track = TrackFields(fields: fields) else { return [] }
        let sequence = track.sequence
        if track.isBreak {
            lastSequence = sequence
            guard current != nil, current?.sequence != sequence,
                let ended = end(monoNanoseconds: monoNanoseconds, wallMicroseconds: wallMicroseconds, byTitleChange: true)
            else { return [] }
            return [.ended(ended)]
        }
        var start = PlayStart(
            sequence: sequence, station: track.station, artist: track.artist,
            title: track.title, rawTitle: track.rawTitle, streamURL: track.streamURL,
            durationSeconds: track.durationSeconds,
            startedAtMicroseconds: wallMicroseconds, titleSource: track.titleSource)
        start.isJingle = jingles.isJingle(title: start.title, rawTitle: start.rawTitle, station: start.station)
        if var existing = current, existing.sequence == sequence {
            existing.station = start.station ?? existing.station
            existing.artist = start.artist ?? existing.artist
            existing.title = start.title ?? existing.title
            existing.rawTitle = start.rawTitle ?? existing.rawTitle
            existing.streamURL = start.streamURL ?? existing.streamURL
            existing.durationSeconds = start.durationSeconds ?? existing.durationSeconds
            // The same heard track may change hands (the station's website named it, then the stream did).
            existing.titleSource = start.titleSource ?? existing.titleSource
            existing.isJingle = jingles.isJingle(title: existing.title, rawTitle: existing.rawTitle, station: existing.station)
            guard existing != current else { return [] }
            current = existing
            return [.updated(existing)]
        }
        // Nothing to show (e.g. only the station name arrived): no track is heard, and the one before ended.
        if start.title == nil && start.rawTitle == nil {
            if current != nil, current?.sequence != sequence,
                let ended = end(monoNanoseconds: monoNanoseconds, wallMicroseconds: wallMicroseconds, byTitleChange: true)
            {
                return [.ended(ended)]
            }
            return []
        }
        // A replayed or repeated old sequence after the track ended is not a new track.
        if current == nil, let lastSequence, sequence == lastSequence { return [] }
        var effects: [Effect] = []
        if let ended = end(monoNanoseconds: monoNanoseconds, wallMicroseconds: wallMicroseconds, byTitleChange: true) {
            effects.append(.ended(ended))
        }
        current = start
        lastSequence = sequence
        listenedNanoseconds = 0
        runningSince = paused ? nil : monoNanoseconds
        effects.append(.started(start))
        return effects
    }

    /// A state event by its field text ("playing", "paused", "stopped", …).
    public mutating func state(_ name: String, monoNanoseconds: Int64, wallMicroseconds: Int64) -> [Effect] {
        switch name {
        case "stopped", "idle", "error":
            paused = false
            if let ended = end(monoNanoseconds: monoNanoseconds, wallMicroseconds: wallMicroseconds, byTitleChange: false) {
                return [.ended(ended)]
            }
        case "paused":
            paused = true
            if let since = runningSince {
                listenedNanoseconds += max(0, monoNanoseconds - since)
                runningSince = nil
            }
        case "playing", "buffering", "connecting":
            paused = false
            if current != nil, runningSince == nil { runningSince = monoNanoseconds }
        default:
            break
        }
        return []
    }

    private mutating func end(monoNanoseconds: Int64, wallMicroseconds: Int64, byTitleChange: Bool) -> PlayEnd? {
        guard let start = current else { return nil }
        if let since = runningSince { listenedNanoseconds += max(0, monoNanoseconds - since) }
        let result = PlayEnd(
            start: start, endedAtMicroseconds: wallMicroseconds,
            secondsListened: Double(listenedNanoseconds) / 1e9, endedByTitleChange: byTitleChange)
        current = nil
        runningSince = nil
        listenedNanoseconds = 0
        return result
    }
}

extension Optional where Wrapped == String {
    var nonEmpty: String? {
        guard let self else { return nil }
        let trimmed = self.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : self
    }
}
