import Foundation

extension FileNameTemplate {
    /// `{start}`: when the recording started, in local time, "2026-12-01 20.00" (a dot, not a colon,
    /// so the name is portable), so every file of one scheduled show sorts and groups by its date.
    public static func startStamp(_ date: Date, timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02d %02d.%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0)
    }
}
