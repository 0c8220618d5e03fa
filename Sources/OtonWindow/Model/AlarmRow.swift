import Foundation
import OtonJSON
import OtonSupport

/// An alarm as Preferences list it, from `oton alarm list --format json` (the units `oton alarm` writes). Pure.
public struct AlarmRow: Equatable, Sendable {
    public var number: Int
    /// "07:00 every day"
    public var title: String
    /// "Lab FM · next Mon 2026-11-30 07:00:00 CET"
    public var subtitle: String

    /// nil when `json` is not the array the command prints.
    public static func list(fromJSON json: String) -> [AlarmRow]? {
        guard let rows = (try? JSONValue.parse(Data(json.utf8), maxBytes: 1 << 20))?.arrayValue else { return nil }
        return rows.compactMap { row in
            guard let number = row["number"]?.int64Value, let when = row["when"]?.stringValue,
                let station = row["station"]?.stringValue
            else { return AlarmRow?.none }
            let next = row["next"]?.stringValue.map { tr("next {time}", ["time": $0]) }
            return AlarmRow(number: Int(number), title: when, subtitle: [station, next].compactMap { $0 }.joined(separator: " · "))
        }
    }
}
