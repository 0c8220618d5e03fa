import FoundationEssentials
import OtonJSON
import OtonPluginKit
import PluginAPI

/// What the page shows, built only from bus events (the plugin's view of the player). Pure: it
/// takes event names and fields, and renders JSON for a given monotonic time. `version` grows on
/// every change, so the server knows which clients are behind.
public struct RemoteState: Sendable, Equatable {
    public static let historyLimit = 20

    public struct HistoryEntry: Sendable, Equatable {
        public var title: String
        public var artist: String
        public var station: String
        public var wallMilliseconds: Int64

        public init(title: String, artist: String, station: String, wallMilliseconds: Int64) {
            self.title = title
            self.artist = artist
            self.station = station
            self.wallMilliseconds = wallMilliseconds
        }
    }

    /// A station of the list `oton ctl stations` gives.
    public struct StationEntry: Sendable, Equatable {
        public var number: Int
        public var name: String
        public var isCurrent: Bool

        public init(number: Int, name: String, isCurrent: Bool) {
            self.number = number
            self.name = name
            self.isCurrent = isCurrent
        }
    }

    /// What the UPnP plugin casts (`org.oton.cast.state` with state "casting"); nil otherwise.
    public struct Cast: Sendable, Equatable {
        public var renderer: String
        public var url: String
    }

    /// Loudness levelling as `oton ctl level` last said it.
    /// Timeshift (docs/timeshift.md) as `status` last said it: how far behind live, how much is held.
    public struct Timeshift: Sendable, Equatable {
        public var behindMilliseconds: Int
        public var heldMilliseconds: Int

        public init(behindMilliseconds: Int, heldMilliseconds: Int) {
            self.behindMilliseconds = behindMilliseconds
            self.heldMilliseconds = heldMilliseconds
        }
    }

    public struct Level: Sendable, Equatable {
        public var enabled: Bool
        /// The levelling gain (dB), when a connection measures.
        public var gainDB: Double?

        public init(enabled: Bool, gainDB: Double?) {
            self.enabled = enabled
            self.gainDB = gainDB
        }
    }

    public struct Sleep: Sendable, Equatable {
        public var mode: String
        public var action: String
        /// Monotonic deadline for a duration timer; nil for after-track.
        public var deadlineNanoseconds: Int64?
    }

    public private(set) var version: UInt64 = 0
    public private(set) var state = "idle"
    public private(set) var bufferingPercent: Int?
    public private(set) var errorMessage: String?
    public private(set) var errorSuggestion: String?
    public private(set) var sequence: UInt64 = 0
    public private(set) var isBreak = false
    public private(set) var title = ""
    public private(set) var artist = ""
    public private(set) var station = ""
    public private(set) var volume: Double = 1
    /// The artwork file, served by the plugin; never sent to the page.
    public private(set) var artworkPath: String?
    public private(set) var artworkVersion: UInt64 = 0
    public private(set) var artworkType = ""
    public private(set) var color: String?
    public private(set) var sleep: Sleep?
    /// nil until `level` answered (and for good where oton does not level).
    public private(set) var level: Level?
    public private(set) var cast: Cast?
    public private(set) var shareText: String?
    public private(set) var shareLinks: [String] = []
    public private(set) var history: [HistoryEntry] = []
    public private(set) var stations: [StationEntry] = []
    /// The last command the page asked for that failed (e.g. no sleep timer plugin), for the page to say.
    public private(set) var notice: String?

    public init() {}

    /// The station list from `oton ctl stations` (its reply's data), current one marked.
    public mutating func setStations(_ list: [StationEntry]) {
        guard list != stations else { return }
        stations = list
        version += 1
    }

    /// Tracks heard before this page's plugin started (the history plugin's `history --format json`),
    /// after those it saw itself; an entry both know (same title and artist within two minutes) is kept once.
    public mutating func addEarlierHistory(_ earlier: [HistoryEntry]) {
        let known = history
        let older = earlier.filter { entry in
            !known.contains { $0.title == entry.title && $0.artist == entry.artist && abs($0.wallMilliseconds - entry.wallMilliseconds) < 120_000 }
        }
        guard !older.isEmpty else { return }
        history = Array((known + older).sorted { $0.wallMilliseconds > $1.wallMilliseconds }.prefix(Self.historyLimit))
        version += 1
    }

    /// nil: no timeshift here (the page shows no "behind live").
    public private(set) var timeshift: Timeshift?

    public mutating func setTimeshift(_ value: Timeshift?) {
        guard value != timeshift else { return }
        timeshift = value
        version += 1
    }

    /// Levelling as the `level` command said it.
    public mutating func setLevel(_ value: Level?) {
        guard value != level else { return }
        level = value
        version += 1
    }

    /// Says (or with nil, stops saying) why the last command failed.
    public mutating func setNotice(_ text: String?) {
        guard text != notice else { return }
        notice = text
        version += 1
    }

