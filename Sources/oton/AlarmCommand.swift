import ArgumentParser
import Foundation
import OtonHost

/// `oton alarm …`: wake up to a station, by systemd timers that oton writes and removes.
struct AlarmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarm",
        abstract: tr("Wake up to a station: alarms run by systemd timers."),
        discussion: HelpText.paragraphs(
            tr(
                "Each alarm is a systemd user timer and service in $XDG_CONFIG_HOME/systemd/user (default ~/.config/systemd/user), named oton-alarm-N.timer and .service; the service runs `oton play STATION --alarm --fade-in D --volume P`. Times are local. An alarm is never silent: when the station cannot be reached within 20 s a built-in tone plays instead. `oton ctl snooze 10m` stops it and plays again 10 minutes later."
            ),
            tr(
                "A user timer fires only while the machine is awake unless the user manager may wake it (systemd 254 and later, local sessions). --wake writes a system timer with WakeSystem=true instead (run it with sudo); `oton alarm list` says which alarms wake a suspended machine."
            ),
            tr("Exit codes: 0 done, 1 the units could not be written or enabled (or --wake needs sudo), 2 usage error."),
            HelpText.examples(
                "oton alarm add 07:00 --station \"Oton FM\" --days mon-fri --fade-in 2m --volume 40",
                "oton alarm add \"Sat 09:30\" --station \"Jazz 24\"",
                "sudo oton alarm add 06:45 --station \"Oton FM\" --days mon-fri --wake",
                "oton alarm list", "oton alarm remove 1")
        ),
        subcommands: [Add.self, List.self, Remove.self],
        defaultSubcommand: List.self
    )

    /// `oton alarm list`: every alarm, its next time and whether it wakes a suspended machine.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("List the alarms, their next times and whether each wakes a suspended machine."))

        @Option(name: .long, help: ArgumentHelp(tr("table or json")))
        var format: String = "table"

        func validate() throws {
            guard ["table", "json"].contains(format) else { throw ValidationError(tr("--format takes table or json, not \"{value}\"", ["value": format])) }
        }

        func run() throws {
            let alarms = AlarmFolders.current.all()
            let manager = SystemdUserManager()
            if format == "json" {
                // For scripts and `oton window`: the words are the listing's, in the reader's language; the keys stay English.
                let rows: [JSONValue] = alarms.map { listed in
                    [
                        "number": .int(listed.alarm.number), "station": .string(listed.alarm.station), "when": .string(AlarmWords.when(listed.alarm.time)),
                        "next": manager.nextElapse(listed.alarm.time.onCalendar).map(JSONValue.string) ?? .null,
                        "fade_in_seconds": .int(listed.alarm.fadeInSeconds), "volume": listed.alarm.volumePercent.map { .int($0) } ?? .null,
                        "wakes_system": .bool(listed.wakesSystem),
                    ]
                }
                print(JSONValue.array(rows).jsonText)
                return
            }
            if alarms.isEmpty { Terminal.note(tr("no alarms; add one with oton alarm add 07:00 --station NAME")) }
            for listed in alarms {
                let next = manager.nextElapse(listed.alarm.time.onCalendar).map { tr("next {time}", ["time": $0]) } ?? tr("next run unknown")
                print(
                    "\(listed.alarm.number)  \(AlarmWords.when(listed.alarm.time))  \(StationsTable.clean(listed.alarm.station))"
                        + "\(AlarmWords.sound(listed.alarm))  \(next)  \(AlarmWords.waking(listed))")
            }
        }
    }

    /// `oton alarm remove N`: disables the timer (when a manager runs), deletes both units, reloads.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Remove an alarm: its timer and service."))

        @Argument(help: ArgumentHelp(tr("The alarm's number, as `oton alarm list` shows it")))
        var number: Int

        func run() throws {
            let folders = AlarmFolders.current
            guard let listed = folders.all().first(where: { $0.alarm.number == number }) else {
                Terminal.error(tr("no alarm {number}; oton alarm list shows them", ["number": "\(number)"]))
                throw ExitStatus.configuration
            }
            let manager = SystemdUserManager()
            switch listed.alarm.placement {
            case .user:
                let running = manager.isRunning
                if running { _ = manager.systemctl(["disable", "--now", listed.alarm.timerName]) }
                _ = folders.user.remove(alarm: number)
                if running { _ = manager.systemctl(["daemon-reload"]) }
            case .system:
                guard geteuid() == 0 else {
                    Terminal.error(
                        tr(
                            "alarm {number} is a system timer (it wakes the machine); remove it with: {command}",
                            ["number": "\(number)", "command": "sudo " + AlarmFolders.otonPath + " alarm remove \(number)"]))
                    throw ExitCode.failure
                }
                _ = manager.systemSystemctl(["disable", "--now", listed.alarm.timerName])
                _ = ScheduleUnitFolder.system.remove(alarm: number)
                _ = manager.systemSystemctl(["daemon-reload"])
            }
            print(tr("removed alarm {number}", ["number": "\(number)"]))
        }
    }
}

