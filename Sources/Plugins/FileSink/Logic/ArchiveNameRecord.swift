import Foundation
import OtonJSON

/// The names an archive folder has given its segments (`.archive-names.jsonl`, one JSON line per
/// segment: the name given, the template's name before a number was added, the segment's start).
/// A segment can leave the folder (`--upload-delete` once the store has it, the retention, a hand)
/// and its name with it; a later segment rendered alike — a recorder restarted inside the same
/// window, whose first audio (the server's burst) is dated back to the same second, or a template
/// coarser than the period — must not take that name again, or its upload replaces the object in
/// the store. So a name is free only when it is in none of: the folder (segment, `.part`, ledger),
/// the upload journal, and this record.
///
/// Bounded: an entry is dropped when its segment began more than ``horizon(period:)`` ago and the
/// template no longer renders the name being given now (a template's names follow the clock, so a
/// name the clock has left is not rendered again; the horizon covers a first segment dated back by
/// a server's burst). So it holds a few names, not a day's: it is read at every segment's start.
/// Pure; the file is read and written by the recorder.
public enum ArchiveNameRecord {
    public static let fileName = ".archive-names.jsonl"

    public struct Entry: Equatable, Sendable {
        /// The path given, relative to the output folder ("2026/11/27/12-00-00Z (2).mp3").
        public var name: String
        /// The template's path before a number was added.
        public var base: String
        /// The segment's start (wall time, nanoseconds since 1970).
        public var start: Int64

        public init(name: String, base: String, start: Int64) {
            self.name = name
            self.base = base
            self.start = start
        }
    }

    /// Ten minutes, or two periods when they are longer: more than any burst a server sends at connect.
    public static func horizon(period: ArchivePeriod) -> Int64 {
        max(600, 2 * period.seconds) * 1_000_000_000
    }

    /// The entries of the record's text; lines that are not an entry (a torn last line) are skipped.
    public static func parse(_ text: String) -> [Entry] {
        text.split(separator: "\n").compactMap { line in
            guard let value = try? JSONValue.parse(Data(line.utf8)), let name = value["name"]?.stringValue, !name.isEmpty,
                let base = value["base"]?.stringValue, let start = value["start_ns"]?.numberValue
            else { return nil }
            return Entry(name: name, base: base, start: Int64(start))
        }
    }

    public static func line(_ entry: Entry) -> String {
        JSONValue.object(["name": .string(entry.name), "base": .string(entry.base), "start_ns": .number(Double(entry.start))]).jsonText
    }

    /// The entries still worth keeping when a segment whose template name is `base` is named at `now`.
    public static func kept(_ entries: [Entry], now: Int64, horizon: Int64, base: String) -> [Entry] {
        entries.filter { $0.start >= now - horizon || $0.base == base }
    }
}
