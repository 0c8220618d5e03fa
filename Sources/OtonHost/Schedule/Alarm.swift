import Foundation
import OtonSupport

/// One alarm: what `oton alarm add` was told, everything its units need. Its timer starts
/// `oton play STATION --alarm --fade-in Ns --volume P` (see ``playArguments(oton:)``).
public struct Alarm: Equatable, Sendable {
    /// Alarm N: `oton alarm remove N`, and the units' names (`oton-alarm-N.timer`).
    public let number: Int
    public let station: String
    public let time: ScheduleTime
    /// The fade from silence to the volume, in whole seconds (0: the volume at once).
    public let fadeInSeconds: Int
    /// The volume the fade ends at, in percent (nil: `oton play`'s default).
    public let volumePercent: Int?
    /// The plugins.json the alarm plays with (`alarm add --config`, or $OTON_CONFIG then), absolute;
    /// nil: where `oton play` looks by itself.
    public let config: String?
    /// Where the units are: a user timer (wakes a suspended machine only where the user manager may),
    /// or a system timer with WakeSystem=true that runs the service as `user` (`--wake`).
    public let placement: Placement

    public enum Placement: Equatable, Sendable {
        case user
        case system(user: String, uid: Int)
    }

    /// An alarm fades in over at most an hour.
    public static let maximumFadeInSeconds = 3600

    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public init(
        number: Int, station: String, time: ScheduleTime, fadeInSeconds: Int, volumePercent: Int?, placement: Placement,
        config: String? = nil
    ) throws(Invalid) {
        guard number > 0 else { throw Invalid(description: "an alarm's number is 1 or more") }
        guard !station.isEmpty else { throw Invalid(description: "--station must not be empty") }
        guard !station.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw Invalid(description: "the station contains control characters")
        }
        if let problem = ScheduledCommandWords.problem(station: station, config: config) { throw Invalid(description: problem) }
        guard (0...Self.maximumFadeInSeconds).contains(fadeInSeconds) else { throw Invalid(description: "--fade-in must be at most 1h") }
        if let volumePercent, !(0...VolumeArgument.maximumPercent).contains(volumePercent) {
            throw Invalid(description: "--volume must be from 0 to \(VolumeArgument.maximumPercent)")
        }
        self.number = number
        self.station = station
        self.time = time
        self.fadeInSeconds = fadeInSeconds
        self.volumePercent = volumePercent
        self.placement = placement
        self.config = config
    }

    public var timerName: String { SystemdUnitName.alarmTimer(number) }
    public var serviceName: String { SystemdUnitName.alarmService(number) }

    /// The command the service runs (and the crontab line).
    /// Every value is joined to its option (`--volume=40`) and the station comes after `--`, so no
    /// station or path is ever read as an option (see ``ScheduledCommandWords``).
    public func playArguments(oton: String) -> [String] {
        var arguments = [oton, "play", "--alarm"]
        if fadeInSeconds > 0 { arguments.append("--fade-in=\(fadeInSeconds)s") }
        if let volumePercent { arguments.append("--volume=\(volumePercent)") }
        if let config { arguments.append("--config=\(config)") }
        return arguments + ["--", station]
    }

    /// The lowest number no alarm in `existing` has.
    public static func nextNumber(after existing: [Alarm]) -> Int {
        let taken = Set(existing.map(\.number))
        return (1...).first { !taken.contains($0) }!
    }
}
