import Foundation
import OtonSupport

/// When a scheduled recording starts, as `oton schedule add --at … [--every …]` says it: local time,
/// turned into a systemd `OnCalendar=` expression and a crontab time. Pure: no clock, no process.
public struct ScheduleTime: Equatable, Sendable {
    public enum Repeat: Equatable, Sendable {
        /// Once, on this local date (year, month, day).
        case once(year: Int, month: Int, day: Int)
        case daily
        /// Monday to Friday.
        case weekdays
        /// Every week on this weekday, 1 = Monday … 7 = Sunday.
        case weekly(weekday: Int)
        /// Every week on these weekdays (two to six of them, ascending, 1 = Monday): `--days mon,wed,fri`.
        case days([Int])
    }

    public let hour: Int
    public let minute: Int
    public let repeats: Repeat

    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    package static let weekdayNames = Weekdays.names
    package static let fullWeekdayNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    package static let systemdWeekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    public init(hour: Int, minute: Int, repeats: Repeat) {
        self.hour = hour
        self.minute = minute
        self.repeats = repeats
    }

    /// Parses `--at` and `--every` (nil: a weekday repeats weekly, HH:MM daily, a date runs once).
    public static func parse(at text: String, every: String?) throws(Invalid) -> ScheduleTime {
        let refused = Invalid(
            description: tr(
                "--at {value}: use HH:MM (every day), a weekday and HH:MM (\"Tue 20:00\" or \"Tuesday 20:00\", every week), or YYYY-MM-DD HH:MM (once); --every week|day|weekdays",
                ["value": text]))
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard words.count == 1 || words.count == 2, let (hour, minute) = clock(words.last!) else { throw refused }
        var parsed: ScheduleTime
        if words.count == 1 {
            parsed = ScheduleTime(hour: hour, minute: minute, repeats: .daily)
        } else if let weekday = weekday(words[0]) {
            parsed = ScheduleTime(hour: hour, minute: minute, repeats: .weekly(weekday: weekday))
        } else if let (year, month, day) = date(words[0]) {
            parsed = ScheduleTime(hour: hour, minute: minute, repeats: .once(year: year, month: month, day: day))
        } else {
            throw refused
        }
        guard let every else { return parsed }
        switch (every.lowercased(), parsed.repeats) {
        case ("week", .weekly), ("day", .daily): break
        case ("weekdays", .daily): parsed = ScheduleTime(hour: hour, minute: minute, repeats: .weekdays)
        case ("week", _), ("day", _), ("weekdays", _):
            throw Invalid(
                description: tr(
                    "--at {value} --every {every}: --every week needs a weekday (\"Tue 20:00\"), --every day and --every weekdays need HH:MM alone, and a date runs once",
                    ["value": text, "every": every]))
        default:
            throw Invalid(description: tr("--every {every}: use week, day or weekdays", ["every": every]))
        }
        return parsed
    }

    /// The `OnCalendar=` expression: "Tue *-*-* 20:00:00", "*-*-* 20:00:00", "Mon..Fri *-*-* 20:00:00", "2026-12-31 23:00:00".
    public var onCalendar: String {
        let time = String(format: "%02d:%02d:00", hour, minute)
        switch repeats {
        case let .once(year, month, day): return String(format: "%04d-%02d-%02d ", year, month, day) + time
        case .daily: return "*-*-* " + time
        case .weekdays: return "Mon..Fri *-*-* " + time
        case let .weekly(weekday): return Self.systemdWeekdays[weekday - 1] + " *-*-* " + time
        case let .days(days): return days.map { Self.systemdWeekdays[$0 - 1] }.joined(separator: ",") + " *-*-* " + time
        }
    }

    /// The five crontab time fields. Cron has no year: a once-only date repeats every year there.
    public var crontabFields: String {
        switch repeats {
        case let .once(_, month, day): return "\(minute) \(hour) \(day) \(month) *"
        case .daily: return "\(minute) \(hour) * * *"
        case .weekdays: return "\(minute) \(hour) * * 1-5"
        case let .weekly(weekday): return "\(minute) \(hour) * * \(weekday % 7)"
        case let .days(days): return "\(minute) \(hour) * * " + days.map { "\($0 % 7)" }.joined(separator: ",")
        }
    }

    /// Back to the words of `--at` and `--every` (what the units remember).
    public var atText: String {
        let time = String(format: "%02d:%02d", hour, minute)
        switch repeats {
        case let .once(year, month, day): return String(format: "%04d-%02d-%02d ", year, month, day) + time
        case .daily, .weekdays, .days: return time
        case let .weekly(weekday): return Self.systemdWeekdays[weekday - 1] + " " + time
        }
    }

    public var everyText: String? {
        switch repeats {
        case .once: return nil
        case .daily: return "day"
        case .weekdays: return "weekdays"
        case .weekly: return "week"
        case .days: return nil
        }
    }

    package static func clock(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy { ("0"..."9").contains($0) } }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), hour < 24, minute < 60
        else { return nil }
        return (hour, minute)
    }

    package static func weekday(_ text: String) -> Int? {
        let lower = text.lowercased()
        if let index = weekdayNames.firstIndex(of: lower) ?? fullWeekdayNames.firstIndex(of: lower) { return index + 1 }
        return nil
    }

    package static func date(_ text: String) -> (Int, Int, Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy { ("0"..."9").contains($0) } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        return (year, month, day)
    }

    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
