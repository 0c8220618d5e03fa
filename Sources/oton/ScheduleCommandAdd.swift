import ArgumentParser
import Foundation
import OtonHost

extension ScheduleCommand {
    /// `oton schedule add NAME --station S --at WHEN --for D [--every week|day|weekdays] [--out DIR]`.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Schedule a recording: a systemd user timer and service."))

        @Argument(help: ArgumentHelp(tr("The show's name: names the units and the folder its files go into")))
        var name: String

        @Option(name: .long, help: ArgumentHelp(tr("Station name or http(s):// URL, as `oton record` takes it")))
        var station: String

        @Option(name: .long, help: ArgumentHelp(tr("When, local time: HH:MM, \"Tue 20:00\" (weekday names, full names too) or \"YYYY-MM-DD HH:MM\" (once)")))
        var at: String

        @Option(name: .customLong("for"), help: ArgumentHelp(tr("How long: 90s, 30m, 2h or 1h30m (at most 24h)")))
        var length: String

        @Option(name: .long, help: ArgumentHelp(tr("week, day or weekdays (default: a weekday repeats weekly, HH:MM daily, a date runs once)")))
        var every: String?

        @Option(name: .long, help: ArgumentHelp(tr("Folder that holds the show's folder (default ~/Music/oton)")))
        var out: String?

        @Option(
            name: .long,
            help: ArgumentHelp(tr("File names inside the show's folder, as oton record --template takes them (default {start} - {artist} - {title}.{ext})")))
        var template: String?

        @Option(
            name: .long,
            help: ArgumentHelp(tr("plugins.json the recording runs with, written into the unit (default: $OTON_CONFIG, else where oton record looks)")))
        var config: String?

        func run() throws {
            let configPath = UnitCommandChecks.configPath(config)
            try UnitCommandChecks.checkStation(station, config: configPath)
            let recording: ScheduledRecording
            do {
                let time = try ScheduleTime.parse(at: at, every: every)
                let seconds = try RecordArguments.seconds(length)
                recording = try ScheduledRecording(
                    show: name, station: station, time: time, seconds: Int(seconds.rounded(.up)),
                    outDirectory: outDirectory(), template: template ?? ScheduledRecording.defaultTemplate,
                    config: configPath)
            } catch let error as RecordArguments.Invalid {
                Terminal.error(error.description.replacingOccurrences(of: "--duration", with: "--for"))
                throw ExitStatus.configuration
            } catch {
                Terminal.error("\(error)")
                throw ExitStatus.configuration
            }
            let folder = ScheduleUnitFolder()
            let existing = folder.recordings()
            guard !FileManager.default.fileExists(atPath: folder.timerPath(name)) else {
                Terminal.error(tr("a schedule named {show} exists; remove it first: oton schedule remove {show}", ["show": name]))
                throw ExitStatus.configuration
            }
            for other in existing where other.overlaps(recording) {
                Terminal.note(tr("{show} overlaps {other} on {station}; both are kept", ["show": name, "other": other.show, "station": station]))
            }
            let oton = UnitCommandChecks.otonPath
            UnitCommandChecks.noteWhenABuildRuns(oton)
            do {
                try folder.write(recording, oton: oton)
            } catch {
                Terminal.error(error.description)
                throw ExitCode.failure
            }
            try enable(recording, folder: folder, oton: oton)
        }

        /// Starts the timer with the user manager; without one, says so and prints the crontab line.
        private func enable(_ recording: ScheduledRecording, folder: ScheduleUnitFolder, oton: String) throws {
            let manager = SystemdUserManager()
            let timer = SystemdUnitName.timer(for: recording.show)
            guard manager.isRunning else {
                Terminal.note(
                    tr(
                        "no systemd user manager runs: the units are written to {folder} and start with the next one; meanwhile this crontab line (crontab -e) does the same:",
                        ["folder": folder.path]))
                print(ScheduleUnitText.crontabLine(recording, oton: oton))
                if case .once = recording.time.repeats { Terminal.note(tr("cron has no year: remove the line after the show")) }
                return
            }
            if let failure = manager.systemctl(["daemon-reload"]) ?? manager.systemctl(["enable", "--now", timer]) {
                _ = folder.remove(recording.show)
                _ = manager.systemctl(["daemon-reload"])
                Terminal.error(tr("cannot enable {unit}: {message}", ["unit": timer, "message": failure]))
                throw ExitCode.failure
            }
            let next = manager.nextElapse(recording.time.onCalendar).map { tr("next run {time}", ["time": $0]) } ?? tr("next run unknown")
            print(tr("scheduled {show}: {when}, {next}", ["show": recording.show, "when": ScheduleWords.when(recording), "next": next]))
        }

        private func outDirectory() -> String {
            let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
            guard let out else { return home + "/Music/oton" }
            if out.hasPrefix("~/") { return home + out.dropFirst() }
            return out.hasPrefix("/") ? out : FileManager.default.currentDirectoryPath + "/" + out
        }
    }
}
