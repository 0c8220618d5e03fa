import Foundation
import OtonJSON

/// Counts for `history stats`.
public struct HistoryStats: Equatable, Sendable {
    public struct Count: Equatable, Sendable {
        public var artist: String
        public var title: String?
        public var plays: Int
        public init(artist: String, title: String? = nil, plays: Int) {
            self.artist = artist
            self.title = title
            self.plays = plays
        }
    }

    public struct StationTime: Equatable, Sendable {
        public var station: String
        public var seconds: Double
        public var plays: Int
        public init(station: String, seconds: Double, plays: Int) {
            self.station = station
            self.seconds = seconds
            self.plays = plays
        }
    }

    public var topArtists: [Count]
    public var topTracks: [Count]
    public var stations: [StationTime]

    public init(topArtists: [Count], topTracks: [Count], stations: [StationTime]) {
        self.topArtists = topArtists
        self.topTracks = topTracks
        self.stations = stations
    }
}

/// Prints history rows and stats as a table, JSON or CSV.
public enum HistoryFormatter {
    /// Every row at once (HistoryRowWriter writes them one by one, as `oton history` does).
    public static func format(
        _ rows: [PlayRow], as format: HistoryQuery.Format, timeZone: TimeZone = .current,
        labels: HistoryLabels = HistoryLabels()
    ) -> String {
        var writer = HistoryRowWriter(format: format, timeZone: timeZone, labels: labels)
        return rows.map { writer.add($0) }.joined() + writer.finish()
    }

    public static func format(_ stats: HistoryStats, as format: HistoryQuery.Format, labels: HistoryLabels = HistoryLabels()) -> String {
        switch format {
        case .json:
            let object: JSONValue = [
                "top_artists": .array(stats.topArtists.map { ["artist": .string($0.artist), "plays": .int($0.plays)] }),
                "top_tracks": .array(stats.topTracks.map { ["artist": .string($0.artist), "title": .string($0.title ?? ""), "plays": .int($0.plays)] }),
                "stations": .array(
                    stats.stations.map {
                        ["station": .string($0.station), "hours": .number(($0.seconds / 36).rounded() / 100), "plays": .int($0.plays)]
                    }),
            ]
            return json(object)
        case .csv:
            var lines = ["section,station_or_artist,title,plays,hours"]
            for item in stats.topArtists { lines.append(["artist", item.artist, "", String(item.plays), ""].map(csvField).joined(separator: ",")) }
            for item in stats.topTracks { lines.append(["track", item.artist, item.title ?? "", String(item.plays), ""].map(csvField).joined(separator: ",")) }
            for item in stats.stations {
                lines.append(
                    ["station", item.station, "", String(item.plays), String(format: "%.2f", item.seconds / 3600)].map(csvField).joined(separator: ","))
            }
            return lines.joined(separator: "\n") + "\n"
        case .table:
            var out = labels("Top artists") + "\n"
            out +=
                stats.topArtists.isEmpty
                ? "  " + labels("(none)") + "\n"
                : table(header: ["PLAYS", "ARTIST"].map(labels.callAsFunction), rows: stats.topArtists.map { [String($0.plays), $0.artist] }, indent: "  ")
            out += "\n" + labels("Top tracks") + "\n"
            out +=
                stats.topTracks.isEmpty
                ? "  " + labels("(none)") + "\n"
                : table(
                    header: ["PLAYS", "ARTIST", "TITLE"].map(labels.callAsFunction),
                    rows: stats.topTracks.map { [String($0.plays), $0.artist, $0.title ?? ""] }, indent: "  ")
            out += "\n" + labels("Hours listened per station") + "\n"
            out +=
                stats.stations.isEmpty
                ? "  " + labels("(none)") + "\n"
                : table(
                    header: ["HOURS", "TRACKS", "STATION"].map(labels.callAsFunction),
                    rows: stats.stations.map { [String(format: "%.2f", $0.seconds / 3600), String($0.plays), $0.station] }, indent: "  ")
            return out
        }
    }

    static func table(header: [String], rows: [[String]], indent: String = "") -> String {
        let all = [header] + rows.map { $0.map(clean) }
        let widths = widths(all)
        return all.map { tableLine($0, widths: widths, indent: indent) }.joined()
    }

    /// Each column as wide as its widest cell, at most 48.
    static func widths(_ rows: [[String]]) -> [Int] {
        var widths = Array(repeating: 0, count: rows.first?.count ?? 0)
        for row in rows { for (index, cell) in row.enumerated() where index < widths.count { widths[index] = min(48, max(widths[index], cell.count)) } }
        return widths
    }

    /// One line of a table, cells cut with "…" beyond their column's width, the last one unpadded.
    static func tableLine(_ row: [String], widths: [Int], indent: String = "") -> String {
        indent
            + row.enumerated().map { index, cell in
                let width = index < widths.count ? widths[index] : cell.count
                let cut = cell.count > width ? String(cell.prefix(max(width - 1, 0))) + "…" : cell
                return index == row.count - 1 ? cut : cut.padding(toLength: width, withPad: " ", startingAt: 0)
            }.joined(separator: "  ") + "\n"
    }

    /// Control characters from untrusted titles never reach the terminal.
    static func clean(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
    }

    static func csvField(_ text: String) -> String {
        // A leading =, +, - or @ would be a formula in a spreadsheet; quote-prefix it.
        var value = text
        if let first = value.first, "=+-@".contains(first), value != "-" { value = "'" + value }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func json(_ value: JSONValue) -> String {
        value.prettyJSONText + "\n"
    }

    static func duration(_ seconds: Double) -> String {
        TimeText.clock(seconds)
    }
}
