/// Start times on a plain count of local days, for comparing two schedules (no time zones: both
/// are local time, and a daylight-saving shift moves both alike).
extension ScheduleTime {
    /// Days since 1970-01-01 of a once-only date.
    public var onceDay: Int? {
        guard case let .once(year, month, day) = repeats else { return nil }
        return Self.dayNumber(year: year, month: month, day: day)
    }

    /// Every start, in minutes since 1970-01-01 00:00, on the given days.
    public func startMinutes(inDays days: ClosedRange<Int>) -> [Int] {
        days.filter(runs(onDay:)).map { $0 * 1440 + hour * 60 + minute }
    }

    package func runs(onDay day: Int) -> Bool {
        let weekday = ((day % 7 + 7) % 7 + 3) % 7 + 1  // 1970-01-01 was a Thursday (4)
        switch repeats {
        case .once: return day == onceDay
        case .daily: return true
        case .weekdays: return weekday <= 5
        case let .weekly(wanted): return weekday == wanted
        case let .days(wanted): return wanted.contains(weekday)
        }
    }

    /// Days from 1970-01-01 to a Gregorian date (Howard Hinnant's days_from_civil).
    package static func dayNumber(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
