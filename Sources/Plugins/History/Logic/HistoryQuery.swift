import Foundation
import OtonJSON

/// One row of history.
public struct PlayRow: Equatable, Sendable {
    public var id: Int64
    public var station: String?
    public var artist: String?
    public var title: String?
    public var rawTitle: String?
    /// Unix microseconds.
    public var startedAt: Int64
    public var endedAt: Int64?
    public var secondsListened: Double?
    public var artworkPath: String?
    public var isJingle: Bool
    /// Heard for less than the history's threshold (a restart, a quick switch): kept, but not a play.
    public var isSkipped = false
    /// Where the title came from (stream, station-api, provider:<rule>, recognised); nil for rows an
    /// oton before title sources wrote.
    public var titleSource: String?

    public init(
        id: Int64, station: String?, artist: String?, title: String?, rawTitle: String?, startedAt: Int64,
        endedAt: Int64?, secondsListened: Double?, artworkPath: String?, isJingle: Bool, isSkipped: Bool = false,
        titleSource: String? = nil
    ) {
        self.id = id
        self.station = station
        self.artist = artist
        self.title = title
        self.rawTitle = rawTitle
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.secondsListened = secondsListened
        self.artworkPath = artworkPath
        self.isJingle = isJingle
        self.isSkipped = isSkipped
        self.titleSource = titleSource
    }
}

/// `history [stats] [--limit N] [--since DATE] [--station NAME] [--search TEXT] [--all] [--format table|json|csv]`
public struct HistoryQuery: Equatable, Sendable {
    public enum Format: String, Sendable { case table, json, csv }

    public var stats = false
    public var limit = 20
    /// Unix microseconds.
    public var since: Int64?
    public var station: String?
    public var search: String?
    /// Show skipped plays too (`--all`); stats never count them.
    public var includeSkipped = false
    /// A finished play heard for less than this is skipped: the plugin's `min_live_seconds`, the threshold
    /// a live track needs to be scrobbled (30 s by default), so history and scrobbles agree on what a play is.
    public var skipBelowSeconds = 30.0
    public var format = Format.table
    /// Table words in the reader's language (`--label ENGLISH=TEXT`, passed by the CLI).
    public var labels = HistoryLabels()

    /// Why the arguments are refused: an English message of the catalogues with `{placeholders}`
    /// and their values, so the plugin can show it in the user's language (``text(_:)``).
    public typealias Invalid = CatalogueMessage

    public static let usage = "history [stats] [--limit N] [--since DATE] [--station NAME] [--search TEXT] [--all] [--format table|json|csv]"

    public static func parse(_ arguments: [String], now: Date = Date(), timeZone: TimeZone = .current) throws -> HistoryQuery {
        var query = HistoryQuery()
        var limitGiven = false
        var index = 0
        func value(_ name: String) throws -> String {
            index += 1
            guard index < arguments.count else { throw Invalid(N_("{option} needs a value; usage: {usage}"), ["option": name, "usage": usage]) }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            func take() throws -> String { try inline ?? value(name) }
            switch name {
            case "stats" where index == 0:
                query.stats = true
                if !limitGiven { query.limit = 10 }
            case "--limit", "-n":
                let text = try take()
                guard let limit = Int(text), limit > 0, limit <= 100_000 else {
                    throw Invalid(N_("--limit must be a whole number from 1 to 100000, not \"{value}\""), ["value": text])
                }
                query.limit = limit
                limitGiven = true
            case "--since":
                query.since = try parseDate(try take(), now: now, timeZone: timeZone)
            case "--station":
                query.station = try take()
            case "--search":
                query.search = try take()
            case "--all" where inline == nil:
                query.includeSkipped = true
            case "--label":
                let text = try take()
                guard let equals = text.firstIndex(of: "="), HistoryLabels.english.contains(String(text[..<equals])) else {
                    throw Invalid(N_("--label {value}: use ENGLISH=TEXT with one of the table's words"), ["value": text])
                }
                query.labels.translations[String(text[..<equals])] = String(text[text.index(after: equals)...])
            case "--format":
                let text = try take()
                guard let format = Format(rawValue: text.lowercased()) else {
                    throw Invalid(N_("--format must be table, json or csv, not \"{value}\""), ["value": text])
                }
                query.format = format
            default:
                throw Invalid(N_("unknown argument \"{argument}\"; usage: {usage}"), ["argument": argument, "usage": usage])
            }
            index += 1
        }
        return query
    }

    /// "2024-05-01", "2024-05-01 18:30", "2024-05-01T18:30:00Z" (local time unless a zone is given),
    /// "today", "yesterday", or a span back from now: "90m", "12h", "7d", "2w".
    public static func parseDate(_ text: String, now: Date, timeZone: TimeZone) throws -> Int64 {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        if trimmed == "today" { return try micros(calendar.startOfDay(for: now), text: text) }
        if trimmed == "yesterday" { return try micros(calendar.startOfDay(for: now).addingTimeInterval(-86400), text: text) }
        // No date form ends in m, h, d or w: the text is a span (or a mistyped one, which gets the range).
        if let unit = trimmed.last, let unitSeconds = spanUnits[unit] {
            let seconds = try spanSeconds(amount: trimmed.dropLast(), unitSeconds: unitSeconds, text: text)
            return try micros(now.addingTimeInterval(-seconds), text: text)
        }
        if let date = TimeText.date(iso8601: text) { return try micros(date, text: text) }
        if let date = TimeText.date(local: text, timeZone: timeZone) { return try micros(date, text: text) }
        throw Invalid(N_("--since: \"{value}\" is not a date (try 2024-05-01, \"2024-05-01 18:30\", today, 12h or 7d)"), ["value": text])
    }

    /// The longest span back from now: 100 years.
    public static let maximumSpanSeconds = 100 * 365.25 * 86400
    private static let spanUnits: [Character: Double] = ["m": 60, "h": 3600, "d": 86400, "w": 604_800]

    /// "90" in "90m": a plain decimal number (digits, at most one point) whose span is at most 100 years.
    /// Exponents, hex, inf, nan and signs are refused with the accepted range.
    private static func spanSeconds(amount: Substring, unitSeconds: Double, text: String) throws -> Double {
        let isDecimal =
            amount.utf8.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") }
            && amount.utf8.filter { $0 == UInt8(ascii: ".") }.count <= 1 && amount.contains(where: \.isNumber)
        guard isDecimal, amount.count <= 32, let value = Double(amount), value.isFinite,
            value * unitSeconds <= maximumSpanSeconds
        else {
            throw Invalid(
                N_(
                    "--since {value}: a span back from now must be a plain number from 0 to 100 years (at most 5217w, 36525d, 876600h or 52596000m), such as 12h or 7d"
                ),
                ["value": text])
        }
        return value * unitSeconds
    }

    /// Unix microseconds of `date`; dates Int64 microseconds cannot hold (beyond ±292,000 years) are refused.
    private static func micros(_ date: Date, text: String) throws -> Int64 {
        let value = (date.timeIntervalSince1970 * 1_000_000).rounded()
        guard value.isFinite, value > -9.2e18, value < 9.2e18 else {
            throw Invalid(N_("--since {value}: the date is out of range; use a date between the years 1 and 9999"), ["value": text])
        }
        return Int64(value)
    }
}
