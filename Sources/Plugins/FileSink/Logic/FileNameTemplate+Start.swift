import Foundation
import OtonJSON

extension FileNameTemplate {
    /// `{start}`: when the recording started, in local time, "2026-12-01 20.00" (a dot, not a colon,
    /// so the name is portable), so every file of one scheduled show sorts and groups by its date.
    public static func startStamp(_ date: Date, timeZone: TimeZone = .current) -> String {
        TimeText.local(date, "yyyy-MM-dd HH.mm", timeZone: timeZone)
    }
}
