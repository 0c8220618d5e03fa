import Foundation
import GRDB
import HistoryLogic

/// history.sqlite through GRDB: the plays table (one row per track heard) and
/// the scrobble journal (one row per listen and service, written before any
/// network call). WAL mode, so `oton history` reads while `oton play` writes.
/// Search folding and the skip rule are Swift functions every connection gets
/// (`oton_fold`, `oton_skipped`), applied when a query runs: the rules have one
/// owner (HistoryLogic), the file needs no new column, and rows written by any
/// earlier version are searched and counted the same way.
final class HistoryDatabase: Sendable {
    let path: String
    let pool: DatabasePool
    /// Plays heard for less than this are skipped (SkipRule): config.min_live_seconds, the scrobbling threshold.
    let skipBelowSeconds: Double

    init(path: String, skipBelowSeconds: Double) throws {
        self.skipBelowSeconds = skipBelowSeconds
        self.path = path
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "org.oton.history"
        configuration.prepareDatabase { db in
            db.add(function: Self.foldFunction)
            db.add(function: Self.skippedFunction)
        }
        // Looked at read-only first: a file Oton cannot use is left exactly as it was.
        if FileManager.default.fileExists(atPath: path) { try Self.inspect(path) }
        pool = try DatabasePool(path: path, configuration: configuration)
        do {
            try Self.migrator.migrate(pool)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            throw Damage(reason: Damage.foreignTables)
        }
    }

    /// A history.sqlite that cannot be used as it is; `reason` says why in words.
    struct Damage: Error, CustomStringConvertible {
        static let unreadable = "parts of it are unreadable or inconsistent (cut short or overwritten)"
        static let foreignTables = "its tables are not the ones Oton keeps (made by another program, or by a different Oton)"
        let reason: String
        var description: String { reason }
    }

    private static let firstMigration = "v1: plays and scrobble journal"

    /// The columns every query uses, per table the first migration creates.
    private static let requiredColumns: [String: Set<String>] = [
        "plays": ["id", "station", "artist", "title", "raw_title", "stream_url", "started_at", "ended_at", "seconds_listened",
                  "artwork_path", "is_jingle"],
        "scrobble_journal": ["id", "service", "play_id", "listen", "created_at", "status", "attempts", "last_error", "sent_at"],
    ]

