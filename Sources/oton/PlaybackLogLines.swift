import Foundation
import OtonHost
import PluginAPI

/// Without a terminal (or with --no-tui): one line per state or track change, and
/// (with a file sink in plugins.json) one per finished file, as `oton record` prints it.
/// Buffering is one line when it starts and the next state when it ends, not a
/// line per 10 % step.
final class PlaybackLogLines: MailboxConsumer, @unchecked Sendable {
    private static let id = "oton.cli.log-lines"
    private var subscription: BusSubscription?
    /// The last state printed (the mailbox delivers on one thread).
    private var lastState: String?

    init(bus: PluginBus) {
        let recordings = [OTON_EVENT_NAME_RECORDING_DONE, OTON_EVENT_NAME_RECORDING_STOPPED].compactMap { bus.registry.kind(for: $0) }
        subscription = BusSubscription(bus: bus, id: Self.id, kinds: .only(Set([OTON_EVENT_STATE, OTON_EVENT_TRACK] + recordings)), consumer: self)
    }

    func deliver(event: FrozenEvent) {
        let line: String
        switch event.event.payload {
        case let .state(state):
            let name = state.state.name
            if name == "buffering" && lastState == "buffering" { return }
            lastState = name
            var text = "state: \(name)"
            if let percent = state.bufferingPercent, percent > 0 { text += " (\(percent)% buffered)" }
            if let error = state.error {
                text += " (\(error.kind): \(error.message)\(state.retryAttempt > 0 ? "; reconnect attempt \(state.retryAttempt)" : ""))"
            }
            line = text
        case let .track(track, _):
            line = "now playing: " + TrackText.line(track)
        default:
            let fields = Dictionary(event.event.fields, uniquingKeysWith: { _, last in last })
            switch event.event.name {
            case OTON_EVENT_NAME_RECORDING_DONE:
                line = RecordLogLines.finishedLine(fields)
            case OTON_EVENT_NAME_RECORDING_STOPPED where fields[OTON_FIELD_ERROR] != "true":  // an error is in the log already
                line = fields[OTON_FIELD_MESSAGE] ?? "recording stopped"
            default:
                return
            }
        }
        StandardOutput.write(line + "\n")
    }

    func deliver(media: MediaPacket, extraFlags: UInt32) {}
    func deliverDropNotice(_ counts: Mailbox.DropCounts) {}

    func close() {
        subscription?.close(drain: false)
    }
}

enum TrackText {
    /// "Artist – Title · Station"
    static func line(_ track: TrackInfo) -> String {
        var parts: [String] = []
        let song = SongText.line(artist: track.artist, title: track.title, source: track.titleSource?.wireName)
        if !song.isEmpty { parts.append(song) }
        if let station = track.station { parts.append(station) }
        return parts.isEmpty ? "(no title)" : parts.joined(separator: " · ")
    }
}
