import Foundation
import OtonJSON

/// Writes history rows one at a time as a table, JSON or CSV, so that `oton history` streams
/// what the database cursor reads instead of holding every row (100,000 rows of a 1 GB history
/// took 388 MB that way). Memory is bounded by one row, except for the table: its column widths
/// come from the first ``tableWindow`` rows (held until then); a longer cell further down is cut
/// with "…" like any cell over 48 characters.
public struct HistoryRowWriter {
    public static let tableWindow = 1000

    private let format: HistoryQuery.Format
    private let labels: HistoryLabels
    private let timeZone: TimeZone
    private var rows = 0
    private var held: [[String]] = []
    private var widths: [Int]?

    public init(format: HistoryQuery.Format, timeZone: TimeZone = .current, labels: HistoryLabels = HistoryLabels()) {
        self.format = format
        self.labels = labels
        self.timeZone = timeZone
    }

    /// The text for one more row (empty while a table holds its first rows).
    public mutating func add(_ row: PlayRow) -> String {
        defer { rows += 1 }
        switch format {
        case .json:
            // Written as JSONValue.prettyJSONText writes an array of objects (keys sorted, two spaces a
            // level, ",\n" between elements), by hand: building a JSONValue per row cost twice the time.
            func text(_ value: String?) -> String { value.map(JSONText.quoted) ?? "null" }
            let members: [(String, String)] = [
                ("artist", text(row.artist)), ("artwork_path", text(row.artworkPath)), ("ended_at", text(row.endedAt.map(iso))),
                ("id", String(row.id)), ("jingle", row.isJingle ? "true" : "false"), ("raw_title", text(row.rawTitle)),
                ("seconds_listened", row.secondsListened.flatMap { JSONNumber(($0 * 10).rounded() / 10)?.literal } ?? "null"),
                ("skipped", row.isSkipped ? "true" : "false"), ("started_at", JSONText.quoted(iso(row.startedAt))),
                ("station", text(row.station)), ("title", text(row.title)), ("title_source", text(row.titleSource)),
            ]
            return (rows == 0 ? "[\n" : ",\n") + "  {\n" + members.map { "    \"\($0.0)\" : \($0.1)" }.joined(separator: ",\n") + "\n  }"
        case .csv:
            let line = [
                String(row.id), iso(row.startedAt), row.endedAt.map(iso) ?? "",
                row.secondsListened.map { String(format: "%.1f", $0) } ?? "", row.station ?? "",
                row.artist ?? "", row.title ?? "", row.rawTitle ?? "", row.isJingle ? "1" : "0",
                row.artworkPath ?? "", row.isSkipped ? "1" : "0", row.titleSource ?? "",
            ].map(HistoryFormatter.csvField).joined(separator: ",")
            return (rows == 0 ? Self.csvHeader + "\n" : "") + line + "\n"
        case .table:
            let cells = [
                TimeText.local(Date(timeIntervalSince1970: Double(row.startedAt) / 1e6), "yyyy-MM-dd HH:mm", timeZone: timeZone),
                row.secondsListened.map(HistoryFormatter.duration) ?? (row.endedAt == nil ? "…" : ""),
                row.station ?? "", row.artist ?? "",
                (row.title ?? row.rawTitle ?? "") + sourceMark(row.titleSource) + (row.isJingle ? " " + labels("[jingle]") : "")
                    + (row.isSkipped ? " " + labels("[skipped]") : ""),
            ]
            .map(HistoryFormatter.clean)
            if let widths { return HistoryFormatter.tableLine(cells, widths: widths) }
            held.append(cells)
            return held.count >= Self.tableWindow ? releaseHeld() : ""
        }
    }

    /// No row was added.
    public var isEmpty: Bool { rows == 0 }

    /// The text after the last row.
    public mutating func finish() -> String {
        switch format {
        case .json: return rows == 0 ? "[]\n" : "\n]\n"
        case .csv: return rows == 0 ? Self.csvHeader + "\n" : ""
        case .table:
            if rows == 0 { return labels("No tracks in the history match.") + "\n" }
            return widths == nil ? releaseHeld() : ""
        }
    }

    private static let csvHeader = "id,started_at,ended_at,seconds_listened,station,artist,title,raw_title,jingle,artwork_path,skipped,title_source"

    /// A title the stream did not send, marked after it: " [station's website]", " [recognised]", " [laut.fm]".
    private func sourceMark(_ source: String?) -> String {
        switch source {
        case nil, "stream": return ""
        case "station-api": return " " + labels("[station's website]")
        case "recognised": return " " + labels("[recognised]")
        case let other?: return " [" + (other.hasPrefix("provider:") ? String(other.dropFirst("provider:".count)) : other) + "]"
        }
    }

    private var header: [String] { ["STARTED", "HEARD", "STATION", "ARTIST", "TITLE"].map(labels.callAsFunction) }

    /// The header and the held rows, with the widths they set for the rest.
    private mutating func releaseHeld() -> String {
        let all = [header] + held
        let found = HistoryFormatter.widths(all)
        widths = found
        held = []
        return all.map { HistoryFormatter.tableLine($0, widths: found) }.joined()
    }

    private func iso(_ micros: Int64) -> String { TimeText.iso8601(microseconds: micros) }
}