/// Where alarms are: the user's unit folder, and the system's for `--wake` alarms of this user.
struct AlarmFolders {
    let user: ScheduleUnitFolder
    let userName: String
    let uid: Int

    /// The user's folder; under sudo, the folder of the user who ran sudo.
    static var current: AlarmFolders {
        let environment = ProcessInfo.processInfo.environment
        if geteuid() == 0, let name = environment["SUDO_USER"], let uid = environment["SUDO_UID"].flatMap(Int.init),
            let entry = getpwnam(name)
        {
            return AlarmFolders(
                user: ScheduleUnitFolder(path: String(cString: entry.pointee.pw_dir) + "/.config/systemd/user"),
                userName: name, uid: uid)
        }
        let name = getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? environment["USER"] ?? "\(getuid())"
        return AlarmFolders(user: ScheduleUnitFolder(environment: environment), userName: name, uid: Int(getuid()))
    }

    /// Every alarm of this user, by number: user timers, then system timers.
    func all() -> [ScheduleUnitFolder.ListedAlarm] {
        (user.alarms() + ScheduleUnitFolder.system.alarms(user: userName)).sorted { $0.alarm.number < $1.alarm.number }
    }

    /// The number for a new alarm: free in the user's folder and in the system's, whoever's alarms
    /// are there (system units share one namespace, and a write must never replace another's).
    func nextNumber() -> Int {
        Alarm.nextNumber(after: (user.alarms() + ScheduleUnitFolder.system.alarms()).map(\.alarm))
    }

    static var otonPath: String { UnitCommandChecks.otonPath }
}

/// How an alarm is shown: "07:00 mon-fri", " fade-in 2m volume 40%", "wakes a suspended machine".
enum AlarmWords {
    static func when(_ time: ScheduleTime) -> String {
        switch time.repeats {
        case .once: return time.atText + " " + tr("once")
        case .daily: return time.atText + " " + tr("every day")
        case .weekdays, .weekly, .days: return String(format: "%02d:%02d ", time.hour, time.minute) + (time.daysText ?? "")
        }
    }

    static func sound(_ alarm: Alarm) -> String {
        var text = ""
        if alarm.fadeInSeconds > 0 { text += "  " + tr("fade-in {duration}", ["duration": ScheduleWords.duration(alarm.fadeInSeconds)]) }
        if let volume = alarm.volumePercent { text += "  " + tr("volume {percent}", ["percent": VolumeArgument.text(percent: volume, in: .current)]) }
        return text
    }

    static func waking(_ listed: ScheduleUnitFolder.ListedAlarm) -> String {
        let text: String
        switch listed.alarm.placement {
        case .system: text = tr("wakes a suspended machine (system timer)")
        case .user where listed.wakesSystem: text = tr("wakes a suspended machine if the session is local (systemd 254+)")
        case .user: return tr("fires only while the machine is awake (user timer; --wake for a system timer)")
        }
        // WakeSystem= programs the real-time clock's wake alarm: without one, nothing wakes the machine.
        guard !FileManager.default.fileExists(atPath: rtcWakeAlarm) else { return text }
        return text + "; " + tr("but this machine has no RTC wake alarm ({path})", ["path": rtcWakeAlarm])
    }

    static let rtcWakeAlarm = "/sys/class/rtc/rtc0/wakealarm"
}
