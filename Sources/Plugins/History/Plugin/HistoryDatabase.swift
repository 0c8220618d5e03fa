import Foundation
import GRDB
import HistoryLogic

/// history.sqlite through GRDB: the plays table (one row per track heard) and
/// the scrobble journal (one row per listen and service, written before any
/// network call). WAL mode, so `oton history` reads while `oton play` writes.
final class HistoryDatabase: Sendable {
    let path: String
    let pool: DatabasePool
    /// How long one statement waits for another program's lock before SQLITE_BUSY.
    static let busySeconds = 10.0

    init(path: String) throws {
        self.path = path
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busySeconds)
        configuration.label = "org.oton.history"
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
        "plays": [
            "id", "station", "artist", "title", "raw_title", "stream_url", "started_at", "ended_at", "seconds_listened",
            "artwork_path", "is_jingle",
        ],
        "scrobble_journal": ["id", "service", "play_id", "listen", "created_at", "status", "attempts", "last_error", "sent_at"],
    ]

    /// Opens an existing file read-only and checks it without changing a byte: SQLite's own
    /// consistency check (every page readable, every index agreeing with its table), and tables
    /// that are either Oton's with the columns it needs or not there yet. Throws Damage, or
    /// SQLite's error when the file is not a database at all.
    private static func inspect(_ path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busySeconds)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.read { db in
            guard try String.fetchAll(db, sql: "PRAGMA quick_check") == ["ok"] else { throw Damage(reason: Damage.unreadable) }
            let migrated =
                try db.tableExists("grdb_migrations")
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
                table.column("started_at", .integer).notNull()  // Unix microseconds (wall clock)
                table.column("ended_at", .integer)  // Unix microseconds, NULL while playing (or after a crash)
                table.column("seconds_listened", .double)  // monotonic time heard, pauses excluded
                table.column("artwork_path", .text)
                table.column("is_jingle", .boolean).notNull().defaults(to: false)
            }
            try db.create(index: "plays_started_at", on: "plays", columns: ["started_at"])
            try db.create(table: "scrobble_journal") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("service", .text).notNull()  // "listenbrainz" | "lastfm"
                table.column("play_id", .integer).references("plays", onDelete: .setNull)
                table.column("listen", .text).notNull()  // the Listen as JSON
                table.column("created_at", .integer).notNull()
                table.column("status", .text).notNull().defaults(to: "pending")  // pending | sent | dropped
                table.column("attempts", .integer).notNull().defaults(to: 0)
                table.column("last_error", .text)
                table.column("sent_at", .integer)
                table.uniqueKey(["service", "play_id"])
            }
            try db.create(index: "journal_pending", on: "scrobble_journal", columns: ["service", "status", "id"])
        }
        // Search without case and accents in every script (SQLite's LIKE folds ASCII only): a folded copy
        // of artist and titles per play, filled in here for the rows an older oton wrote.
        migrator.registerMigration("v2-search-folded") { db in
            try db.alter(table: "plays") { table in table.add(column: "search_folded", .text) }
            let rows = try Row.fetchAll(db, sql: "SELECT id, artist, title, raw_title FROM plays")
            for row in rows {
                let folded = SearchFolding.searchText(artist: row["artist"], title: row["title"], rawTitle: row["raw_title"])
                try db.execute(sql: "UPDATE plays SET search_folded = ? WHERE id = ?", arguments: [folded, row["id"] as Int64])
            }
        }
        // "Unknown - Unknown" from a source that knows no track is not a play. The host decides that now
        // (such a title never reaches a plugin as a track); this marks the rows an older oton wrote, by the
        // rule it applied then, so they stay hidden. New rows get false.
        migrator.registerMigration("v3-placeholder") { db in
            try db.alter(table: "plays") { table in table.add(column: "is_placeholder", .boolean).notNull().defaults(to: false) }
            for row in try Row.fetchAll(db, sql: "SELECT id, artist, title FROM plays")
            where
                Self.olderPlaceholder(artist: row["artist"], title: row["title"])
            {
                try db.execute(sql: "UPDATE plays SET is_placeholder = 1 WHERE id = ?", arguments: [row["id"] as Int64])
            }
        }
        // Where each title came from (stream, station-api, provider:<rule>, recognised). Rows an older oton
        // wrote keep NULL: it did not say, and a guess would be shown as a fact.
        migrator.registerMigration("v4-title-source") { db in
            try db.alter(table: "plays") { table in table.add(column: "title_source", .text) }
        }
        return migrator
    }

    /// The rule oton 0.1 applied in History to the rows it wrote (frozen with migration v3; the host owns the
    /// rule since): artist and title each missing or a placeholder word, and one present.
    private static func olderPlaceholder(artist: String?, title: String?) -> Bool {
        let words: Set<String> = ["unknown", "unknown artist", "unknown title", "untitled", "n/a", "-"]
        let values = [artist, title].compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        return !values.isEmpty && values.allSatisfy { words.contains(SearchFolding.fold($0)) }
    }

    // MARK: Plays

    func insertPlay(_ start: PlayStart) throws -> Int64 {
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO plays (station, artist, title, raw_title, stream_url, started_at, is_jingle, search_folded, title_source)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    start.station, start.artist, start.title, start.rawTitle, start.streamURL,
                    start.startedAtMicroseconds, start.isJingle,
                    SearchFolding.searchText(artist: start.artist, title: start.title, rawTitle: start.rawTitle), start.titleSource,
                ])
            return db.lastInsertedRowID
        }
    }

    func updatePlay(_ id: Int64, _ start: PlayStart) throws {
        try pool.write { db in
            try db.execute(
                sql: """
                    UPDATE plays SET station = ?, artist = ?, title = ?, raw_title = ?, stream_url = ?, is_jingle = ?, search_folded = ?,
                        title_source = ? WHERE id = ?
                    """,
                arguments: [
                    start.station, start.artist, start.title, start.rawTitle, start.streamURL, start.isJingle,
                    SearchFolding.searchText(artist: start.artist, title: start.title, rawTitle: start.rawTitle), start.titleSource, id,
                ])
        }
    }

    func setArtwork(_ id: Int64, path: String) throws {
        try pool.write { db in
            try db.execute(sql: "UPDATE plays SET artwork_path = ? WHERE id = ?", arguments: [path, id])
        }
    }

    /// Completes a play and, in the same transaction, journals its listen for each service.
    func finishPlay(_ id: Int64, _ end: PlayEnd, listen: Listen?, services: [String]) throws {
        let encoded = listen?.journalText
        try pool.write { db in
            try db.execute(
                sql: "UPDATE plays SET ended_at = ?, seconds_listened = ? WHERE id = ?",
                arguments: [end.endedAtMicroseconds, end.secondsListened, id])
            guard let encoded else { return }
            for service in services {
                try db.execute(
                    sql: """
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
            try Row.fetchAll(
                db, sql: "SELECT id, listen FROM scrobble_journal WHERE service = ? AND status = 'pending' ORDER BY id LIMIT ?",
                arguments: [service, limit]
            ).compactMap { row -> JournalEntry? in
                let text: String = row["listen"]
                guard let listen = Listen(journalText: text) else { return nil }
                return JournalEntry(id: row["id"], listen: listen)
            }
        }
    }

    func markSent(_ ids: [Int64]) throws {
        try update(
            ids,
            sql: "UPDATE scrobble_journal SET status = 'sent', attempts = attempts + 1, sent_at = ?, last_error = NULL WHERE id = ? AND status = 'pending'",
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

    /// SQL for "a finished play heard for less than the threshold (see ``HistoryQuery/skipBelowSeconds``),
    /// or a placeholder title (PlaceholderTitle)". One `?`: the threshold.
    private static let skipped = "((ended_at IS NOT NULL AND COALESCE(seconds_listened, 0) < ?) OR is_placeholder = 1)"

    private func filters(_ query: HistoryQuery, includeSkipped: Bool? = nil) -> (String, StatementArguments) {
        var clauses: [String] = []
        var arguments: StatementArguments = []
        if !(includeSkipped ?? query.includeSkipped) {
            clauses.append("NOT " + Self.skipped)
            arguments += [query.skipBelowSeconds]
        }
        if let since = query.since {
            clauses.append("started_at >= ?")
            arguments += [since]
        }
        if let station = query.station {
            clauses.append("station = ? COLLATE NOCASE")
            arguments += [station]
        }
        if let search = query.search {
            /// LIKE's wildcards and escape character taken literally.
            func contains(_ text: String) -> String {
                "%"
                    + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                    .replacingOccurrences(of: "_", with: "\\_") + "%"
            }
            let pattern = contains(SearchFolding.fold(search))
            // A row without its folded copy (written by another program) is still found the old way: ASCII-only folding.
            let plain = contains(search)
            clauses.append(
                """
                (search_folded LIKE ? ESCAPE '\\' OR (search_folded IS NULL AND \
                (artist LIKE ? ESCAPE '\\' OR title LIKE ? ESCAPE '\\' OR raw_title LIKE ? ESCAPE '\\')))
                """)
            arguments += [pattern, plain, plain, plain]
        }
        return (clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND "), arguments)
    }

    /// Hands each matching play to `body` as SQLite reads it (a cursor, newest first): memory
    /// stays one row whatever `--limit` asks, and the first rows are out before the last are read.
    func forEachPlay(_ query: HistoryQuery, _ body: (PlayRow) throws -> Void) throws {
        let (whereClause, arguments) = filters(query)
        try pool.read { db in
            let rows = try Row.fetchCursor(
                db, sql: "SELECT *, \(Self.skipped) AS is_skipped FROM plays \(whereClause) ORDER BY started_at DESC, id DESC LIMIT \(query.limit)",
                arguments: StatementArguments([query.skipBelowSeconds]) + arguments)
            while let row = try rows.next() {
                try body(
                    PlayRow(
                        id: row["id"], station: row["station"], artist: row["artist"], title: row["title"], rawTitle: row["raw_title"],
                        startedAt: row["started_at"], endedAt: row["ended_at"], secondsListened: row["seconds_listened"],
                        artworkPath: row["artwork_path"], isJingle: row["is_jingle"], isSkipped: row["is_skipped"],
                        titleSource: row["title_source"]))
            }
        }
    }

    /// How many plays the query leaves out as skipped (heard for less than the threshold, or a
    /// placeholder): what `--all` would add. For the hint under an empty listing.
    func countSkipped(_ query: HistoryQuery) throws -> Int {
        let (whereClause, arguments) = filters(query, includeSkipped: true)
        let clause = (whereClause.isEmpty ? "WHERE " : whereClause + " AND ") + Self.skipped
        return try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM plays \(clause)", arguments: arguments + [query.skipBelowSeconds]) ?? 0
        }
    }

    /// Counts real plays only: skipped ones are left out whatever `--all` says.
    func stats(_ query: HistoryQuery) throws -> HistoryStats {
        let (whereClause, arguments) = filters(query, includeSkipped: false)
        let songs = whereClause.isEmpty ? "WHERE is_jingle = 0 AND artist IS NOT NULL" : whereClause + " AND is_jingle = 0 AND artist IS NOT NULL"
        return try pool.read { db in
            let artists = try Row.fetchAll(
                db,
                sql: """
                    SELECT artist, COUNT(*) AS plays FROM plays \(songs) GROUP BY artist COLLATE NOCASE
                    ORDER BY plays DESC, artist LIMIT \(query.limit)
                    """, arguments: arguments
            ).map { HistoryStats.Count(artist: $0["artist"], plays: $0["plays"]) }
            let tracks = try Row.fetchAll(
                db,
                sql: """
                    SELECT artist, title, COUNT(*) AS plays FROM plays \(songs) AND title IS NOT NULL
                    GROUP BY artist COLLATE NOCASE, title COLLATE NOCASE ORDER BY plays DESC, artist, title LIMIT \(query.limit)
                    """, arguments: arguments
            ).map { HistoryStats.Count(artist: $0["artist"], title: $0["title"], plays: $0["plays"]) }
            let stations = try Row.fetchAll(
                db,
                sql: """
                    SELECT COALESCE(station, '(unknown)') AS name, SUM(COALESCE(seconds_listened, 0)) AS seconds, COUNT(*) AS plays
                    FROM plays \(whereClause) GROUP BY name ORDER BY seconds DESC, name
                    """, arguments: arguments
            ).map { HistoryStats.StationTime(station: $0["name"], seconds: $0["seconds"], plays: $0["plays"]) }
            return HistoryStats(topArtists: artists, topTracks: tracks, stations: stations)
        }
    }
}
