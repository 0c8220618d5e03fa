import Foundation
import OtonJSON

/// Reads the replies of the control commands the web remote runs (ABI 1.3 run_command): the
/// control protocol's reply object, `{"ok":true,"text":"…","data":{…}}` or `{"ok":false,"error":"…"}`
/// (docs/control.md). Pure; anything unexpected reads as nothing.
public enum CommandReplies {
    /// The error of a failed reply, or a generic line when the reply is unreadable.
    public static func error(_ replyJSON: String) -> String {
        object(replyJSON)?["error"]?.stringValue ?? "the command failed"
    }

    /// `oton ctl stations`: data.stations, each {"number", "name", "url", "current"}.
    public static func stations(_ replyJSON: String) -> [RemoteState.StationEntry] {
        guard let list = object(replyJSON)?["data"]?["stations"]?.arrayValue else { return [] }
        return list.compactMap { item in
            guard let number = item["number"]?.intValue, let name = item["name"]?.stringValue else { return nil }
            return RemoteState.StationEntry(number: number, name: name, isCurrent: item["current"]?.boolValue ?? false)
        }
    }

    /// `oton ctl status` (or `seek`, `live`): data {"behind_live_ms", "timeshift_held_ms"}; nil without timeshift.
    public static func timeshift(_ replyJSON: String) -> RemoteState.Timeshift? {
        guard let data = object(replyJSON)?["data"], let behind = data["behind_live_ms"]?.numberValue,
            let held = data["timeshift_held_ms"]?.numberValue
        else { return nil }
        return RemoteState.Timeshift(behindMilliseconds: Int(behind), heldMilliseconds: Int(held))
    }

    /// `oton ctl level`: data {"enabled", "gain_db"}; nil when the reply says neither (no levelling here).
    public static func level(_ replyJSON: String) -> RemoteState.Level? {
        guard let data = object(replyJSON)?["data"], let enabled = data["enabled"]?.boolValue else { return nil }
        return RemoteState.Level(enabled: enabled, gainDB: data["gain_db"]?.numberValue)
    }

    /// `oton ctl history --format json`: the text is a JSON array of plays, newest first; plays
    /// without a title and jingles are left out, as the page lists songs heard.
    public static func history(_ replyJSON: String) -> [RemoteState.HistoryEntry] {
        guard let text = object(replyJSON)?["text"]?.stringValue,
            let rows = (try? JSONValue.parse(Data(text.utf8), maxBytes: maximumReplyBytes))?.arrayValue
        else { return [] }
        return rows.compactMap { row in
            guard let title = row["title"]?.stringValue, !title.isEmpty,
                row["jingle"]?.boolValue != true,
                let started = row["started_at"]?.stringValue,
                let date = TimeText.date(iso8601: started)
            else { return nil }
            return RemoteState.HistoryEntry(
                title: title, artist: row["artist"]?.stringValue ?? "",
                station: row["station"]?.stringValue ?? "",
                wallMilliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded()))
        }
    }

    /// Replies come from the host, but a history can be long: 16 MiB, the limit `oton ctl` reads
    /// with (ControlClient.maximumLineBytes, which a plugin cannot import).
    static let maximumReplyBytes = 16 << 20

    private static func object(_ json: String) -> JSONValue? {
        try? JSONValue.parse(Data(json.utf8), maxBytes: maximumReplyBytes)
    }
}