    /// Applies one event; returns whether anything the page shows changed.
    @discardableResult
    public mutating func apply(name: String, fields: [String: String], monotonicNanoseconds: Int64, wallMicroseconds: Int64) -> Bool {
        // Compared as values, not as rendered JSON: rendering twice per event made an event storm
        // cost the plugin 12 ms an event (debug build) and drop half of it.
        let before = self
        switch name {
        case "state":
            let info = StateFields(fields: fields)
            state = info?.state ?? state
            bufferingPercent = info?.bufferingPercent
            errorMessage = state == "error" ? info?.errorMessage : nil
            errorSuggestion = state == "error" ? info?.errorSuggestion : nil
        case "track":
            applyTrack(fields, wallMicroseconds: wallMicroseconds)
        case "volume":
            if let value = VolumeFields(fields: fields) { volume = value.volume }
        case "org.oton.artwork.ready":
            artworkPath = fields[OTON_FIELD_PATH].flatMap { $0.isEmpty ? nil : $0 }
            artworkType = fields[OTON_FIELD_TYPE] ?? ""
            color = fields[OTON_FIELD_COLOR].flatMap(Self.validColor)
            artworkVersion += 1
        case "org.oton.sleep.set":
            let mode = fields[OTON_FIELD_MODE] ?? "duration"
            let seconds = fields[OTON_FIELD_SECONDS].flatMap(Int64.init)
            sleep = Sleep(
                mode: mode, action: fields[OTON_FIELD_ACTION] ?? "stop",
                deadlineNanoseconds: seconds.map { monotonicNanoseconds + $0 * 1_000_000_000 })
        case "org.oton.sleep.cancelled", "org.oton.sleep.fired":
            sleep = nil
        case "org.oton.cast.state":
            cast = fields[OTON_FIELD_STATE] == "casting" ? Cast(renderer: fields[OTON_FIELD_RENDERER] ?? "", url: fields[OTON_FIELD_URL] ?? "") : nil
        case "org.oton.share":
            shareText = fields[OTON_FIELD_TEXT]
            shareLinks = (fields[OTON_FIELD_LINKS] ?? "").split(separator: "\n").map(String.init)
        default:
            return false
        }
        let changed = self != before || name == "org.oton.artwork.ready"
        if changed { version += 1 }
        return changed
    }

    private mutating func applyTrack(_ fields: [String: String], wallMicroseconds: Int64) {
        let track = TrackFields(fields: fields)
        if let value = track?.station { station = value }
        let newSequence = track?.sequence ?? sequence
        isBreak = track?.isBreak ?? false
        // A new sequence without a title (a break, or another station that has named nothing yet) ends the song.
        let ended = isBreak || newSequence != sequence
        title = track?.title ?? (ended ? "" : title)
        artist = track?.artist ?? (ended ? "" : artist)
        if newSequence != sequence {
            sequence = newSequence
            if !isBreak, !title.isEmpty || !artist.isEmpty {
                history.insert(
                    HistoryEntry(
                        title: title, artist: artist, station: station,
                        wallMilliseconds: wallMicroseconds / 1000), at: 0)
                if history.count > Self.historyLimit { history.removeLast(history.count - Self.historyLimit) }
            }
        }
    }

    /// "#RRGGBB" only: the value ends up in CSS.
    static func validColor(_ text: String) -> String? {
        let hex = text.dropFirst()
        guard text.first == "#", hex.count == 6, hex.allSatisfy(\.isHexDigit) else { return nil }
        return text
    }

    /// The state as the page's JSON (keys sorted, so equal states render equal text).
    public func render(monotonicNow: Int64) -> String {
        var object: [String: JSONValue] = [
            "version": .number(JSONNumber(version)),
            "state": .string(state),
            "title": .string(title),
            "artist": .string(artist),
            "station": .string(station),
            "break": .bool(isBreak),
            "sequence": .number(JSONNumber(sequence)),
            "volume": .number((volume * 1000).rounded() / 1000),
            "history": .array(
                history.map {
                    [
                        "title": .string($0.title), "artist": .string($0.artist), "station": .string($0.station),
                        "time": .number(JSONNumber($0.wallMilliseconds)),
                    ]
                }),
            "share": ["text": .string(shareText ?? ""), "links": .strings(shareLinks)],
            "stations": .array(stations.map { ["number": .int($0.number), "name": .string($0.name), "current": .bool($0.isCurrent)] }),
        ]
        if let notice { object["notice"] = .string(notice) }
        if let bufferingPercent { object["buffering_percent"] = .int(bufferingPercent) }
        if state == "error" {
            object["error"] = ["message": .string(errorMessage ?? "playback failed"), "suggestion": .string(errorSuggestion ?? "")]
        }
        if artworkPath != nil {
            object["artwork"] = ["version": .number(JSONNumber(artworkVersion)), "type": .string(artworkType)]
        }
        if let color { object["color"] = .string(color) }
        if let level {
            var entry: [String: JSONValue] = ["enabled": .bool(level.enabled)]
            if let gain = level.gainDB { entry["gain_db"] = .number((gain * 10).rounded() / 10) }
            object["level"] = .object(entry)
        }
        if let timeshift {
            object["timeshift"] = ["behind_live_ms": .int(timeshift.behindMilliseconds), "held_ms": .int(timeshift.heldMilliseconds)]
        }
        if let cast { object["cast"] = ["renderer": .string(cast.renderer), "url": .string(cast.url)] }
        if let sleep {
            var entry: [String: JSONValue] = ["mode": .string(sleep.mode), "action": .string(sleep.action)]
            if let deadline = sleep.deadlineNanoseconds {
                entry["remaining_seconds"] = .int(max(0, Int((deadline - monotonicNow + 999_999_999) / 1_000_000_000)))
            }
            object["sleep"] = .object(entry)
        }
        return JSONValue.object(object).jsonText
    }
}
