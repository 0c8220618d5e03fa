import ArgumentParser
import Foundation
import OtonHost

/// `oton schedule …`: recordings at set times, run by systemd user timers that oton writes and removes.
struct ScheduleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: tr("Record shows at set times with systemd user timers."),
        discussion: HelpText.paragraphs(
            tr(
                "Each schedule is a systemd user timer and service in $XDG_CONFIG_HOME/systemd/user (default ~/.config/systemd/user), named oton-schedule-<name>.timer and .service; the service runs `oton record STATION --out DIR/NAME --duration D`, naming files \"2026-12-01 20.00 - Artist - Title.mp3\". Times are local. Without a systemd user manager the units are still written (and start with the next one), and the equivalent crontab line is printed."
            ),
            tr("Exit codes: 0 done, 1 the units could not be written or enabled, 2 usage error."),
            HelpText.examples(
                "oton schedule add \"Jazz Hour\" --station \"Oton FM\" --at \"Tue 20:00\" --for 2h",
                "oton schedule add \"Morning\" --station \"Oton FM\" --at 06:30 --every weekdays --for 1h",
                "oton schedule add \"New Year\" --station \"Oton FM\" --at \"2026-12-31 23:00\" --for 2h",
                "oton schedule list", "oton schedule remove \"Jazz Hour\"")
        ),
        subcommands: [Add.self, List.self, Remove.self],
        defaultSubcommand: List.self
    )

    /// `oton schedule list`: oton's timers, each with its next run.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("List the scheduled recordings and their next runs."))

        func run() throws {
            let folder = ScheduleUnitFolder()
            let recordings = folder.recordings()
            if recordings.isEmpty { Terminal.note(tr("no scheduled recordings; add one with oton schedule add")) }
            let manager = SystemdUserManager()
            for recording in recordings {
                let next = manager.nextElapse(recording.time.onCalendar).map { tr("next run {time}", ["time": $0]) } ?? tr("next run unknown")
                print("\(StationsTable.clean(recording.show))  \(StationsTable.clean(recording.station))  \(ScheduleWords.when(recording))  \(next)")
            }
        }
    }

    /// `oton schedule remove NAME`: disables the timer (when a manager runs) and deletes both units.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Remove a scheduled recording: its timer and service."))

        @Argument(help: ArgumentHelp(tr("The schedule's name, as given to `oton schedule add`")))
        var name: String

        func run() throws {
            let folder = ScheduleUnitFolder()
            guard FileManager.default.fileExists(atPath: folder.timerPath(name)) || FileManager.default.fileExists(atPath: folder.servicePath(name)) else {
                Terminal.error(tr("no schedule named {show}", ["show": name]))
                throw ExitStatus.configuration
            }
            let manager = SystemdUserManager()
            let running = manager.isRunning
            if running { _ = manager.systemctl(["disable", "--now", SystemdUnitName.timer(for: name)]) }
            _ = folder.remove(name)
            if running { _ = manager.systemctl(["daemon-reload"]) }
            print(tr("removed {show}", ["show": name]))
        }
    }
}

/// How a schedule is shown: "Tue 20:00 every week for 2h".
enum ScheduleWords {
    static func when(_ recording: ScheduledRecording) -> String {
        let every = recording.time.everyText.map { " every " + $0 } ?? " once"
        return recording.time.atText + every + " for " + duration(recording.seconds)
    }

    static func duration(_ seconds: Int) -> String {
        let parts = [(seconds / 3600, "h"), (seconds % 3600 / 60, "m"), (seconds % 60, "s")].filter { $0.0 > 0 }
        return parts.map { "\($0.0)\($0.1)" }.joined()
    }
}