    /// Opens an existing file read-only and checks it without changing a byte: SQLite's own
    /// consistency check (every page readable, every index agreeing with its table), and tables
    /// that are either Oton's with the columns it needs or not there yet. Throws Damage, or
    /// SQLite's error when the file is not a database at all.
    private static func inspect(_ path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.read { db in
            guard try String.fetchAll(db, sql: "PRAGMA quick_check") == ["ok"] else { throw Damage(reason: Damage.unreadable) }
            let migrated = try db.tableExists("grdb_migrations")
                && (try Bool.fetchOne(db, sql: "SELECT COUNT(*) > 0 FROM grdb_migrations WHERE identifier = ?", arguments: [firstMigration]) ?? false)
            for (table, columns) in requiredColumns {
                let exists = try db.tableExists(table)
                guard exists == migrated else { throw Damage(reason: Damage.foreignTables) }
                guard exists else { continue }
                let present = Set(try db.columns(in: table).map(\.name))
                guard columns.isSubset(of: present) else {
                    throw Damage(reason: "its \(table) table lacks columns Oton needs (\(columns.subtracting(present).sorted().joined(separator: ", ")))")
                }
            }
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(firstMigration) { db in
            try db.create(table: "plays") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("station", .text)
                table.column("artist", .text)
                table.column("title", .text)
                table.column("raw_title", .text)
                table.column("stream_url", .text)
                table.column("started_at", .integer).notNull() // Unix microseconds (wall clock)
                table.column("ended_at", .integer)             // Unix microseconds, NULL while playing (or after a crash)
                table.column("seconds_listened", .double)      // monotonic time heard, pauses excluded
                table.column("artwork_path", .text)
                table.column("is_jingle", .boolean).notNull().defaults(to: false)
            }
            try db.create(index: "plays_started_at", on: "plays", columns: ["started_at"])
            try db.create(table: "scrobble_journal") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("service", .text).notNull()   // "listenbrainz" | "lastfm"
                table.column("play_id", .integer).references("plays", onDelete: .setNull)
                table.column("listen", .text).notNull()    // the Listen as JSON
                table.column("created_at", .integer).notNull()
                table.column("status", .text).notNull().defaults(to: "pending") // pending | sent | dropped
                table.column("attempts", .integer).notNull().defaults(to: 0)
                table.column("last_error", .text)
                table.column("sent_at", .integer)
                table.uniqueKey(["service", "play_id"])
            }
            try db.create(index: "journal_pending", on: "scrobble_journal", columns: ["service", "status", "id"])
        }
        return migrator
    }

    // MARK: Plays

    func insertPlay(_ start: PlayStart) throws -> Int64 {
        try pool.write { db in
            try db.execute(sql: """
                INSERT INTO plays (station, artist, title, raw_title, stream_url, started_at, is_jingle)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [start.station, start.artist, start.title, start.rawTitle, start.streamURL,
                                 start.startedAtMicroseconds, start.isJingle])
            return db.lastInsertedRowID
        }
    }

    func updatePlay(_ id: Int64, _ start: PlayStart) throws {
        try pool.write { db in
            try db.execute(sql: "UPDATE plays SET station = ?, artist = ?, title = ?, raw_title = ?, stream_url = ?, is_jingle = ? WHERE id = ?",
                           arguments: [start.station, start.artist, start.title, start.rawTitle, start.streamURL, start.isJingle, id])
        }
    }

    func setArtwork(_ id: Int64, path: String) throws {
        try pool.write { db in
            try db.execute(sql: "UPDATE plays SET artwork_path = ? WHERE id = ?", arguments: [path, id])
        }
    }

    /// Completes a play and, in the same transaction, journals its listen for each service.
    func finishPlay(_ id: Int64, _ end: PlayEnd, listen: Listen?, services: [String]) throws {
        let encoded = try listen.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        try pool.write { db in
            try db.execute(sql: "UPDATE plays SET ended_at = ?, seconds_listened = ? WHERE id = ?",
                           arguments: [end.endedAtMicroseconds, end.secondsListened, id])
            guard let encoded else { return }
            for service in services {
                try db.execute(sql: """
                    INSERT OR IGNORE INTO scrobble_journal (service, play_id, listen, created_at) VALUES (?, ?, ?, ?)
                    """, arguments: [service, id, encoded, Int64(Date().timeIntervalSince1970 * 1_000_000)])
            }
        }
    }

    // MARK: Journal

    struct JournalEntry: Sendable {
        var id: Int64
        var listen: Listen
    }

    func pending(service: String, limit: Int) throws -> [JournalEntry] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, listen FROM scrobble_journal WHERE service = ? AND status = 'pending' ORDER BY id LIMIT ?",
                             arguments: [service, limit]).compactMap { row -> JournalEntry? in
                let text: String = row["listen"]
                guard let listen = try? JSONDecoder().decode(Listen.self, from: Data(text.utf8)) else { return nil }
                return JournalEntry(id: row["id"], listen: listen)
            }
        }
    }

    func markSent(_ ids: [Int64]) throws {
        try update(ids, sql: "UPDATE scrobble_journal SET status = 'sent', attempts = attempts + 1, sent_at = ?, last_error = NULL WHERE id = ? AND status = 'pending'",
                   argument: Int64(Date().timeIntervalSince1970 * 1_000_000))
    }

    func markDropped(_ ids: [Int64], reason: String) throws {
        try update(ids, sql: "UPDATE scrobble_journal SET status = 'dropped', attempts = attempts + 1, last_error = ? WHERE id = ?", argument: reason)
    }

    func recordFailure(_ ids: [Int64], reason: String) throws {
        try update(ids, sql: "UPDATE scrobble_journal SET attempts = attempts + 1, last_error = ? WHERE id = ?", argument: reason)
    }

    private func update(_ ids: [Int64], sql: String, argument: some DatabaseValueConvertible) throws {
        try pool.write { db in
            for id in ids { try db.execute(sql: sql, arguments: [argument, id]) }
        }
    }

    func journalCounts() throws -> [String: Int] {
        try pool.read { db in
            var out: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT service || ' ' || status AS key, COUNT(*) AS n FROM scrobble_journal GROUP BY service, status") {
                out[row["key"]] = row["n"]
            }
            return out
        }
    }

    // MARK: Queries

    /// oton_fold(text): SearchFolding.fold; NULL stays NULL.
    private static let foldFunction = DatabaseFunction("oton_fold", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0]).map(SearchFolding.fold)
    }

    /// oton_skipped(artist, title, seconds_listened, ended, minimum_seconds): SkipRule.isSkipped as 0 or 1.
    private static let skippedFunction = DatabaseFunction("oton_skipped", argumentCount: 5, pure: true) { values in
        SkipRule.isSkipped(artist: String.fromDatabaseValue(values[0]), title: String.fromDatabaseValue(values[1]),
                           secondsListened: Double.fromDatabaseValue(values[2]), ended: Bool.fromDatabaseValue(values[3]) ?? false,
                           minimumSeconds: Double.fromDatabaseValue(values[4]) ?? 0)
    }

    /// The SQL that says whether a row is skipped, for this database's threshold.
    private var skippedSQL: String {
        "oton_skipped(artist, title, seconds_listened, ended_at IS NOT NULL, \(skipBelowSeconds))"
    }

    private func filters(_ query: HistoryQuery) -> (String, StatementArguments) {
        var clauses: [String] = []
        if !query.all { clauses.append("NOT \(skippedSQL)") }
        var arguments: StatementArguments = []
        if let since = query.since {
            clauses.append("started_at >= ?")
            arguments += [since]
        }
        if let station = query.station {
            clauses.append("station = ? COLLATE NOCASE")
            arguments += [station]
        }
        if let search = query.search {
            // SQLite's LIKE folds ASCII only ("кино" missed "Кино"): both sides are folded in Swift.
            clauses.append("instr(oton_fold(COALESCE(artist, '') || char(10) || COALESCE(title, '') || char(10) || COALESCE(raw_title, '')), ?) > 0")
            arguments += [SearchFolding.fold(search)]
        }
        return (clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND "), arguments)
    }

    func plays(_ query: HistoryQuery) throws -> [PlayRow] {
        let (whereClause, arguments) = filters(query)
        return try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT *, \(skippedSQL) AS skipped FROM plays \(whereClause) ORDER BY started_at DESC, id DESC LIMIT \(query.limit)",
                             arguments: arguments).map { row in
                PlayRow(id: row["id"], station: row["station"], artist: row["artist"], title: row["title"], rawTitle: row["raw_title"],
                        startedAt: row["started_at"], endedAt: row["ended_at"], secondsListened: row["seconds_listened"],
                        artworkPath: row["artwork_path"], isJingle: row["is_jingle"], isSkipped: row["skipped"])
            }
        }
    }

    /// Counts real plays only: ended, not skipped, not jingles. Hours per station are all the time heard.
    func stats(_ query: HistoryQuery) throws -> HistoryStats {
        var everything = query
        everything.all = true
        let (whereClause, arguments) = filters(everything)
        let realPlay = "ended_at IS NOT NULL AND NOT \(skippedSQL)"
        let songs = (whereClause.isEmpty ? "WHERE " : whereClause + " AND ") + "is_jingle = 0 AND artist IS NOT NULL AND " + realPlay
        return try pool.read { db in
            let artists = try Row.fetchAll(db, sql: """
                SELECT artist, COUNT(*) AS plays FROM plays \(songs) GROUP BY artist COLLATE NOCASE
                ORDER BY plays DESC, artist LIMIT \(query.limit)
                """, arguments: arguments).map { HistoryStats.Count(artist: $0["artist"], plays: $0["plays"]) }
            let tracks = try Row.fetchAll(db, sql: """
                SELECT artist, title, COUNT(*) AS plays FROM plays \(songs) AND title IS NOT NULL
                GROUP BY artist COLLATE NOCASE, title COLLATE NOCASE ORDER BY plays DESC, artist, title LIMIT \(query.limit)
                """, arguments: arguments).map { HistoryStats.Count(artist: $0["artist"], title: $0["title"], plays: $0["plays"]) }
            let stations = try Row.fetchAll(db, sql: """
                SELECT COALESCE(station, '(unknown)') AS name, SUM(COALESCE(seconds_listened, 0)) AS seconds,
                       SUM(CASE WHEN is_jingle = 0 AND \(realPlay) THEN 1 ELSE 0 END) AS plays
                FROM plays \(whereClause) GROUP BY name ORDER BY seconds DESC, name
                """, arguments: arguments).map { HistoryStats.StationTime(station: $0["name"], seconds: $0["seconds"], plays: $0["plays"]) }
            return HistoryStats(topArtists: artists, topTracks: tracks, stations: stations)
        }
    }
}
