import Foundation
import OtonHost
import PluginAPI

/// `oton record`'s output: one line per finished track on standard output,
/// connection trouble and a stopped recording on standard error.
final class RecordLogLines: MailboxConsumer, @unchecked Sendable {
    private static let id = "oton.cli.record-lines"
    static let stoppedEventName = "org.oton.file-sink.stopped"
    private let bus: PluginBus
    private let mailbox: Mailbox
    private let lock = NSLock()
    private var failure: String?

    init(bus: PluginBus) {
        self.bus = bus
        mailbox = bus.makeMailbox(for: Self.id)
        mailbox.start(consumer: self)
        let kinds = [OTON_EVENT_NAME_RECORDING_DONE, Self.stoppedEventName].compactMap { bus.registry.kind(for: $0) }
        bus.subscribe(id: Self.id, kinds: .only(Set(kinds + [OTON_EVENT_STATE])), mailbox: mailbox)
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
            StandardOutput.write(Self.finishedLine(fields) + "\n")
        case Self.stoppedEventName:
            let message = fields["message"] ?? "recording stopped"
            if fields["error"] == "true" {
                lock.lock(); failure = message; lock.unlock()
            }
            Terminal.error(message)
        default:
            if case let .state(state) = event.event.payload, let error = state.error {
                Terminal.error("\(error.kind): \(error.message)\(state.retryAttempt > 0 ? " (reconnect attempt \(state.retryAttempt))" : "")")
            }
        }
    }

    func deliver(media: MediaPacket, extraFlags: UInt32) {}
    func deliverDropNotice(_ counts: Mailbox.DropCounts) {}

    /// Waits for the lines already queued, then stops listening.
    func close() {
        mailbox.drain()
        bus.unsubscribe(id: Self.id)
        mailbox.close()
    }

    /// "complete: /rec/Oton FM/A - B.mp3 (3:05, 4.2 MB)"; a track not kept names the file it would have
    /// been, with the reason in words: "dropped: Oton FM/A - B.mp3 (4.1 s, 66 KB): too short (4.1 s < 5 s), not kept".
    static func finishedLine(_ fields: [String: String]) -> String {
        let seconds = Double(fields["seconds"] ?? "") ?? 0
        let bytes = Double(fields["bytes"] ?? "") ?? 0
        let status = fields["status"] ?? "finished"
        let path = fields["path"].flatMap { $0.isEmpty ? nil : $0 } ?? fields["name"].flatMap { $0.isEmpty ? nil : $0 } ?? "the track"
        var line = "\(status): \(path) (\(duration(seconds)), \(size(bytes)))"
        if let reason = fields["reason"], !reason.isEmpty { line += ": \(reason)" }
        return line
    }

    /// Sizes as a person reads them (powers of 1000, as file managers show them): "512 bytes", "48 KB", "4.2 MB", "1.3 GB".
    static func size(_ bytes: Double) -> String {
        switch bytes {
        case ..<1000: return "\(Int(bytes)) bytes"
        case ..<999_500: return "\(Int((bytes / 1000).rounded())) KB"
        case ..<999_950_000: return String(format: "%.1f MB", bytes / 1_000_000)
        default: return String(format: "%.1f GB", bytes / 1_000_000_000)
        }
    }

    /// "4.1 s" under ten seconds (where a tenth matters), "3:05" and "1:02:03" above.
    static func duration(_ seconds: Double) -> String {
        if seconds < 10 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        return whole >= 3600 ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
            : String(format: "%d:%02d", whole / 60, whole % 60)
    }
}
