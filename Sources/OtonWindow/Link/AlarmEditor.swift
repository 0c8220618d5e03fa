import Foundation
import OtonSupport

/// The alarms through the command line's own code (`oton alarm list --format json`, `add TIME
/// --station NAME`, `remove N`): the same systemd units, checks and messages as `oton alarm`.
final class AlarmEditor: @unchecked Sendable {
    private let config: String?
    private let queue = DispatchQueue(label: "oton.window.alarms")

    init(config: String?) {
        self.config = config
    }

    /// The alarms, or the CLI's message.
    func list(_ done: @escaping @Sendable ([AlarmRow]?, String?) -> Void) {
        queue.async {
            let run = OtonCommand.run(["alarm", "list", "--format", "json"])
            guard run.status == 0, let rows = AlarmRow.list(fromJSON: run.output) else { return done(nil, run.message) }
            done(rows, nil)
        }
    }

    /// `oton alarm add WHEN --station STATION [--days mon,wed]` (with the window's plugins.json); `days`:
    /// weekdays, 1 = Monday (none or all: every day). `done` gets the CLI's message on failure.
    func add(when: String, station: String, days: Set<Int> = [], done: @escaping @Sendable (String?) -> Void) {
        var words = ["alarm", "add", "--station=" + station]
        if let days = Weekdays.daysArgument(days) { words.append("--days=" + days) }
        if let config { words.append("--config=" + config) }
        words += ["--", when]  // a time typed with a leading "-" is a time the CLI refuses, not an option
        queue.async { [words] in
            let run = OtonCommand.run(words)
            done(run.status == 0 ? nil : run.message)
        }
    }

    func remove(_ number: Int, done: @escaping @Sendable (String?) -> Void) {
        queue.async {
            let run = OtonCommand.run(["alarm", "remove", "\(number)"])
            done(run.status == 0 ? nil : run.message)
        }
    }
}
