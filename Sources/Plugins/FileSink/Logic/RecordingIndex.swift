import FoundationEssentials
import OtonJSON

/// The JSON index of a recording folder: one entry per track file. While
/// recording, each change to a track is one line appended to a journal beside
/// it (JSON lines, later lines replace earlier ones with the same session and
/// id); the journal is merged into the index (replaced atomically) when a
/// recording starts and stops, and whenever it has grown past the index.
public struct RecordingIndex: Equatable, Sendable {
    public struct Track: Equatable, Sendable {
        public enum Status: String, Sendable {
            /// Being written; `file` is the .part.
            case recording
            case complete
            /// Began or ended mid-track (session start or end, reconnect, lost data, stop).
            case incomplete
            /// Shorter than the minimum, or an incomplete one with `partial: drop`.
            case dropped
            /// Writing failed; `file` is what is left.
            case failed
            /// The process recording it ended without finishing it (kill -9, a crash, power loss);
            /// `file` is the .part it left. Set by the next recording into the same folder.
            case interrupted
        }

        public var id: Int
        public var session: String
        public var status: Status
        /// Relative to the output folder.
        public var file: String?
        public var title: String?
        public var artist: String?
        public var station: String?
        /// Where the title came from (stream, station-api, provider:<rule>, recognised).
        public var titleSource: String?
        /// The stream recorded (several stations may share one folder and index).
        public var streamURL: String?
        public var sequence: UInt64?
        public var connection: UInt64
        /// Wall-clock time when the track's first byte was received (ISO 8601, UTC).
        public var started: String
        /// Seconds since the session began.
        public var sessionSeconds: Double
        /// Bytes of the connection's stream received before the track's first byte.
        public var streamOffset: UInt64
        public var bytes: UInt64
        public var seconds: Double

        public init(
            id: Int, session: String, status: Status, file: String?, title: String?, artist: String?, station: String?,
            streamURL: String? = nil, sequence: UInt64?, connection: UInt64, started: String, sessionSeconds: Double, streamOffset: UInt64,
            bytes: UInt64 = 0, seconds: Double = 0
        ) {
            self.id = id
            self.session = session
            self.status = status
            self.file = file
            self.title = title
            self.artist = artist
            self.station = station
            self.streamURL = streamURL
            self.sequence = sequence
            self.connection = connection
            self.started = started
            self.sessionSeconds = sessionSeconds
            self.streamOffset = streamOffset
            self.bytes = bytes
            self.seconds = seconds
        }
    }

    public var version = 1
    public var streamURL: String?
    public var tracks: [Track] = []

    public init(streamURL: String? = nil, tracks: [Track] = []) {
        self.streamURL = streamURL
        self.tracks = tracks
    }

    /// The largest index read (a folder of many thousand tracks stays far below it).
    public static let maximumBytes = 256 << 20

    /// Not an index: what `decode` throws.
    public struct Unreadable: Error, Equatable {}

    /// The index as JSON for people and tools: indented, sorted keys (OtonJSON, as every JSON oton writes).
    public func encoded() throws -> Data {
        var members: [String: JSONValue] = ["version": .int(version), "tracks": .array(tracks.map(\.json))]
        if let streamURL { members["stream_url"] = .string(streamURL) }
        return Data(JSONValue.object(members).prettyJSONText.utf8)
    }

    public static func decode(_ data: Data) throws -> RecordingIndex {
        guard let value = try? JSONValue.parse(data, maxBytes: maximumBytes), let version = value["version"]?.int64Value,
            let list = value["tracks"]?.arrayValue
        else { throw Unreadable() }
        var index = RecordingIndex(streamURL: value["stream_url"]?.stringValue)
        index.version = Int(version)
        for item in list {
            guard let track = Track(json: item) else { throw Unreadable() }
            index.tracks.append(track)
        }
        return index
    }

    /// The process id in a session name ("2026-11-21T07:00:00Z-4711"), if any.
    public static func processID(ofSession session: String) -> Int32? {
        session.split(separator: "-").last.flatMap { Int32($0) }
    }

