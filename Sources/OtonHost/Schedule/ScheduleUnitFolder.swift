import Foundation
import OtonSupport

/// A folder of systemd units (the user's: `$XDG_CONFIG_HOME/systemd/user`, else `~/.config/systemd/user`;
/// or the system's, /etc/systemd/system, for alarms that wake the machine) and oton's timer-and-service
/// pairs in it: written both or neither, read back, removed. Recordings and alarms both live here.
public struct ScheduleUnitFolder: Sendable {
    public let path: String

    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The system manager's folder, where a timer with WakeSystem= always wakes the machine.
    public static let system = ScheduleUnitFolder(path: "/etc/systemd/system")

    public init(path: String) { self.path = path }

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        path = XDGPaths(environment: environment).systemdUserUnits ?? NSHomeDirectory() + "/.config/systemd/user"
    }

    public func timerPath(_ show: String) -> String { path + "/" + SystemdUnitName.timer(for: show) }
    public func servicePath(_ show: String) -> String { path + "/" + SystemdUnitName.service(for: show) }
    /// The link `systemctl --user enable` makes; written by oton too, so the timer starts with the next manager.
    public func enabledLinkPath(_ show: String) -> String { linkPath(timer: SystemdUnitName.timer(for: show)) }
    public func linkPath(timer: String) -> String { path + "/timers.target.wants/" + timer }

    /// Writes a recording's service and timer (see ``write(timer:_:service:_:)``).
    public func write(_ recording: ScheduledRecording, oton: String) throws(Failure) {
        try write(
            timer: SystemdUnitName.timer(for: recording.show), ScheduleUnitText.timer(recording),
            service: SystemdUnitName.service(for: recording.show), ScheduleUnitText.service(recording, oton: oton))
    }

    /// Writes the service, then the timer, each atomically, then links the timer into
    /// `timers.target.wants` (as `systemctl enable` does); when a later step fails the
    /// earlier ones are undone, so the folder never holds half a schedule.
    public func write(timer: String, _ timerText: String, service: String, _ serviceText: String) throws(Failure) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw Failure(description: "cannot create \(path): \(error.localizedDescription)")
        }
        let servicePath = path + "/" + service
        do {
            try AtomicFileWriter.write(Data(serviceText.utf8), to: servicePath)
        } catch {
            throw Failure(description: error.description)
        }
        do {
            try AtomicFileWriter.write(Data(timerText.utf8), to: path + "/" + timer)
        } catch {
            unlink(servicePath)
            throw Failure(description: error.description + "; nothing was scheduled")
        }
        let link = linkPath(timer: timer)
        unlink(link)
        do {
            try FileManager.default.createDirectory(atPath: (link as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../" + timer)
        } catch {
            _ = remove(timer: timer, service: service)
            throw Failure(description: "cannot enable the timer in \(path)/timers.target.wants: \(error.localizedDescription); nothing was scheduled")
        }
    }

    /// The schedules oton wrote (files named `oton-schedule-*.timer` that read back), by show name.
    public func recordings() -> [ScheduledRecording] {
        timerTexts(prefix: SystemdUnitName.prefix).compactMap { ScheduleUnitText.recording(fromTimer: $0.text) }
    }

    /// The text of every timer whose name starts with `prefix`, by name.
    public func timerTexts(prefix: String) -> [(name: String, text: String)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".timer") }.sorted().compactMap { name in
            (try? String(contentsOfFile: path + "/" + name, encoding: .utf8)).map { (name, $0) }
        }
    }

    /// Removes the show's timer, service and enabling link; false when none was there.
    public func remove(_ show: String) -> Bool {
        remove(timer: SystemdUnitName.timer(for: show), service: SystemdUnitName.service(for: show))
    }

    /// Removes a timer, its service and its enabling link; false when none was there.
    public func remove(timer: String, service: String) -> Bool {
        let removed = [linkPath(timer: timer), path + "/" + timer, path + "/" + service].map { (path: String) -> Bool in unlink(path) == 0 }
        return removed.contains(true)
    }
}
