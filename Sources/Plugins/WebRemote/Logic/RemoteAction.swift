import FoundationEssentials
import OtonJSON

/// What the page may ask for: the player requests the ABI offers a plugin (the same requests
/// `oton ctl` turns into), the sleep timer's `oton ctl sleep` and loudness levelling's `oton ctl
/// level` (run through the ABI 1.3 run_command), parsed from a POST body such as
/// {"action": "volume", "value": 0.5}.
public enum RemoteAction: Sendable, Equatable {
    case play
    case pause
    case playPause
    case stop
    case volume(Double)
    case nextStation
    case previousStation
    case switchStation(String)
    /// The argument of `oton ctl sleep`: "30m" (1–1440 minutes), "after-track" or "cancel".
    case sleep(String)
    /// `oton ctl level on|off`: loudness levelling (docs/levelling.md).
    case level(Bool)
    /// `oton ctl seek -30s|+30s`: timeshift (docs/timeshift.md); seconds, -3600 to 3600.
    case seek(seconds: Int)
    /// `oton ctl live`.
    case live

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public static func parse(_ body: [UInt8]) throws(Invalid) -> RemoteAction {
        guard let object = (try? JSONParser(maxBytes: body.count).parse(Data(body)))?.objectValue,
            let name = object["action"]?.stringValue
        else {
            throw Invalid(description: "send a JSON object such as {\"action\": \"play-pause\"}")
        }
        switch name {
        case "play": return .play
        case "pause": return .pause
        case "play-pause", "toggle": return .playPause
        case "stop": return .stop
        case "next": return .nextStation
        case "prev", "previous": return .previousStation
        case "volume":
            guard let value = object["value"]?.numberValue, value >= 0, value <= 1 else {
                throw Invalid(description: "volume needs \"value\" from 0 to 1")
            }
            return .volume(value)
        case "station":
            guard let station = object["station"]?.stringValue, !station.isEmpty, station.utf8.count <= 2048 else {
                throw Invalid(description: "station needs \"station\": a name, a number or a URL")
            }
            return .switchStation(station)
        case "sleep":
            guard let value = object["value"]?.stringValue, let argument = sleepArgument(value) else {
                throw Invalid(description: "sleep needs \"value\": minutes such as \"30m\" (1 to 1440), \"after-track\" or \"cancel\"")
            }
            return .sleep(argument)
        case "level":
            guard let value = object["value"]?.stringValue, let on = ["on": true, "off": false][value] else {
                throw Invalid(description: "level needs \"value\": \"on\" or \"off\"")
            }
            return .level(on)
        case "seek":
            guard let value = object["seconds"]?.numberValue, value.rounded() == value, abs(value) <= 3600, value != 0 else {
                throw Invalid(description: "seek needs \"seconds\": a whole number from -3600 to 3600, not 0")
            }
            return .seek(seconds: Int(value))
        case "live": return .live
        default:
            throw Invalid(description: "unknown action \"\(name)\"; use play, pause, play-pause, stop, volume, next, prev, station, sleep, level, seek or live")
        }
    }

    /// Only what the page offers reaches the sleep command: whole minutes, after-track, cancel.
    static func sleepArgument(_ value: String) -> String? {
        if value == "after-track" || value == "cancel" { return value }
        guard value.hasSuffix("m"), let minutes = Int(value.dropLast()), (1...1440).contains(minutes),
            value.dropLast().allSatisfy(\.isASCII)
        else { return nil }
        return "\(minutes)m"
    }
}
