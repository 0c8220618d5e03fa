import ArgumentParser
import FileSinkLogic
import Foundation
import OtonHost

/// `oton record`'s archive mode: segments cut at wall-clock boundaries, a gap ledger beside each,
/// retention. Turned into the file sink's config keys (``FileSinkKey``).
struct ArchiveOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            tr("Archive mode: also write segments cut at clock boundaries every 1m, 5m, 15m, 1h, 1d … (a period that divides a day), each with a gap ledger"),
            valueName: "period"))
    var archive: String?

    @Option(name: .customLong("archive-tz"), help: ArgumentHelp(tr("Boundaries and names of archive segments in utc (default) or local time")))
    var archiveTZ: String?

    @Option(name: .long, help: ArgumentHelp(tr("Archive segment names (default {station}/{yyyy}/{mm}/{dd}/{start}.{ext}; also {hh})")))
    var archiveTemplate: String?

    @Flag(name: .long, inversion: .prefixedNo, help: ArgumentHelp(tr("With --archive: per-track files too, beside the segments")))
    var tracks = false

    @Option(name: .long, help: ArgumentHelp(tr("With --archive: remove finished segments older than this (30d, 12h)"), valueName: "age"))
    var keep: String?

    @Option(
        name: .long,
        help: ArgumentHelp(tr("With --archive: remove the oldest finished segments while the archive is larger than this (500G, 800M)"), valueName: "size"))
    var keepSize: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            tr("With --archive, below --disk-floor: stop recording (default) or remove the oldest finished segment (oldest)"), valueName: "stop|oldest"))
    var whenFull: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            tr("With --archive: upload each finished segment and its ledger to object storage (credentials and region from the AWS variables or ~/.aws)"),
            valueName: "s3://bucket/prefix"))
    var upload: String?

    @Option(
        name: .long,
        help: ArgumentHelp(tr("With --upload: an S3-compatible server's address (MinIO, Ceph …; else AWS_ENDPOINT_URL, else AWS itself)"), valueName: "url"))
    var uploadEndpoint: String?

    @Flag(name: .long, help: ArgumentHelp(tr("With --upload: remove the local segment and ledger once their upload is confirmed")))
    var uploadDelete = false

    /// "500G", "2T", "800M" (powers of 1024, an optional B or iB), or bytes.
    static func size(_ text: String) -> Double? {
        let units: [Character: Double] = ["k": 1024, "m": 1_048_576, "g": 1_073_741_824, "t": 1_099_511_627_776]
        var digits = Substring(text.lowercased())
        if digits.hasSuffix("ib") { digits = digits.dropLast(2) } else if digits.hasSuffix("b") { digits = digits.dropLast() }
        var multiplier = 1.0
        if let last = digits.last, let unit = units[last] {
            multiplier = unit
            digits = digits.dropLast()
        }
        return RecordArguments.decimal(String(digits)).map { $0 * multiplier }
    }

    /// The file sink's archive keys, or a usage error (exit 2) that says what is wrong.
    func sinkConfig() throws -> [String: JSONValue] {
        guard let archive else {
            for (flag, given) in [
                ("--archive-tz", archiveTZ != nil), ("--archive-template", archiveTemplate != nil), ("--keep", keep != nil),
                ("--keep-size", keepSize != nil), ("--when-full", whenFull != nil), ("--upload", upload != nil),
                ("--upload-endpoint", uploadEndpoint != nil), ("--upload-delete", uploadDelete),
            ] where given {
                Terminal.error(tr("{flag} applies to archive mode only: add --archive 1h (or another period)", ["flag": flag]))
                throw ExitStatus.configuration
            }
            return [:]
        }
        var config: [String: JSONValue] = [:]
        guard case .success = ArchiveSettings.period(archive) else {
            Terminal.error(
                tr(
                    "--archive {value}: use a period that divides a day: 1m, 5m, 15m, 1h, 6h, 1d (any whole number of seconds that divides a day, from 1s)",
                    ["value": archive]))
            throw ExitStatus.configuration
        }
        config[FileSinkKey.archive.rawValue] = .string(archive)
        config[FileSinkKey.tracks.rawValue] = .bool(tracks)
        if let archiveTZ {
            guard ArchiveSettings.Zone(rawValue: archiveTZ) != nil else {
                Terminal.error(tr("--archive-tz {value}: use utc or local", ["value": archiveTZ]))
                throw ExitStatus.configuration
            }
            config[FileSinkKey.archiveTz.rawValue] = .string(archiveTZ)
        }
        if let archiveTemplate {
            do {
                _ = try ArchiveNaming(archiveTemplate, zone: .utc)
            } catch {
                Terminal.error("--archive-template: \(error.description)")
                throw ExitStatus.configuration
            }
            config[FileSinkKey.archiveTemplate.rawValue] = .string(archiveTemplate)
        }
        if let keep {
            guard let seconds = try? DurationText.seconds(keep), seconds >= 60, seconds <= 100 * 366 * 86400 else {
                Terminal.error(tr("--keep {value}: use an age such as 30d, 12h or 90m (from 1m to 100 years)", ["value": keep]))
                throw ExitStatus.configuration
            }
            config[FileSinkKey.keep.rawValue] = .string(keep)
        }
        if let whenFull {
            guard ArchiveSettings.WhenFull(rawValue: whenFull) != nil else {
                Terminal.error(tr("--when-full {value}: use stop or oldest", ["value": whenFull]))
                throw ExitStatus.configuration
            }
            config[FileSinkKey.whenFull.rawValue] = .string(whenFull)
        }
        if let keepSize {
            guard let bytes = Self.size(keepSize), bytes >= 1024, bytes <= 1_125_899_906_842_624 else {
                Terminal.error(tr("--keep-size {value}: use 500G, 2T or 800M (from 1K to 1024T)", ["value": keepSize]))
                throw ExitStatus.configuration
            }
            config[FileSinkKey.keepSizeMb.rawValue] = .number(bytes / 1_048_576)
        }
        try uploadConfig(into: &config)
        return config
    }

    /// --upload, --upload-endpoint, --upload-delete: checked here (the address, the endpoint, that
    /// credentials are there) so that a mistake is a usage error before anything is recorded.
    private func uploadConfig(into config: inout [String: JSONValue]) throws {
        guard let upload else {
            for (flag, given) in [("--upload-endpoint", uploadEndpoint != nil), ("--upload-delete", uploadDelete)] where given {
                Terminal.error(tr("{flag} applies to uploads only: add --upload s3://bucket/prefix", ["flag": flag]))
                throw ExitStatus.configuration
            }
            return
        }
        guard S3Destination(upload) != nil else {
            Terminal.error(
                tr("--upload {value}: use s3://bucket/prefix (a bucket name of 3 to 63 lower-case letters, digits, dots and hyphens)", ["value": upload]))
            throw ExitStatus.configuration
        }
        if let uploadEndpoint, !S3Destination.isEndpoint(uploadEndpoint) {
            Terminal.error(tr("--upload-endpoint {value}: use an http:// or https:// address such as http://127.0.0.1:9000", ["value": uploadEndpoint]))
            throw ExitStatus.configuration
        }
        do {
            _ = try AWSEnvironment.resolve(environment: ProcessInfo.processInfo.environment) { path in
                FileManager.default.contents(atPath: path).flatMap { String(data: $0, encoding: .utf8) }
            }
        } catch {
            Terminal.error("--upload \(upload): \(error.description)")
            throw ExitStatus.configuration
        }
        config[FileSinkKey.upload.rawValue] = .string(upload)
        if let uploadEndpoint { config[FileSinkKey.uploadEndpoint.rawValue] = .string(uploadEndpoint) }
        if uploadDelete { config[FileSinkKey.uploadDelete.rawValue] = .bool(true) }
    }
}

