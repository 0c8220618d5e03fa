import Foundation

/// The JSON index of a recording folder: one entry per track file, kept up
/// to date while recording (the file is replaced atomically on every change).
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

    public mutating func upsert(_ track: Track) {
        if let index = tracks.lastIndex(where: { $0.id == track.id && $0.session == track.session }) {
            tracks[index] = track
        } else {
            tracks.append(track)
        }
    }
}
