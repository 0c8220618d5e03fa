/// Names archive segments from a template: `{station}/{yyyy}/{mm}/{dd}/{start}.{ext}` by default,
/// with `{hh}` (the hour) too. All of them are the segment's start in the archive's zone; `{start}`
/// is `2026-11-27T12-00-00Z` in UTC, `2026-11-27T13-00-00+0100` in local time (no colons, so
/// the name is portable, and names sort by time). The time named is ``namedTime(of:)``.
public struct ArchiveNaming: Equatable, Sendable {
    public static let standard = "{station}/{yyyy}/{mm}/{dd}/{start}.{ext}"
    /// Several stations each in their own folder: the station is already the folder.
    public static let standardInStationFolder = "{yyyy}/{mm}/{dd}/{start}.{ext}"
    public static let placeholders: Set<String> = ["station", "yyyy", "mm", "dd", "hh", "start", "ext"]

    public var template: FileNameTemplate
    public var zone: ArchiveZone

    public init(_ text: String, zone: ArchiveZone) throws(FileNameTemplate.Invalid) {
        template = try FileNameTemplate(text, placeholders: Self.placeholders)
        self.zone = zone
    }

    /// The time a segment's name carries. Cut at its boundary, the boundary: a segment cut at
    /// 11:59:59.990 is the 12:00 segment. Begun elsewhere (the recording's start, after an outage,
    /// a format change), the second it began in, floored: a segment begun at 11:59:59.6 after an
    /// outage is 11-59-59 and sorts before the 12:00 segment cut 0.4 s later (rounded, both were
    /// 12-00-00 and the second became `12-00-00Z (2)`, which sorts first).
    public static func namedTime(of segment: ArchiveSplitter.Segment) -> Int64 {
        namedTime(start: segment.start, periodStart: segment.periodStart, fromBoundary: segment.fromBoundary)
    }

    public static func namedTime(start: Int64, periodStart: Int64, fromBoundary: Bool) -> Int64 {
        fromBoundary ? periodStart : ArchivePeriod.floorDivide(start, 1_000_000_000) * 1_000_000_000
    }

    /// The path relative to the output folder (made safe by the template), without `.part`; `start`
    /// is rounded to the nearest second.
    public func relativePath(start wall: Int64, station: String?, container: StreamContainer, caps: String) -> String {
        let parts = Self.civil(wall, offsetSeconds: zone.offsetSeconds(at: wall))
        return template.render([
            "station": station ?? "", "yyyy": parts.year, "mm": parts.month, "dd": parts.day, "hh": parts.hour,
            "start": parts.stamp, "ext": container.fileExtension(caps: caps),
        ])
    }

    struct Civil {
        var year, month, day, hour, stamp: String
    }

    /// The local date and time of `wall` (rounded to the second) at this UTC offset.
    static func civil(_ wall: Int64, offsetSeconds: Int64) -> Civil {
        let seconds = ArchivePeriod.floorDivide(wall + 500_000_000, 1_000_000_000) + offsetSeconds
        let days = ArchivePeriod.floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        // Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's civil_from_days).
        let z = days + 719_468
        let era = ArchivePeriod.floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let hour = secondOfDay / 3600, minute = secondOfDay / 60 % 60, second = secondOfDay % 60
        let zone: String
        if offsetSeconds == 0 {
            zone = "Z"
        } else {
            let minutes = abs(offsetSeconds) / 60
            zone = (offsetSeconds < 0 ? "-" : "+") + two(minutes / 60) + two(minutes % 60)
        }
        let yearText = String(year)
        let paddedYear = String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText
        return Civil(
            year: paddedYear, month: two(month), day: two(day), hour: two(hour),
            stamp: "\(paddedYear)-\(two(month))-\(two(day))T\(two(hour))-\(two(minute))-\(two(second))\(zone)")
    }
}
