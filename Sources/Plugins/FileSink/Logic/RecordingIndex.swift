import FoundationEssentials

/// The JSON index of a recording folder: one entry per track file. While
/// recording, each change to a track is one line appended to a journal beside
/// it (JSON lines, later lines replace earlier ones with the same session and
/// id); the journal is merged into the index (replaced atomically) when a
/// recording starts and stops, and whenever it has grown past the index.
public struct RecordingIndex: Codable, Equatable, Sendable {
    public struct Track: Codable, Equatable, Sendable {
        public enum Status: String, Codable, Sendable {
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

        enum CodingKeys: String, CodingKey {
            case id, session, status, file, title, artist, station, streamURL = "stream_url", sequence, connection, started
            case sessionSeconds = "session_seconds", streamOffset = "stream_offset", bytes, seconds
        }

        public init(id: Int, session: String, status: Status, file: String?, title: String?, artist: String?, station: String?,
                    streamURL: String? = nil, sequence: UInt64?, connection: UInt64, started: String, sessionSeconds: Double, streamOffset: UInt64,
                    bytes: UInt64 = 0, seconds: Double = 0) {
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

    enum CodingKeys: String, CodingKey {
        case version, streamURL = "stream_url", tracks
    }

    public init(streamURL: String? = nil, tracks: [Track] = []) {
        self.streamURL = streamURL
        self.tracks = tracks
    }

    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    public static func decode(_ data: Data) throws -> RecordingIndex {
        try JSONDecoder().decode(RecordingIndex.self, from: data)
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
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line = try encoder.encode(track)
        line.append(0x0A)
        return line
    }

    /// Applies a journal's lines in order, each replacing the entry with its session and id (or
    /// appended). Lines that are not a track (cut short when a recorder was killed mid-write) are
    /// skipped; returns how many. Linear in the index plus the journal.
    public mutating func apply(journal: Data) -> Int {
        var position: [String: Int] = [:]
        for (offset, track) in tracks.enumerated() { position[Self.key(track)] = offset }
        var skipped = 0
        let decoder = JSONDecoder()
        for line in journal.split(separator: 0x0A, omittingEmptySubsequences: true) {
            guard let track = try? decoder.decode(Track.self, from: Data(line)) else {
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

    private static func key(_ track: Track) -> String { "\(track.session)\u{0}\(track.id)" }

    public mutating func upsert(_ track: Track) {
        if let index = tracks.lastIndex(where: { $0.id == track.id && $0.session == track.session }) {
            tracks[index] = track
        } else {
            tracks.append(track)
        }
    }
}
