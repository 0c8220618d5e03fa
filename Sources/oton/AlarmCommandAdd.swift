import ArgumentParser
import Foundation
import OtonHost

extension AlarmCommand {
    /// `oton alarm add TIME --station S [--days mon-fri] [--fade-in 2m] [--volume 40] [--wake]`.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Add an alarm: a systemd timer that plays a station."))

        @Argument(help: ArgumentHelp(tr("When, local time: 07:00, \"Tue 07:00\" (weekday names, full names too) or \"YYYY-MM-DD 07:00\" (once)")))
        var time: [String]

        @Option(name: .long, help: ArgumentHelp(tr("Station name or http(s):// URL, as `oton play` takes it")))
        var station: String

        @Option(name: .long, help: ArgumentHelp(tr("Weekdays with HH:MM: mon-fri, sat,sun, mon,wed,fri (default: every day)")))
        var days: String?

        @Option(name: .long, help: ArgumentHelp(tr("Rise from silence to the volume over this long: 30s, 2m (default: at once)")))
        var fadeIn: String?

        @Option(
            name: .long, help: ArgumentHelp(tr("The volume in percent: 0 to 100, up to 150 amplified"), valueName: "percent"),
            transform: StartVolume.percent)
        var volume: Int?

        @Flag(name: .long, help: ArgumentHelp(tr("Wake a suspended machine: a system timer with WakeSystem=true (needs sudo)")))
        var wake = false

        @Option(
            name: .long, help: ArgumentHelp(tr("plugins.json the alarm plays with, written into the unit (default: $OTON_CONFIG, else where oton play looks)")))
        var config: String?

        func run() throws {
            let folders = AlarmFolders.current
            let configPath = UnitCommandChecks.configPath(config)
            try UnitCommandChecks.checkStation(station, config: configPath)
            let alarm: Alarm
            do {
                let parsed = try ScheduleTime.parse(alarm: time.joined(separator: " "), days: days)
                let fade = try fadeIn.map { try FadeInArgument.seconds($0) } ?? 0
                alarm = try Alarm(
                    number: folders.nextNumber(), station: station, time: parsed,
                    fadeInSeconds: fade, volumePercent: volume,
                    placement: wake ? .system(user: folders.userName, uid: folders.uid) : .user, config: configPath)
            } catch {
                Terminal.error("\(error)")
                throw ExitStatus.configuration
            }
            UnitCommandChecks.noteWhenABuildRuns(AlarmFolders.otonPath)
            if wake { return try addSystemTimer(alarm) }
            let manager = SystemdUserManager()
            let userManagerWakes = (manager.systemdVersion ?? 0) >= SystemdUserManager.firstVersionWakingFromUserTimers
            do {
                try folders.user.write(alarm, oton: AlarmFolders.otonPath, userManagerWakes: userManagerWakes)
            } catch {
                Terminal.error(error.description)
                throw ExitCode.failure
            }
            guard manager.isRunning else {
                Terminal.note(
                    tr(
                        "no systemd user manager runs: the units are written to {folder} and start with the next one; meanwhile this crontab line (crontab -e) does the same:",
                        ["folder": folders.user.path]))
                print(AlarmUnitText.crontabLine(alarm, oton: AlarmFolders.otonPath))
                return
            }
            if let failure = manager.systemctl(["daemon-reload"]) ?? manager.systemctl(["enable", "--now", alarm.timerName]) {
                _ = folders.user.remove(alarm: alarm.number)
                _ = manager.systemctl(["daemon-reload"])
                Terminal.error(tr("cannot enable {unit}: {message}", ["unit": alarm.timerName, "message": failure]))
                throw ExitCode.failure
            }
            announce(alarm, wakes: userManagerWakes, manager: manager)
        }

        /// `--wake`: as root, a system timer; otherwise the one command that does it with sudo.
        private func addSystemTimer(_ alarm: Alarm) throws {
            guard geteuid() == 0 else {
                Terminal.error(tr("waking a suspended machine needs a system timer, which only root may write; run:"))
                print((["sudo", AlarmFolders.otonPath] + CommandLine.arguments.dropFirst()).map(Self.shellWord).joined(separator: " "))
                throw ExitCode.failure
            }
            guard ProcessInfo.processInfo.environment["SUDO_USER"] != nil else {
                Terminal.error(tr("run --wake with sudo as the user who wakes up, so the alarm plays in that user's session"))
                throw ExitStatus.configuration
            }
            let manager = SystemdUserManager()
            do {
                try ScheduleUnitFolder.system.write(alarm, oton: AlarmFolders.otonPath, userManagerWakes: true)
            } catch {
                Terminal.error(error.description)
                throw ExitCode.failure
            }
            if let failure = manager.systemSystemctl(["daemon-reload"]) ?? manager.systemSystemctl(["enable", "--now", alarm.timerName]) {
                _ = ScheduleUnitFolder.system.remove(alarm: alarm.number)
                _ = manager.systemSystemctl(["daemon-reload"])
                Terminal.error(tr("cannot enable {unit}: {message}", ["unit": alarm.timerName, "message": failure]))
                throw ExitCode.failure
            }
            announce(alarm, wakes: true, manager: manager)
        }

        private func announce(_ alarm: Alarm, wakes: Bool, manager: SystemdUserManager) {
            let next = manager.nextElapse(alarm.time.onCalendar).map { tr("next {time}", ["time": $0]) } ?? tr("next run unknown")
            let listed = ScheduleUnitFolder.ListedAlarm(alarm: alarm, wakesSystem: wakes)
            print(
                tr(
                    "alarm {number}: {when}, {next}; {waking}",
                    [
                        "number": "\(alarm.number)", "when": AlarmWords.when(alarm.time),
                        "next": next, "waking": AlarmWords.waking(listed),
                    ]))
        }

        static func shellWord(_ word: String) -> String {
            word.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=,".contains($0) } ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
    }
}

/// `--fade-in` of `oton alarm add` and `oton play`: a duration as `--duration` takes it (30s, 2m), at most an hour.
/// `--fade-in`'s duration: more than 0 and at most an hour, and its messages say so (they said
/// "at most 365 days", `--duration`'s limit, issue 54 §13).
enum FadeInArgument {
    static func seconds(_ text: String) throws -> Int {
        let seconds: Double
        do {
            seconds = try DurationText.seconds(text)
        } catch {
            if case let .bareNumber(number) = error {
                let shown = number.count > 12 ? String(number.prefix(12)) + "…" : number
                throw ValidationError(
                    tr(
                        "--fade-in {value}: a number needs its unit: {number}s for seconds, {number}m for minutes (at most 1h)",
                        ["value": text, "number": shown]))
            }
            throw ValidationError(tr("--fade-in {value}: use 30s, 2m or 1h (more than 0, at most 1h)", ["value": text]))
        }
        guard seconds > 0, seconds <= Double(Alarm.maximumFadeInSeconds) else {
            throw ValidationError(tr("--fade-in {value}: more than 0 and at most 1h", ["value": text]))
        }
        return Int(seconds.rounded())
    }
}