    /// Marks `recording` entries of other sessions whose process is gone as interrupted. True when any changed.
    public mutating func markInterrupted(except session: String, isAlive: (Int32) -> Bool) -> Bool {
        var changed = false
        for index in tracks.indices where tracks[index].status == .recording && tracks[index].session != session {
            guard let pid = Self.processID(ofSession: tracks[index].session), !isAlive(pid) else { continue }
            tracks[index].status = .interrupted
            changed = true
        }
        return changed
    }

    /// One journal line: the track's newest state as compact JSON, ending in a newline.
    public static func journalLine(_ track: Track) throws -> Data {
        Data((track.json.jsonText + "\n").utf8)
    }

    /// Applies a journal's lines in order, each replacing the entry with its session and id (or
    /// appended). Lines that are not a track (cut short when a recorder was killed mid-write) are
    /// skipped; returns how many. Linear in the index plus the journal.
    public mutating func apply(journal: Data) -> Int {
        var position: [String: Int] = [:]
        for (offset, track) in tracks.enumerated() { position[Self.key(track)] = offset }
        var skipped = 0
        for line in journal.split(separator: 0x0A, omittingEmptySubsequences: true) {
            guard let value = try? JSONValue.parse(Data(line)), let track = Track(json: value) else {
                skipped += 1
                continue
            }
            if let offset = position[Self.key(track)] {
                tracks[offset] = track
            } else {
                position[Self.key(track)] = tracks.count
                tracks.append(track)
            }
        }
        return skipped
    }

    /// Removes the entries of dropped tracks: they name no file, and a station that changes titles
    /// every few KB would otherwise grow the index by one entry per piece (issue 39, N1: 98,511 entries,
    /// 42.6 MB, in 120 s). Their `recording.finished` event still says why each was dropped.
    public mutating func forgetDropped() {
        tracks.removeAll { $0.status == .dropped }
    }

    private static func key(_ track: Track) -> String { "\(track.session)\u{0}\(track.id)" }

    public mutating func upsert(_ track: Track) {
        if let index = tracks.lastIndex(where: { $0.id == track.id && $0.session == track.session }) {
            tracks[index] = track
        } else {
            tracks.append(track)
        }
    }
}

extension RecordingIndex.Track {
    /// The entry as JSON: absent values are left out.
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "id": .int(id), "session": .string(session), "status": .string(status.rawValue),
            "connection": .number(JSONNumber(connection)), "started": .string(started),
            "session_seconds": .number(sessionSeconds), "stream_offset": .number(JSONNumber(streamOffset)),
            "bytes": .number(JSONNumber(bytes)), "seconds": .number(seconds),
        ]
        if let file { members["file"] = .string(file) }
        if let title { members["title"] = .string(title) }
        if let artist { members["artist"] = .string(artist) }
        if let station { members["station"] = .string(station) }
        if let streamURL { members["stream_url"] = .string(streamURL) }
        if let titleSource { members["title_source"] = .string(titleSource) }
        if let sequence { members["sequence"] = .number(JSONNumber(sequence)) }
        return .object(members)
    }

    /// An entry read back; nil when a required value is missing or of another type.
    init?(json: JSONValue) {
        guard let id = json["id"]?.int64Value, let session = json["session"]?.stringValue,
            let status = json["status"]?.stringValue.flatMap(Status.init(rawValue:)),
            let connection = json["connection"]?.uint64Value, let started = json["started"]?.stringValue,
            let sessionSeconds = json["session_seconds"]?.numberValue, let streamOffset = json["stream_offset"]?.uint64Value
        else { return nil }
        func text(_ key: String) -> String? { json[key]?.stringValue }
        self.init(
            id: Int(id), session: session, status: status, file: text("file"), title: text("title"), artist: text("artist"),
            station: text("station"), streamURL: text("stream_url"), sequence: json["sequence"]?.uint64Value,
            connection: connection, started: started, sessionSeconds: sessionSeconds, streamOffset: streamOffset,
            bytes: json["bytes"]?.uint64Value ?? 0, seconds: json["seconds"]?.numberValue ?? 0)
        titleSource = text("title_source")
    }
}
