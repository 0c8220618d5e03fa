import Foundation
import GRDB
import OtonJSON

/// Opens history.sqlite; a damaged one (not a database, unreadable pages,
/// tables Oton does not know) is moved aside, never deleted or overwritten,
/// and a new one started. The notice says in words what was wrong and where
/// the old file went, for the log of `oton play` and of `oton history` alike.
/// Anything else (permissions, a full disk, a lock held too long) is an error
/// and the file stays where it is.
enum HistoryDatabaseOpener {
    struct Opened {
        let database: HistoryDatabase
        /// Set when a damaged file was moved aside.
        let notice: String?
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Another program holds a lock on the file (a writer that does not let go, `sqlite3` in a
    /// transaction, a backup tool) for longer than SQLite's busy timeout.
    struct Locked: Error, CustomStringConvertible {
        let path: String
        let waited: Double
        var description: String {
            "the listening history at \(path) is locked by another program (waited \(Int(waited.rounded())) s); "
                + "close what holds it (sqlite3, a backup or sync tool, another oton)"
        }
    }

    /// The seconds `openWaiting` retries a locked file for.
    static let lockPatience = 30.0

    /// `open`, retried with backoff (0.5 s doubling to 4 s) while the file is locked, for up to
    /// `patience` seconds: a lock another program releases soon does not turn history off.
    static func openWaiting(path: String, patience: Double = lockPatience) throws -> Opened {
        let started = Date()
        var pause = 0.5
        while true {
            do {
                return try open(path: path)
            } catch is Locked {
                let waited = Date().timeIntervalSince(started)
                guard waited + pause <= patience else { throw Locked(path: path, waited: waited) }
                Thread.sleep(forTimeInterval: pause)
                pause = min(pause * 2, 4)
            }
        }
    }

    static func open(path: String, now: Date = Date()) throws -> Opened {
        let damage: String
        do {
            return Opened(database: try HistoryDatabase(path: path), notice: nil)
        } catch {
            if isLocked(error) { throw Locked(path: path, waited: HistoryDatabase.busySeconds) }
            guard let reason = Self.damage(in: error) else {
                throw Failure(
                    description: "cannot open the listening history at \(path): \(Self.words(for: error)); "
                        + "check that its folder is writable and the disk not full")
            }
            damage = reason
        }
        let aside: String
        do {
            aside = try moveAside(path, now: now)
        } catch {
            throw Failure(
                description: "the listening history at \(path) is damaged (\(damage)) and could not be moved aside: \(error); "
                    + "move it away yourself and start Oton again")
        }
        let database: HistoryDatabase
        do {
            database = try HistoryDatabase(path: path)
        } catch {
            throw Failure(
                description: "the listening history at \(path) was damaged (\(damage)) and moved to \(aside), "
                    + "but a new one cannot be started: \(Self.words(for: error))")
        }
        return Opened(
            database: database,
            notice: "the listening history at \(path) was damaged (\(damage)); it was moved to \(aside) and a new one started")
    }

    /// SQLite's busy timeout ran out: another connection holds the lock.
    static func isLocked(_ error: Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
    }

    /// Why `error` means the file itself is unusable, in words; nil for every other failure.
    static func damage(in error: Error) -> String? {
        if let damage = error as? HistoryDatabase.Damage { return damage.reason }
        guard let error = error as? DatabaseError else { return nil }
        switch error.resultCode {
        case .SQLITE_NOTADB: return "it is not an SQLite database"
        case .SQLITE_CORRUPT: return HistoryDatabase.Damage.unreadable
        default: return nil
        }
    }

    private static func words(for error: Error) -> String {
        guard let error = error as? DatabaseError else { return "\(error)" }
        return error.message ?? "SQLite error \(error.resultCode.rawValue)"
    }

    /// Renames `path` (and its -wal and -shm, which belong to it) to `path.damaged-YYYYMMDD-HHMMSS`
    /// (`-2`, `-3` … when taken). Returns the new path. Never replaces a file.
    static func moveAside(_ path: String, now: Date) throws -> String {
        let stem = path + ".damaged-" + TimeText.local(now, "yyyyMMdd-HHmmss")
        for counter in 1...1000 {
            let candidate = counter == 1 ? stem : stem + "-\(counter)"
            // link + unlink: fails instead of replacing a file of that name.
            if link(path, candidate) == 0 {
                // The new database must not pick up the old one's write-ahead log: it goes along.
                for suffix in ["-wal", "-shm"] where access(path + suffix, F_OK) == 0 {
                    guard rename(path + suffix, candidate + suffix) == 0 else {
                        let reason = String(cString: strerror(errno))
                        unlink(candidate)
                        throw Failure(description: "cannot rename \(path + suffix) to \(candidate + suffix): \(reason)")
                    }
                }
                unlink(path)
                return candidate
            }
            guard errno == EEXIST else { throw Failure(description: "cannot rename it to \(candidate): \(String(cString: strerror(errno)))") }
        }
        throw Failure(description: "too many damaged copies named \(stem)…")
    }
}
