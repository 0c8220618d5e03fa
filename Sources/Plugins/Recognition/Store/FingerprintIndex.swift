import Foundation
import GRDB
import RecognitionLogic

/// recognition.sqlite through GRDB, as the History plugin keeps history.sqlite: the songs heard
/// with a title (their fingerprint frames in one blob) and, for the matcher, where each frame's
/// lookup key occurs. Capped at `maxFrames` frames in all: each song added past the cap pushes
/// out the oldest (a song heard again counts as new). Used from one thread at a time.
public final class FingerprintIndex: FingerprintSource {
    public let path: String
    public let maxFrames: Int
    private let queue: DatabaseQueue

    public init(path: String, maxFrames: Int) throws {
        self.path = path
        self.maxFrames = maxFrames
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "org.oton.recognition"
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try Self.migrator.migrate(queue)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: songs and postings") { db in
            try db.create(table: "songs") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("artist", .text)
                table.column("title", .text).notNull()
                table.column("station", .text)
                table.column("added_at", .integer).notNull()  // Unix seconds; the oldest goes first
                table.column("frame_count", .integer).notNull()
                table.column("frames", .blob).notNull()  // little-endian UInt32 frames
            }
            try db.create(index: "songs_added_at", on: "songs", columns: ["added_at", "id"])
            try db.create(index: "songs_title", on: "songs", columns: ["title", "artist"])
            try db.create(table: "postings", options: [.withoutRowID]) { table in
                table.column("key", .integer).notNull()
                table.column("song", .integer).notNull()
                table.column("position", .integer).notNull()
                table.primaryKey(["key", "song", "position"])
            }
        }
        return migrator
    }

    /// Keeps `frames` as `song`. A song already kept with at least as many frames is only marked
    /// as heard now. Returns the songs pushed out by the cap.
    @discardableResult
    public func add(_ song: TitledSong, frames: [UInt32], now: Date = Date()) throws -> Int {
        let seconds = Int64(now.timeIntervalSince1970)
        return try queue.write { db in
            let existing = try Row.fetchOne(
                db, sql: "SELECT id, frame_count FROM songs WHERE title = ? AND artist IS ?", arguments: [song.title, song.artist])
            if let existing {
                if (existing["frame_count"] as Int) >= frames.count {
                    try db.execute(sql: "UPDATE songs SET added_at = ? WHERE id = ?", arguments: [seconds, existing["id"] as Int64])
                    return 0
                }
                try Self.remove(existing["id"], db: db)
            }
            try db.execute(
                sql: "INSERT INTO songs (artist, title, station, added_at, frame_count, frames) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [song.artist, song.title, song.station, seconds, frames.count, Self.blob(frames)])
            let id = db.lastInsertedRowID
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO postings (key, song, position) VALUES (?, ?, ?)")
            for (position, frame) in frames.enumerated() {
                try insert.execute(arguments: [Int64(FingerprintMatcher.key(frame)), id, position])
            }
            var evicted = 0
            while (try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(frame_count), 0) FROM songs") ?? 0) > maxFrames,
                let oldest = try Int64.fetchOne(db, sql: "SELECT id FROM songs WHERE id != ? ORDER BY added_at, id LIMIT 1", arguments: [id])
            {
                try Self.remove(oldest, db: db)
                evicted += 1
            }
            return evicted
        }
    }

    private static func remove(_ id: Int64, db: Database) throws {
        guard let data = try Data.fetchOne(db, sql: "SELECT frames FROM songs WHERE id = ?", arguments: [id]) else { return }
        let delete = try db.cachedStatement(sql: "DELETE FROM postings WHERE key = ? AND song = ?")
        for key in Set(frames(data).map(FingerprintMatcher.key)) { try delete.execute(arguments: [Int64(key), id]) }
        try db.execute(sql: "DELETE FROM songs WHERE id = ?", arguments: [id])
    }

    public func hits(for keys: Set<UInt32>, limit: Int) throws -> [UInt32: [IndexHit]] {
        try queue.read { db in
            let select = try db.cachedStatement(sql: "SELECT song, position FROM postings WHERE key = ? LIMIT ?")
            var found: [UInt32: [IndexHit]] = [:]
            for key in keys {
                let rows = try Row.fetchAll(select, arguments: [Int64(key), limit])
                if !rows.isEmpty { found[key] = rows.map { IndexHit(song: $0["song"], position: $0["position"]) } }
            }
            return found
        }
    }

    public func frames(of song: Int64) throws -> [UInt32]? {
        try queue.read { db in try Data.fetchOne(db, sql: "SELECT frames FROM songs WHERE id = ?", arguments: [song]).map(Self.frames) }
    }

    public func song(_ id: Int64) throws -> TitledSong? {
        try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT artist, title, station FROM songs WHERE id = ?", arguments: [id]).map {
                TitledSong(artist: $0["artist"], title: $0["title"], station: $0["station"])
            }
        }
    }

    /// Songs kept and their frames in all.
    public func figures() throws -> (songs: Int, frames: Int) {
        try queue.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS songs, COALESCE(SUM(frame_count), 0) AS frames FROM songs")
            return (row?["songs"] ?? 0, row?["frames"] ?? 0)
        }
    }

    /// The titles kept, oldest first.
    public func titles() throws -> [TitledSong] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT artist, title, station FROM songs ORDER BY added_at, id").map {
                TitledSong(artist: $0["artist"], title: $0["title"], station: $0["station"])
            }
        }
    }

    static func blob(_ frames: [UInt32]) -> Data {
        var data = Data(capacity: frames.count * 4)
        for frame in frames { withUnsafeBytes(of: frame.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    static func frames(_ data: Data) -> [UInt32] {
        stride(from: 0, to: data.count - data.count % 4, by: 4).map { index in
            let start = data.startIndex + index
            return UInt32(data[start]) | UInt32(data[start + 1]) << 8 | UInt32(data[start + 2]) << 16 | UInt32(data[start + 3]) << 24
        }
    }
}
