import Foundation

/// Reads the replies of the control commands the web remote runs (ABI 1.3 run_command): the
/// control protocol's reply object, `{"ok":true,"text":"…","data":{…}}` or `{"ok":false,"error":"…"}`
/// (docs/control.md). Pure; anything unexpected reads as nothing.
public enum CommandReplies {
    /// The error of a failed reply, or a generic line when the reply is unreadable.
    public static func error(_ replyJSON: String) -> String {
        object(replyJSON)?["error"] as? String ?? "the command failed"
    }

    /// `oton ctl stations`: data.stations, each {"number", "name", "url", "current"}.
    public static func stations(_ replyJSON: String) -> [RemoteState.StationEntry] {
        guard let data = object(replyJSON)?["data"] as? [String: Any], let list = data["stations"] as? [Any] else { return [] }
        return list.compactMap { item in
            guard let item = item as? [String: Any], let number = item["number"] as? Int, let name = item["name"] as? String else { return nil }
            return RemoteState.StationEntry(number: number, name: name, isCurrent: item["current"] as? Bool ?? false)
        }
    }

    /// `oton ctl history --format json`: the text is a JSON array of plays, newest first; plays
    /// without a title and jingles are left out, as the page lists songs heard.
    public static func history(_ replyJSON: String) -> [RemoteState.HistoryEntry] {
        guard let text = object(replyJSON)?["text"] as? String,
              let rows = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any] else { return [] }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        return rows.compactMap { row in
            guard let row = row as? [String: Any], let title = row["title"] as? String, !title.isEmpty,
                  row["jingle"] as? Bool != true,
                  let started = row["started_at"] as? String,
                  let date = iso.date(from: started) ?? plain.date(from: started) else { return nil }
            return RemoteState.HistoryEntry(title: title, artist: row["artist"] as? String ?? "",
                                            station: row["station"] as? String ?? "",
                                            wallMilliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded()))
        }
    }

    private static func object(_ json: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
    }
}
