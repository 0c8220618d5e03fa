/// `--days` of `oton alarm add`: weekdays as a list and ranges ("mon-fri", "sat,sun", "mon,wed,fri"),
/// mapped onto the same repeats as `oton schedule --every` (Mon–Fri is `.weekdays`, one day `.weekly`).
extension ScheduleTime {
    /// The forms an alarm's time and `--days` accept, for every refusal.
    public static let alarmAcceptedForms =
        "HH:MM (every day), a weekday and HH:MM (\"Tue 07:00\", every week), or YYYY-MM-DD HH:MM (once); --days with HH:MM: mon-fri, sat,sun, mon,wed,fri (names or full names)"

    /// Parses an alarm's time and `--days` (nil: as the time alone says).
    public static func parse(alarm text: String, days: String?) throws(Invalid) -> ScheduleTime {
        let parsed: ScheduleTime
        do {
            parsed = try parse(at: text, every: nil)
        } catch {
            throw Invalid(description: "\(text): use " + alarmAcceptedForms)
        }
        guard let days else { return parsed }
        guard parsed.repeats == .daily else {
            throw Invalid(description: "\(text) --days \(days): --days goes with HH:MM alone (a weekday or a date already says the day)")
        }
        return ScheduleTime(hour: parsed.hour, minute: parsed.minute, repeats: try repeats(days: days))
    }

    /// "mon-fri" → `.weekdays`, "tue" → `.weekly(2)`, "sat,sun" → `.days([6, 7])`, every day → `.daily`.
    public static func repeats(days text: String) throws(Invalid) -> Repeat {
        let refused = Invalid(description: "--days \(text): use weekday names and ranges such as mon-fri, sat,sun or mon,wed,fri")
        var chosen = Set<Int>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false).map { weekday(String($0).trimmingCharacters(in: " ")) }
            guard (1...2).contains(ends.count), let first = ends.first ?? nil, let last = ends.last ?? nil else { throw refused }
            // A range wraps over the week's end: fri-mon is Fri, Sat, Sun, Mon.
            var day = first
            while true {
                chosen.insert(day)
                if day == last { break }
                day = day % 7 + 1
            }
        }
        let days = chosen.sorted()
        switch days {
        case [1, 2, 3, 4, 5]: return .weekdays
        case [1, 2, 3, 4, 5, 6, 7]: return .daily
        case let one where one.count == 1: return .weekly(weekday: one[0])
        default: return .days(days)
        }
    }

    /// The days as `--days` takes them back: "mon-fri", "tue", "sat,sun"; nil for a daily or once-only time.
    public var daysText: String? {
        switch repeats {
        case .once, .daily: return nil
        case .weekdays: return "mon-fri"
        case let .weekly(weekday): return Self.weekdayNames[weekday - 1]
        case let .days(days): return days.map { Self.weekdayNames[$0 - 1] }.joined(separator: ",")
        }
    }
}
