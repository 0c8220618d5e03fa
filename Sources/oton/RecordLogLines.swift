import FileSinkLogic
import Foundation
import OtonHost
import PluginAPI

/// `oton record`'s output: one line per finished track on standard output,
/// connection trouble and a stopped recording on standard error.
final class RecordLogLines: MailboxConsumer, RecordingObserver, @unchecked Sendable {  // `lock` guards the counts
    private static let id = "oton.cli.record-lines"
    private var subscription: BusSubscription?
    private let lock = NSLock()
    private var failure: String?
    private var files = 0
    private var problem: String?
    /// A recorder of several stations: error lines say which station.
    private let prefix: String
    /// `--on-alert`: the command each air-watch alert runs.
    private let onAlert: BoundedCommands?

    init(bus: PluginBus, station: String? = nil, onAlert: BoundedCommands? = nil) {
        prefix = station.map { "\($0): " } ?? ""
        self.onAlert = onAlert
        let kinds = [OTON_EVENT_NAME_RECORDING_DONE, OTON_EVENT_NAME_RECORDING_STOPPED, OTON_EVENT_NAME_ALERT].compactMap { bus.registry.kind(for: $0) }
        subscription = BusSubscription(bus: bus, id: Self.id, kinds: .only(Set(kinds + [OTON_EVENT_STATE])), consumer: self)
    }

    var filesWritten: Int {
        lock.lock(); defer { lock.unlock() }
        return files
    }

    var lastProblem: String? {
        lock.lock(); defer { lock.unlock() }
        return problem
    }

    /// The error that stopped the recording, if one did.
    var recordingFailure: String? {
        lock.lock(); defer { lock.unlock() }
        return failure
    }

    func deliver(event: FrozenEvent) {
        let fields = Dictionary(event.event.fields, uniquingKeysWith: { _, last in last })
        switch event.event.name {
        case OTON_EVENT_NAME_RECORDING_DONE:
            // --wishlist: every other track is dropped; a line each would bury the wishes.
            if fields[OTON_FIELD_REASON_CODE] == "not-wished" { return }
            if fields[OTON_FIELD_STATUS] == "complete" || fields[OTON_FIELD_STATUS] == "incomplete" { lock.lock(); files += 1; lock.unlock() }
            StandardOutput.write(Self.finishedLine(fields) + "\n")
        case OTON_EVENT_NAME_ALERT:
            // The file sink logged it (a warning); the command gets the alert in its environment.
            let station = fields[OTON_FIELD_STATION] ?? ""
            let kind = fields[OTON_FIELD_KIND] ?? ""
            var environment = ["OTON_ALERT_STATION": station, "OTON_ALERT_KIND": kind, "OTON_ALERT_DETAILS": fields[OTON_FIELD_DETAILS] ?? ""]
            if let seconds = fields[OTON_FIELD_SECONDS] { environment["OTON_ALERT_SECONDS"] = seconds }
            if let level = fields[OTON_FIELD_LEVEL_DBFS] { environment["OTON_ALERT_LEVEL_DBFS"] = level }
            onAlert?.run(environment: environment, tag: "on-alert \(station) \(kind)")
        case OTON_EVENT_NAME_RECORDING_STOPPED:
            let message = fields[OTON_FIELD_MESSAGE] ?? "recording stopped"
            if fields[OTON_FIELD_ERROR] == "true" {
                lock.lock(); failure = message; lock.unlock()
            }
            lock.lock(); problem = message; lock.unlock()
            Terminal.error(prefix + message)
        default:
            // Each failure and its reconnect are the player's log lines; this line only says that a
            // station of several gave up (a single station's end is the command's own last line).
            // Both used to say every reconnect, in other words.
            if case let .state(state) = event.event.payload, let error = state.error {
                lock.lock(); problem = error.message; lock.unlock()
                if state.state == .error, !prefix.isEmpty {
                    Terminal.error(prefix + "\(error.kind): \(error.playbackError?.localizedMessage ?? error.message)")
                }
            }
        }
    }

    func deliver(media: MediaPacket, extraFlags: UInt32) {}
    func deliverDropNotice(_ counts: Mailbox.DropCounts) {}

    /// Waits for the lines already queued, then stops listening.
    func close() {
        subscription?.close()
    }

    /// "complete: /srv/rec/Station/A - B.mp3 (3:07, 4.2 MB)", "dropped: Station/A - B.mp3 (4.1 s, 48 KB): too short (4.1 s < 5.0 s), not kept",
    /// in the user's language (the file sink's English reason is used only for reasons this does not know).
    static func finishedLine(_ fields: [String: String]) -> String {
        let seconds = Double(fields[OTON_FIELD_SECONDS] ?? "") ?? 0
        let size = formatBytes(UInt64(fields[OTON_FIELD_BYTES] ?? "") ?? 0)
        let status: String =
            switch fields[OTON_FIELD_STATUS] {
            case "complete": tr("complete")
            case "incomplete": tr("incomplete")
            case "dropped": tr("dropped")
            case "failed": tr("failed")
            case "archive": tr("archive segment")
            default: fields[OTON_FIELD_STATUS] ?? "finished"
            }
        let path = fields[OTON_FIELD_PATH].flatMap { $0.isEmpty ? nil : $0 } ?? fields[OTON_FIELD_NAME].flatMap { $0.isEmpty ? nil : $0 } ?? tr("a track")
        var line = "\(status): \(path) (\(formatSeconds(seconds)), \(size))"
        let reason: String? =
            switch fields[OTON_FIELD_REASON_CODE] {
            case "too-short":
                tr(
                    "too short ({seconds} < {minimum}), not kept",
                    ["seconds": formatSecondsBelow(seconds), "minimum": formatSecondsPrecisely(Double(fields[OTON_FIELD_MIN_SECONDS] ?? "") ?? 0)])
            case "partial-dropped":
                tr("incomplete (begun or ended mid-track) and --partial drop asks not to keep those, not kept")
            case "wish-not-kept":
                tr("a wish already kept or being recorded from another station, not kept (--again keeps it again)")
            default:
                fields[OTON_FIELD_REASON].flatMap { $0.isEmpty ? nil : $0 }
            }
        if let reason { line += ": \(reason)" }
        return line
    }
}
