import Foundation
import OtonSupport

/// One scheduled recording: what `oton schedule add` was told, everything its units need.
public struct ScheduledRecording: Equatable, Sendable {
    public let show: String
    public let station: String
    public let time: ScheduleTime
    /// The window in whole seconds (at most a day, so a daily show cannot overlap itself).
    public let seconds: Int
    /// The folder that holds the show's folder (absolute).
    public let outDirectory: String

    public static let maximumSeconds = 86400
    /// Files are named by the show's start and the track: `Jazz Hour/2026-12-01 20.00 - Artist - Title.mp3`.
    public static let defaultTemplate = "{start} - {artist} - {title}.{ext}"
    /// The file-name template of `oton record --template` (`schedule add --template`), inside the show's folder.
    public let template: String
    /// The plugins.json the recording runs with (`schedule add --config`, or $OTON_CONFIG then), absolute; nil: the usual places.
    public let config: String?

    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public init(
        show: String, station: String, time: ScheduleTime, seconds: Int, outDirectory: String,
        template: String = ScheduledRecording.defaultTemplate, config: String? = nil
    ) throws(Invalid) {
        guard !show.trimmingCharacters(in: " ").isEmpty, !station.isEmpty else {
            throw Invalid(description: tr("the show name and the station must not be empty"))
        }
        let refusals = [
            tr("the show name contains control characters"), tr("the station contains control characters"), tr("the --out contains control characters"),
            tr("the --template contains control characters"),
        ]
        for (refusal, text) in zip(refusals, [show, station, outDirectory, template])
        where text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw Invalid(description: refusal)
        }
        guard SystemdUnitName.escape(show).utf8.count <= SystemdUnitName.maximumEscapedBytes else {
            throw Invalid(description: tr("the show name is too long for a unit name; use a shorter one"))
        }
        guard seconds > 0, seconds <= Self.maximumSeconds else { throw Invalid(description: tr("--for must be more than 0 s and at most 24h")) }
        guard outDirectory.hasPrefix("/") else { throw Invalid(description: tr("--out must be an absolute folder")) }
        guard template.contains("{ext}"), !template.hasPrefix("/") else {
            throw Invalid(
                description: tr("--template must end the name with {ext} and stay inside the show's folder, e.g. {example}", ["example": Self.defaultTemplate]))
        }
        if let problem = ScheduledCommandWords.problem(station: station, config: config) { throw Invalid(description: problem) }
        self.config = config
        self.template = template
        self.show = show
        self.station = station
        self.time = time
        self.seconds = seconds
        self.outDirectory = outDirectory
    }

    /// The folder the show's files go into.
    public var showDirectory: String {
        (outDirectory.hasSuffix("/") ? outDirectory : outDirectory + "/") + show.replacingOccurrences(of: "/", with: "-")
    }

    /// The command the service runs (and the crontab line): `oton record --out=DIR/SHOW --duration=Ns --template=… -- STATION`;
    /// values joined to their options and the station after `--`, so none is read as an option.
    public func recordArguments(oton: String) -> [String] {
        [oton, "record", "--out=\(showDirectory)", "--duration=\(seconds)s", "--template=\(template)"]
            + (config.map { ["--config=\($0)"] } ?? []) + ["--", station]
    }

    /// Whether this window and `other` ever run at the same time (same station only): every start
    /// in a span of 17 days around a once-only date (or any 17 days) is compared; both repeat at
    /// most weekly and last at most a day, so that span shows every way they can meet.
    public func overlaps(_ other: ScheduledRecording) -> Bool {
        guard other.station == station else { return false }
        let centre = time.onceDay ?? other.time.onceDay ?? 0
        let days = (centre - 8)...(centre + 8)
        let mine = (seconds + 59) / 60, theirs = (other.seconds + 59) / 60
        let otherStarts = other.time.startMinutes(inDays: days)
        return time.startMinutes(inDays: days).contains { start in
            otherStarts.contains { start < $0 + theirs && $0 < start + mine }
        }
    }
}

extension String {
    package func trimmingCharacters(in set: Character) -> String {
        var text = Substring(self)
        while text.first == set { text.removeFirst() }
        while text.last == set { text.removeLast() }
        return String(text)
    }
}
