import Foundation

/// The text of a scheduled recording's two units, and reading the timer back. The timer remembers
/// what `schedule add` was told in `X-Oton…=` lines (systemd ignores `X-` keys), so `schedule list`
/// needs nothing but the units.
public enum ScheduleUnitText {
    package static let header = "# Written by `oton schedule add`; `oton schedule remove` deletes it.\n"

    public static func timer(_ recording: ScheduledRecording) -> String {
        var text = header + "[Unit]\n"
        text += "Description=oton scheduled recording: \"\(specifierEscaped(recording.show))\"\n"
        text += "X-OtonShow=\(fieldEscaped(recording.show))\n"
        text += "X-OtonStation=\(fieldEscaped(recording.station))\n"
        text += "X-OtonAt=\(recording.time.atText)\n"
        if let every = recording.time.everyText { text += "X-OtonEvery=\(every)\n" }
        text += "X-OtonSeconds=\(recording.seconds)\n"
        text += "X-OtonOut=\(fieldEscaped(recording.outDirectory))\n"
        text += "X-OtonTemplate=\(fieldEscaped(recording.template))\n"
        if let config = recording.config { text += "X-OtonConfig=\(fieldEscaped(config))\n" }
        text += "\n"
        text += "[Timer]\nOnCalendar=\(recording.time.onCalendar)\nPersistent=true\n"
        text += "Unit=\(SystemdUnitName.service(for: recording.show))\n\n"
        text += "[Install]\nWantedBy=timers.target\n"
        return text
    }

    /// The service: `oton record`, ended by `--duration` (audio) and by `RuntimeMaxSec=` (the clock, a minute later).
    public static func service(_ recording: ScheduledRecording, oton: String) -> String {
        var text = header + "[Unit]\n"
        text += "Description=oton scheduled recording: \"\(specifierEscaped(recording.show))\"\n\n"
        text += "[Service]\nType=exec\n"
        text += "ExecStart=" + recording.recordArguments(oton: oton).map(execQuoted).joined(separator: " ") + "\n"
        text += "RuntimeMaxSec=\(recording.seconds + 60)\n"
        return text
    }

    /// The crontab line doing the same where no systemd user manager runs.
    public static func crontabLine(_ recording: ScheduledRecording, oton: String) -> String {
        recording.time.crontabFields + " " + recording.recordArguments(oton: oton).map(shellQuoted).joined(separator: " ")
    }

    /// The recording a timer written by `timer(_:)` describes (nil for any other file).
    public static func recording(fromTimer text: String) -> ScheduledRecording? {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("X-Oton") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        guard let show = fields["X-OtonShow"].flatMap(fieldUnescaped), let station = fields["X-OtonStation"].flatMap(fieldUnescaped),
            let at = fields["X-OtonAt"], let seconds = fields["X-OtonSeconds"].flatMap({ Int($0) }),
            let out = fields["X-OtonOut"].flatMap(fieldUnescaped),
            let time = try? ScheduleTime.parse(at: at, every: fields["X-OtonEvery"])
        else { return nil }
        // A timer written before --template existed names its files the default way.
        let template = fields["X-OtonTemplate"].flatMap(fieldUnescaped) ?? ScheduledRecording.defaultTemplate
        return try? ScheduledRecording(
            show: show, station: station, time: time, seconds: seconds, outDirectory: out, template: template,
            config: fields["X-OtonConfig"].flatMap(fieldUnescaped))
    }

    /// One ExecStart= word: double-quoted with C escapes, `%` and `$` doubled (no specifiers, no variables).
    package static func execQuoted(_ word: String) -> String {
        var out = "\""
        for character in word {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "%": out += "%%"
            case "$": out += "$$"
            default: out.append(character)
            }
        }
        return out + "\""
    }

    /// One word for sh in a crontab: single-quoted, and `%` (a newline to cron) escaped.
    package static func shellQuoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: "%", with: "\\%") + "'"
    }

    package static func specifierEscaped(_ text: String) -> String { text.replacingOccurrences(of: "%", with: "%%") }

    /// X-Oton values: `%` and `\` percent-encoded, so no value ends in a continuation backslash.
    package static func fieldEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\\", with: "%5C")
    }

    package static func fieldUnescaped(_ text: String) -> String? {
        var out = ""
        var rest = Substring(text)
        while let first = rest.first {
            if rest.hasPrefix("%25") {
                out += "%"; rest = rest.dropFirst(3)
            } else if rest.hasPrefix("%5C") {
                out += "\\"; rest = rest.dropFirst(3)
            } else {
                out.append(first); rest = rest.dropFirst()
            }
        }
        return out
    }
}
