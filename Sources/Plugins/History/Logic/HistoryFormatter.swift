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
    public static func format(_ rows: [PlayRow], as format: HistoryQuery.Format, timeZone: TimeZone = .current,
                              labels: HistoryLabels = HistoryLabels()) -> String {
        switch format {
        case .json:
            let objects: [JSONValue] = rows.map { row in
                ["id": .number(JSONNumber(row.id)), "started_at": .string(iso(row.startedAt)), "jingle": .bool(row.isJingle),
                 "skipped": .bool(row.isSkipped), "station": .string(row.station), "artist": .string(row.artist),
                 "title": .string(row.title), "raw_title": .string(row.rawTitle), "ended_at": .string(row.endedAt.map(iso)),
                 "seconds_listened": row.secondsListened.map { .number(($0 * 10).rounded() / 10) } ?? .null,
                 "artwork_path": .string(row.artworkPath)]
            }
            return json(.array(objects))
        case .csv:
            var lines = ["id,started_at,ended_at,seconds_listened,station,artist,title,raw_title,jingle,artwork_path,skipped"]
            for row in rows {
                lines.append([String(row.id), iso(row.startedAt), row.endedAt.map(iso) ?? "",
                              row.secondsListened.map { String(format: "%.1f", $0) } ?? "", row.station ?? "",
                              row.artist ?? "", row.title ?? "", row.rawTitle ?? "", row.isJingle ? "1" : "0",
                              row.artworkPath ?? "", row.isSkipped ? "1" : "0"].map(csvField).joined(separator: ","))
            }
            return lines.joined(separator: "\n") + "\n"
        case .table:
            guard !rows.isEmpty else { return labels("No tracks in the history match.") + "\n" }
            let body = rows.map { row -> [String] in
                [localTime(row.startedAt, timeZone), row.secondsListened.map(duration) ?? (row.endedAt == nil ? "…" : ""),
                 row.station ?? "", row.artist ?? "",
                 (row.title ?? row.rawTitle ?? "") + (row.isJingle ? " " + labels("[jingle]") : "") + (row.isSkipped ? " " + labels("[skipped]") : "")]
            }
            return table(header: ["STARTED", "HEARD", "STATION", "ARTIST", "TITLE"].map(labels.callAsFunction), rows: body)
        }
    }

    public static func format(_ stats: HistoryStats, as format: HistoryQuery.Format, labels: HistoryLabels = HistoryLabels()) -> String {
        switch format {
        case .json:
            let object: JSONValue = [
                "top_artists": .array(stats.topArtists.map { ["artist": .string($0.artist), "plays": .int($0.plays)] }),
                "top_tracks": .array(stats.topTracks.map { ["artist": .string($0.artist), "title": .string($0.title ?? ""), "plays": .int($0.plays)] }),
                "stations": .array(stats.stations.map {
                    ["station": .string($0.station), "hours": .number(($0.seconds / 36).rounded() / 100), "plays": .int($0.plays)]
                }),
            ]
            return json(object)
        case .csv:
            var lines = ["section,station_or_artist,title,plays,hours"]
            for item in stats.topArtists { lines.append(["artist", item.artist, "", String(item.plays), ""].map(csvField).joined(separator: ",")) }
            for item in stats.topTracks { lines.append(["track", item.artist, item.title ?? "", String(item.plays), ""].map(csvField).joined(separator: ",")) }
            for item in stats.stations {
                lines.append(["station", item.station, "", String(item.plays), String(format: "%.2f", item.seconds / 3600)].map(csvField).joined(separator: ","))
            }
            return lines.joined(separator: "\n") + "\n"
        case .table:
            var out = labels("Top artists") + "\n"
            out += stats.topArtists.isEmpty ? "  " + labels("(none)") + "\n" : table(header: ["PLAYS", "ARTIST"].map(labels.callAsFunction), rows: stats.topArtists.map { [String($0.plays), $0.artist] }, indent: "  ")
            out += "\n" + labels("Top tracks") + "\n"
            out += stats.topTracks.isEmpty ? "  " + labels("(none)") + "\n" : table(header: ["PLAYS", "ARTIST", "TITLE"].map(labels.callAsFunction), rows: stats.topTracks.map { [String($0.plays), $0.artist, $0.title ?? ""] }, indent: "  ")
            out += "\n" + labels("Hours listened per station") + "\n"
            out += stats.stations.isEmpty ? "  " + labels("(none)") + "\n" : table(header: ["HOURS", "TRACKS", "STATION"].map(labels.callAsFunction), rows: stats.stations.map { [String(format: "%.2f", $0.seconds / 3600), String($0.plays), $0.station] }, indent: "  ")
            return out
        }
    }

    static func table(header: [String], rows: [[String]], indent: String = "") -> String {
        let all = [header] + rows.map { $0.map(clean) }
        var widths = Array(repeating: 0, count: header.count)
        for row in all { for (index, cell) in row.enumerated() { widths[index] = min(48, max(widths[index], cell.count)) } }
        return all.map { row in
            indent + row.enumerated().map { index, cell in
                let cut = cell.count > widths[index] ? String(cell.prefix(widths[index] - 1)) + "…" : cell
                return index == row.count - 1 ? cut : cut.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
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

    static func iso(_ micros: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: Double(micros) / 1e6))
    }

    static func localTime(_ micros: Int64, _ timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: Double(micros) / 1e6))
    }

    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return total >= 3600 ? String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
            : String(format: "%d:%02d", total / 60, total % 60)
    }
}
