import OtonControl
import OtonEvents
import OtonJSON
import OtonMedia
import OtonPlayback
import OtonSupport
import PluginAPI

/// `seek`, `live` and the status's "behind live" (docs/timeshift.md).
extension ControlCommands {
    /// `seek -30s|+10s|-5m|30s`: back (−) or forward (+, or no sign) from what is heard.
    func seek(_ arguments: [String]) -> ControlReply {
        guard arguments.count == 1, let milliseconds = Self.seekMilliseconds(arguments[0]) else {
            return .failure(tr("usage: seek -30s|+10s|-5m (back with -, forward with +)"))
        }
        return moved(player.seek(.by(milliseconds * 1_000_000)))
    }

    /// `live`: back to the live edge.
    func live() -> ControlReply {
        moved(player.seek(.behindLive(0)))
    }

    /// "-30s" → −30,000; "+1m30s" → 90,000; nil when it is not a signed duration.
    package static func seekMilliseconds(_ text: String) -> Int64? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        var sign: Int64 = 1
        if let first = rest.first, first == "-" || first == "+" || first == "−" {
            sign = first == "+" ? 1 : -1
            rest = rest.dropFirst()
        }
        guard let seconds = try? DurationText.seconds(String(rest)), seconds <= TimeshiftSettings.maxSeconds else { return nil }
        return sign * Int64((seconds * 1000).rounded())
    }

    private func moved(_ result: TimeshiftSeek?) -> ControlReply {
        guard let result else { return .failure(Self.noTimeshift) }
        var (text, data) = Self.behindLive(player.snapshot.timeshift)
        switch result {
        case .moved: break
        case .live: text = tr("live")
        case let .clampedToStart(held):
            text = Player.clampText(held: held)
            data["clamped"] = .bool(true)
        }
        return .success(text, data: data)
    }

    package static var noTimeshift: String {
        tr("no timeshift here: it needs oton play of a live stream with --timeshift above 0 (HLS and DASH have none yet)")
    }

    /// "−1:23 behind live" / "live", and the figures: behind_live_ms, behind_live (text), timeshift_held_ms, timeshift_limit_ms.
    package static func behindLive(_ position: TimeshiftPosition?) -> (text: String, data: [String: JSONValue]) {
        guard let position else { return ("", [:]) }
        let milliseconds = Int(position.behindLive / 1_000_000)
        let text = milliseconds < 1000 ? tr("live") : tr("{behind} behind live", ["behind": behindText(milliseconds)])
        return (
            text,
            [
                OTON_FIELD_BEHIND_LIVE_MS: .int(milliseconds), "behind_live": .string(behindText(milliseconds)),
                OTON_FIELD_TIMESHIFT_HELD_MS: .int(Int(position.held / 1_000_000)),
                OTON_FIELD_TIMESHIFT_LIMIT_MS: .int(Int(position.limit / 1_000_000)),
            ]
        )
    }

    /// "−1:23" (0:00 at live): TimeText's.
    package static func behindText(_ milliseconds: Int) -> String {
        TimeText.behindLive(milliseconds: milliseconds)
    }
}