/// `oton record`'s air watch: the level sampled (MP3), dead air, title stalls and format changes
/// announced as alerts (events, metrics, `--on-alert`). Turned into the file sink's config keys.
struct AirWatchOptions: ParsableArguments {
    @Flag(
        name: .long,
        help: ArgumentHelp(
            tr("Watch what is on air: sample each station's level (MP3), and announce dead air, title stalls and format changes (implied by the options below)")
        ))
    var airWatch = false

    @Option(name: .long, help: ArgumentHelp(tr("Dead air: a level below this many dBFS (default -50)"), valueName: "dBFS"))
    var silenceThreshold: Double?

    @Option(name: .long, help: ArgumentHelp(tr("Dead air: silent this long (default 30s)"), valueName: "duration"))
    var silenceAfter: String?

    @Option(name: .long, help: ArgumentHelp(tr("Title stall: the same title this long (15m, 2h; not watched unless given)"), valueName: "duration"))
    var titleStallAfter: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            tr(
                "Run this shell command for each alert, with OTON_ALERT_STATION, OTON_ALERT_KIND and OTON_ALERT_DETAILS in its environment (at most 4 at once, 30 s each)"
            ), valueName: "command"))
    var onAlert: String?

    var isOn: Bool { airWatch || silenceThreshold != nil || silenceAfter != nil || titleStallAfter != nil || onAlert != nil }

    /// The file sink's air watch keys, or a usage error (exit 2) that says what is wrong.
    func sinkConfig() throws -> [String: JSONValue] {
        guard isOn else { return [:] }
        var config: [String: JSONValue] = [FileSinkKey.airWatch.rawValue: .bool(true)]
        if let silenceThreshold {
            guard silenceThreshold.isFinite, (-120...0).contains(silenceThreshold) else {
                Terminal.error(tr("--silence-threshold {value}: use a level in dBFS from -120 to 0, such as -50", ["value": String(silenceThreshold)]))
                throw ExitStatus.configuration
            }
            config[FileSinkKey.silenceThreshold.rawValue] = .number(silenceThreshold)
        }
        for (flag, text, key, range) in [
            ("--silence-after", silenceAfter, FileSinkKey.silenceAfter, 1.0...86400),
            ("--title-stall-after", titleStallAfter, FileSinkKey.titleStallAfter, 1.0...30 * 86400),
        ] {
            guard let text else { continue }
            guard let seconds = try? DurationText.seconds(text), range.contains(seconds) else {
                Terminal.error(tr("{flag} {value}: use a duration such as 30s, 5m or 2h (from 1s)", ["flag": flag, "value": text]))
                throw ExitStatus.configuration
            }
            config[key.rawValue] = .number(seconds)
        }
        return config
    }
}
