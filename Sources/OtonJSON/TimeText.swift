#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The one writer (and reader) of the times oton prints: ISO 8601 in UTC to the second
/// ("2024-09-22T10:16:10Z") for JSON, indexes and events, and "m:ss" for what counts down on a
/// terminal or in a reply. Every host file and plugin uses these, so a time reads the same everywhere.
public enum TimeText {
    /// ISO 8601 in UTC to the second, by hand (a formatter was most of the time of a 100,000-row
    /// history listing): to the nearest millisecond, then the second it falls in.
    public static func iso8601(microseconds micros: Int64) -> String {
        func floorDivide(_ value: Int64, _ by: Int64) -> Int64 { value >= 0 ? value / by : (value - by + 1) / by }
        var seconds = time_t(floorDivide(floorDivide(micros + 500, 1000), 1000))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "" }
        func two(_ value: Int32) -> String { value < 10 ? "0" + String(value) : String(value) }
        let year = String(parts.tm_year + 1900)
        return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-" + two(parts.tm_mon + 1) + "-" + two(parts.tm_mday)
            + "T" + two(parts.tm_hour) + ":" + two(parts.tm_min) + ":" + two(parts.tm_sec) + "Z"
    }

    /// ISO 8601 in UTC to the millisecond ("2024-09-22T10:16:10.250Z"), for records where a frame
    /// matters (the archive's gap ledger).
    public static func iso8601Milliseconds(microseconds micros: Int64) -> String {
        func floorDivide(_ value: Int64, _ by: Int64) -> Int64 { value >= 0 ? value / by : (value - by + 1) / by }
        let milliseconds = floorDivide(micros + 500, 1000)
        let second = iso8601(microseconds: floorDivide(milliseconds, 1000) * 1_000_000)
        let fraction = String(milliseconds - floorDivide(milliseconds, 1000) * 1000)
        return second.dropLast() + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
    }

    /// `date` as ``iso8601(microseconds:)`` writes it.
    public static func iso8601(_ date: Date) -> String {
        iso8601(microseconds: Int64((date.timeIntervalSince1970 * 1_000_000).rounded()))
    }

    /// An ISO 8601 time with a zone, with or without fractional seconds ("2024-09-22T10:16:10Z",
    /// "2024-09-22T10:16:10.250+02:00"); nil for anything else.
    public static func date(iso8601 text: String) -> Date? {
        let trimmed = String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        if let date = try? Date(trimmed, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        return try? Date(trimmed, strategy: Date.ISO8601FormatStyle())
    }

    /// Wall-clock time in `timeZone` laid out by `pattern`: "yyyy", "MM", "dd", "HH", "mm" and "ss"
    /// are the year, month, day, hour, minute and second, zero-padded; every other character stands as
    /// it is ("yyyy-MM-dd HH:mm" → "2026-11-27 14:05"). The one writer of local times: file names,
    /// history rows, the window's clock, replies. By hand, not a DateFormatter: those cost most of a
    /// long listing and are not safe to share between the threads of a recorder's file sinks.
    public static func local(_ date: Date, _ pattern: String, timeZone: TimeZone = .current) -> String {
        let seconds = Int64((date.timeIntervalSince1970).rounded(.down))
        var clock = time_t(seconds + Int64(timeZone.secondsFromGMT(for: date)))
        var parts = tm()
        guard gmtime_r(&clock, &parts) != nil else { return "" }
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let fields: [(token: String, text: String)] = [
            ("yyyy", padded(parts.tm_year + 1900, 4)), ("MM", padded(parts.tm_mon + 1, 2)), ("dd", padded(parts.tm_mday, 2)),
            ("HH", padded(parts.tm_hour, 2)), ("mm", padded(parts.tm_min, 2)), ("ss", padded(parts.tm_sec, 2)),
        ]
        var result = ""
        var rest = Substring(pattern)
        while let first = rest.first {
            if let field = fields.first(where: { rest.hasPrefix($0.token) }) {
                result += field.text
                rest = rest.dropFirst(field.token.count)
            } else {
                result.append(first)
                rest = rest.dropFirst()
            }
        }
        return result
    }

    /// A local time in `timeZone` as a person types it: "2026-11-27", "2026-11-27 14:05" or
    /// "2026-11-27 14:05:09", with a space or a "T" between day and time; nil for anything else,
    /// or for a day or time that does not exist ("2026-02-30", "24:00").
    public static func date(local text: String, timeZone: TimeZone = .current) -> Date? {
        let trimmed = String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        let halves = trimmed.split(maxSplits: 1, omittingEmptySubsequences: false) { $0 == " " || $0 == "T" }
        func numbers(_ part: Substring, separator: Character, widths: [ClosedRange<Int>]) -> [Int]? {
            let fields = part.split(separator: separator, omittingEmptySubsequences: false)
            guard fields.count == widths.count else { return nil }
            var values: [Int] = []
            for (field, width) in zip(fields, widths) {
                guard width.contains(field.count), field.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(field) else { return nil }
                values.append(value)
            }
            return values
        }
        guard let day = halves.first.flatMap({ numbers($0, separator: "-", widths: [4...4, 1...2, 1...2]) }) else { return nil }
        var time = [0, 0, 0]
        if halves.count == 2 {
            guard
                let given = numbers(halves[1], separator: ":", widths: [1...2, 2...2])
                    ?? numbers(halves[1], separator: ":", widths: [1...2, 2...2, 2...2])
            else { return nil }
            time = given + (given.count == 2 ? [0] : [])
        }
        guard (1...12).contains(day[1]), (1...31).contains(day[2]), time[0] < 24, time[1] < 60, time[2] < 60 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let components = DateComponents(year: day[0], month: day[1], day: day[2], hour: time[0], minute: time[1], second: time[2])
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date) == day[2]
        else { return nil }  // 2026-02-30 would be March 2
        return date
    }

    /// A length as a clock, rounded to the second: "0:08", "3:07", "1:02:03" (hours only when there
    /// are any). The one form of a track's or a file's length: history rows, recorder lines.
    public static func clock(_ seconds: Double) -> String {
        let total = seconds.isFinite ? max(0, Int(seconds.rounded())) : 0
        guard total >= 3600 else { return minutesSeconds(total) }
        let minutes = total / 60 % 60
        return String(total / 3600) + (minutes < 10 ? ":0" : ":") + minutesSeconds(total % 3600)
    }

    /// "4:05": whole minutes, then two-digit seconds (negative counts as 0).
    public static func minutesSeconds(_ seconds: Int) -> String {
        let seconds = max(0, seconds)
        return String(seconds / 60) + ":" + (seconds % 60 < 10 ? "0" : "") + String(seconds % 60)
    }

    /// How far behind live timeshift playback is: "−1:23" (a minus sign, U+2212), "0:00" at live. The
    /// one form of it: `oton ctl status`, the status line and the window.
    public static func behindLive(milliseconds: Int) -> String {
        let seconds = milliseconds / 1000
        return seconds <= 0 ? "0:00" : "−" + minutesSeconds(seconds)
    }
}
