import Foundation
import OtonJSON

/// An alarm starting while another `oton play` runs as the "default" instance (the one `oton ctl`
/// reaches): the alarm asks it to make way (`alarm-takeover`: it cancels its sleep timer and quits),
/// waits until its socket is gone, then plays as "default" itself. One player is heard, `oton ctl
/// snooze` reaches the alarm, and a sleep timer set the night before cannot end the alarm.
/// A recorder, or an oton too old to know the command, answers "unknown command" and is left alone.
public enum AlarmTakeover {
    public enum Outcome: Equatable, Sendable {
        /// No oton answered as "default".
        case nobodyRuns
        /// It quit; its socket is gone.
        case tookOver
        /// It refused or is no player; the alarm plays beside it under another instance name.
        case leftAlone(String)
    }

    public static func run(instance: String = "default", waitSeconds: Double = 10) -> Outcome {
        let path = ControlSocketPath.socket(instance: instance)
        guard UnixSocket.isLive(path) else { return .nobodyRuns }
        let reply: [String: JSONValue]
        do {
            let client = try ControlClient(instance: instance)
            client.setTimeout(seconds: 5)
            reply = try client.send(["alarm-takeover"])
        } catch {
            return .leftAlone(error.description)
        }
        guard reply["ok"]?.boolValue == true else { return .leftAlone(reply["error"]?.stringValue ?? "refused") }
        let deadline = Date().addingTimeInterval(waitSeconds)
        while UnixSocket.isLive(path) {
            guard Date() < deadline else { return .leftAlone("it did not quit within \(Int(waitSeconds)) s") }
            usleep(50_000)
        }
        return .tookOver
    }
}
