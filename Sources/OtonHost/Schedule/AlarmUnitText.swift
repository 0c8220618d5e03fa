import Foundation

/// The text of an alarm's two units, and reading the timer back. Like a recording's (see
/// ``ScheduleUnitText``), the timer remembers what `alarm add` was told in `X-Oton…=` lines.
public enum AlarmUnitText {
    package static let header = "# Written by `oton alarm add`; `oton alarm remove N` deletes it.\n"

    /// The timer. `WakeSystem=true` in a system timer (`--wake`), and in a user timer where the user
    /// manager honours it (`userManagerWakes`: systemd 254 and later give local sessions CAP_WAKE_ALARM;
    /// older ones would refuse the timer, so it is left out there).
    public static func timer(_ alarm: Alarm, userManagerWakes: Bool = false) -> String {
        var text = header + "[Unit]\n"
        text += "Description=oton alarm \(alarm.number): \"\(ScheduleUnitText.specifierEscaped(alarm.station))\"\n"
        text += "X-OtonAlarm=\(alarm.number)\n"
        text += "X-OtonStation=\(ScheduleUnitText.fieldEscaped(alarm.station))\n"
        text += "X-OtonAt=\(clockText(alarm.time))\n"
        if let days = alarm.time.daysText { text += "X-OtonDays=\(days)\n" }
        text += "X-OtonFadeIn=\(alarm.fadeInSeconds)\n"
        if let volume = alarm.volumePercent { text += "X-OtonVolume=\(volume)\n" }
        if let config = alarm.config { text += "X-OtonConfig=\(ScheduleUnitText.fieldEscaped(config))\n" }
        if case let .system(user, uid) = alarm.placement { text += "X-OtonUser=\(ScheduleUnitText.fieldEscaped(user))\nX-OtonUID=\(uid)\n" }
        text += "\n[Timer]\nOnCalendar=\(alarm.time.onCalendar)\nPersistent=true\n"
        let wakes: Bool = if case .system = alarm.placement { true } else { userManagerWakes }
        if wakes { text += "WakeSystem=true\n" }
        text += "Unit=\(alarm.serviceName)\n\n"
        text += "[Install]\nWantedBy=timers.target\n"
        return text
    }

    /// The service: `oton play STATION --alarm …`; a system one runs as the alarm's user, with the
    /// user's runtime folder, where the sound server and oton's control socket are.
    public static func service(_ alarm: Alarm, oton: String) -> String {
        var text = header + "[Unit]\n"
        text += "Description=oton alarm \(alarm.number): \"\(ScheduleUnitText.specifierEscaped(alarm.station))\"\n\n"
        text += "[Service]\nType=exec\n"
        if case let .system(user, uid) = alarm.placement {
            text += "User=\(user)\n"
            text += "Environment=XDG_RUNTIME_DIR=/run/user/\(uid)\n"
        }
        text += "ExecStart=" + alarm.playArguments(oton: oton).map(ScheduleUnitText.execQuoted).joined(separator: " ") + "\n"
        return text
    }

    /// The crontab line doing the same where no systemd manager runs (the user's crontab; it wakes nothing).
    public static func crontabLine(_ alarm: Alarm, oton: String) -> String {
        alarm.time.crontabFields + " " + alarm.playArguments(oton: oton).map(ScheduleUnitText.shellQuoted).joined(separator: " ")
    }

    /// Whether a timer's text asks to wake the machine.
    public static func wakesSystem(timer text: String) -> Bool {
        text.split(separator: "\n").contains("WakeSystem=true")
    }

    /// The alarm a timer written by `timer(_:)` describes (nil for any other file).
    public static func alarm(fromTimer text: String) -> Alarm? {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("X-Oton") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        guard let number = fields["X-OtonAlarm"].flatMap({ Int($0) }),
            let station = fields["X-OtonStation"].flatMap(ScheduleUnitText.fieldUnescaped),
            let at = fields["X-OtonAt"], let fade = fields["X-OtonFadeIn"].flatMap({ Int($0) }),
            let time = try? ScheduleTime.parse(alarm: at, days: fields["X-OtonDays"])
        else { return nil }
        var placement = Alarm.Placement.user
        if let user = fields["X-OtonUser"].flatMap(ScheduleUnitText.fieldUnescaped), let uid = fields["X-OtonUID"].flatMap({ Int($0) }) {
            placement = .system(user: user, uid: uid)
        }
        return try? Alarm(
            number: number, station: station, time: time, fadeInSeconds: fade,
            volumePercent: fields["X-OtonVolume"].flatMap { Int($0) }, placement: placement,
            config: fields["X-OtonConfig"].flatMap(ScheduleUnitText.fieldUnescaped))
    }

    /// The time as the timer keeps it: "07:00" (the days apart), "Tue 07:00", or "2026-12-01 07:00".
    package static func clockText(_ time: ScheduleTime) -> String {
        switch time.repeats {
        case .once: return time.atText
        case .daily, .weekdays, .weekly, .days: return String(format: "%02d:%02d", time.hour, time.minute)
        }
    }
}
