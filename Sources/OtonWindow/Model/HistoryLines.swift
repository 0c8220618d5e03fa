import Foundation
import OtonJSON
import OtonSupport

/// The window's history lines, "14:05  Artist – Title · Station", from the tracks it hears itself
/// and from the history plugin's `history --format json` (every day it kept). Pure: no GTK, no socket.
public enum HistoryLines {
    /// The most lines asked of the plugin (and kept) at once.
    public static let limit = 500

    /// One line: `clock` ("14:05", or "2026-11-27 14:05" for another day), the song (with where its
    /// title came from when not the stream, see ``SongText``), the station.
    public static func line(clock: String, artist: String, title: String, station: String, source: String? = nil) -> String {
        let song = SongText.line(artist: artist, title: title, source: source)
        return clock + "  " + song + (station.isEmpty ? "" : " · " + station)
    }

    /// The plugin's rows (newest first, as it answers) as lines; jingles and rows without a song are
    /// left out, as the page lists songs heard. Today's rows say only the time, older ones the date too.
    /// nil when `json` is not the array the plugin writes.
    public static func lines(fromJSON json: String, now: Date = Date(), timeZone: TimeZone = .current) -> [String]? {
        guard let rows = (try? JSONValue.parse(Data(json.utf8), maxBytes: 16 << 20))?.arrayValue else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return rows.prefix(limit).compactMap { row in
            guard row["jingle"]?.boolValue != true, let started = row["started_at"]?.stringValue.flatMap(TimeText.date(iso8601:)) else { return nil }
            let title = row["title"]?.stringValue ?? row["raw_title"]?.stringValue ?? ""
            let artist = row["artist"]?.stringValue ?? ""
            guard !title.isEmpty || !artist.isEmpty else { return nil }
            let clock = TimeText.local(started, calendar.isDate(started, inSameDayAs: now) ? "HH:mm" : "yyyy-MM-dd HH:mm", timeZone: timeZone)
            return line(
                clock: clock, artist: artist, title: title, station: row["station"]?.stringValue ?? "",
                source: row["title_source"]?.stringValue)
        }
    }

    /// The lines that contain `query` (case and accents ignored); all of them for an empty query.
    public static func matching(_ lines: [String], _ query: String) -> [String] {
        let wanted = query.trimmingCharacters(in: .whitespaces)
        guard !wanted.isEmpty else { return lines }
        return lines.filter { $0.range(of: wanted, options: [.caseInsensitive, .diacriticInsensitive]) != nil }
    }
}
