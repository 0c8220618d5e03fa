import OtonJSON

/// Archive mode's settings from the file sink's config: `archive` (the period, "1h"),
/// `archive_template`, `archive_tz` ("utc", the default, or "local"), `keep` (an age, "30d") and
/// `keep_size_mb`.
public struct ArchiveSettings: Equatable, Sendable {
    public var period: ArchivePeriod
    public var naming: ArchiveNaming
    public var retention = ArchiveRetention()
    /// Finished segments and their ledgers go to object storage too (nil: they stay local only).
    public var upload: UploadSettings?

    public init(period: ArchivePeriod, naming: ArchiveNaming) {
        self.period = period
        self.naming = naming
    }

    public enum Zone: String, CaseIterable, Sendable {
        case utc
        case local
    }

    /// The period's words for people (every message that refuses one says them).
    public static let periodHint = "a whole number of seconds that divides a day: 10s, 1m, 5m, 15m, 1h, 6h, 1d"

    /// Seconds of a period typed as a duration ("1h"), or a description of what is wrong.
    public static func period(_ text: String) -> Result<Double, PeriodProblem> {
        guard let seconds = try? DurationText.seconds(text) else { return .failure(PeriodProblem(text: text)) }
        guard ArchivePeriod(seconds: seconds) != nil else { return .failure(PeriodProblem(text: text)) }
        return .success(seconds)
    }

    public struct PeriodProblem: Error, Equatable {
        public let text: String
    }

    static func parse(_ config: PluginConfigReader) throws(PluginConfigError) -> ArchiveSettings? {
        func key(_ key: FileSinkKey) -> String { key.rawValue }
        let zoneChoice = try config.choice(key(.archiveTz), Zone.self) ?? .utc
        let zone: ArchiveZone = zoneChoice == .utc ? .utc : .local(.current)
        guard let text = try config.string(key(.archive), nonEmpty: true, expected: "a duration: " + periodHint) else {
            for other in [FileSinkKey.archiveTemplate, .archiveTz, .keep, .keepSizeMb, .whenFull, .upload, .uploadEndpoint, .uploadDelete]
            where config.value(key(other)) != nil {
                throw config.error(key(other), "applies to archive mode only; set archive (e.g. \"1h\") too")
            }
            return nil
        }
        guard case let .success(seconds) = period(text), let period = ArchivePeriod(seconds: seconds, zone: zone) else {
            throw config.error(key(.archive), "must be \(periodHint), not \"\(text)\"")
        }
        let naming: ArchiveNaming
        do {
            naming = try ArchiveNaming(try config.string(key(.archiveTemplate), nonEmpty: true) ?? ArchiveNaming.standard, zone: zone)
        } catch let error as PluginConfigError {
            throw error
        } catch {
            throw config.error(key(.archiveTemplate), "cannot be used: \(error)")
        }
        var settings = ArchiveSettings(period: period, naming: naming)
        if let keep = try config.string(key(.keep), nonEmpty: true) {
            guard let seconds = try? DurationText.seconds(keep), seconds >= 60, seconds <= 100 * 366 * 86400 else {
                throw config.error(key(.keep), "must be an age from 1m to 100 years: 30d, 12h, 90m, not \"\(keep)\"")
            }
            settings.retention.maxAgeNanoseconds = Int64(seconds * 1e9)
        }
        if let megabytes = try config.number(
            key(.keepSizeMb), in: 1.0 / 1024...1_073_741_824,
            expected: "a number of megabytes from 0.0009765625 (1 KiB, the least --keep-size takes) to 1073741824 (1 PiB)")
        {
            settings.retention.maxBytes = UInt64(megabytes * 1_048_576)
        }
        if let choice = try config.choice(key(.whenFull), WhenFull.self) {
            settings.retention.removeOldestWhenFull = choice == .oldest
        }
        settings.upload = try UploadSettings.parse(config)
        return settings
    }

    /// Below the free-space floor (`when_full`, `--when-full`).
    public enum WhenFull: String, CaseIterable, Sendable {
        /// Recording stops (exit 4), as without archive mode.
        case stop
        /// The oldest finished segment goes (logged), and recording goes on.
        case oldest
    }
}
