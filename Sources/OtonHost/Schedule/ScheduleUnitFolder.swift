import Foundation

/// The folder of systemd user units (`$XDG_CONFIG_HOME/systemd/user`, else `~/.config/systemd/user`)
/// and oton's scheduled-recording units in it: written both or neither, read back, removed.
public struct ScheduleUnitFolder: Sendable {
    public let path: String

    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public init(path: String) { self.path = path }

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        path = config + "/systemd/user"
    }

    public func timerPath(_ show: String) -> String { path + "/" + SystemdUnitName.timer(for: show) }
    public func servicePath(_ show: String) -> String { path + "/" + SystemdUnitName.service(for: show) }
    /// The link `systemctl --user enable` makes; written by oton too, so the timer starts with the next manager.
    public func enabledLinkPath(_ show: String) -> String { path + "/timers.target.wants/" + SystemdUnitName.timer(for: show) }

    /// Writes the service, then the timer, each atomically, then links the timer into
    /// `timers.target.wants` (as `systemctl --user enable` does); when a later step fails the
    /// earlier ones are undone, so the folder never holds half a schedule.
    public func write(_ recording: ScheduledRecording, oton: String) throws(Failure) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw Failure(description: "cannot create \(path): \(error.localizedDescription)")
        }
        let service = servicePath(recording.show)
        do {
            try AtomicFileWriter.write(Data(ScheduleUnitText.service(recording, oton: oton).utf8), to: service)
        } catch {
            throw Failure(description: error.description)
        }
        do {
            try AtomicFileWriter.write(Data(ScheduleUnitText.timer(recording).utf8), to: timerPath(recording.show))
        } catch {
            unlink(service)
            throw Failure(description: error.description + "; nothing was scheduled")
        }
        let link = enabledLinkPath(recording.show)
        unlink(link)
        do {
            try FileManager.default.createDirectory(atPath: (link as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../" + SystemdUnitName.timer(for: recording.show))
        } catch {
            _ = remove(recording.show)
            throw Failure(description: "cannot enable the timer in \(path)/timers.target.wants: \(error.localizedDescription); nothing was scheduled")
        }
    }

    /// The schedules oton wrote (files named `oton-schedule-*.timer` that read back), by show name.
    public func recordings() -> [ScheduledRecording] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { $0.hasPrefix(SystemdUnitName.prefix) && $0.hasSuffix(".timer") }.sorted().compactMap { name in
            guard let text = try? String(contentsOfFile: path + "/" + name, encoding: .utf8) else { return nil }
            return ScheduleUnitText.recording(fromTimer: text)
        }
    }

    /// Removes the show's timer, service and enabling link; false when none was there.
    public func remove(_ show: String) -> Bool {
        let removed = [enabledLinkPath(show), timerPath(show), servicePath(show)].map { (path: String) -> Bool in unlink(path) == 0 }
        return removed.contains(true)
    }
}
