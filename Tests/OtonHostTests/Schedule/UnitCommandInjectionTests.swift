import Foundation
import OtonTestSupport
import XCTest

@testable import OtonHost

/// Issue 39, N3: `oton alarm add 07:00 --station=--config=$TMP/evil.json` wrote
/// `ExecStart=… "play" "--config=$TMP/evil.json" "--alarm"`, and the alarm loaded that config's plugin.
/// Every unit writer (alarm and schedule; service and crontab line) now refuses a station that begins
/// with "-", joins every value to its option and puts the station after `--`.
final class UnitCommandInjectionTests: XCTestCase {
    private let time = try! ScheduleTime.parse(alarm: "07:00", days: nil)

    func testAStationThatLooksLikeAnOptionIsRefusedByEveryWriter() {
        for station in ["--config=/tmp/evil.json", "-h", "--"] {
            XCTAssertThrowsError(try Alarm(number: 1, station: station, time: time, fadeInSeconds: 0, volumePercent: nil, placement: .user), station) {
                XCTAssertTrue("\($0)".contains("never begins with \"-\""), "\($0)")
            }
            XCTAssertThrowsError(
                try ScheduledRecording(
                    show: "Show", station: station, time: ScheduleTime.parse(at: "20:00", every: nil), seconds: 60,
                    outDirectory: "/tmp/rec"), station)
        }
    }

    func testValuesAreJoinedToTheirOptionsAndTheStationComesAfterTheEndOfOptions() throws {
        let alarm = try Alarm(number: 1, station: "Radio -x", time: time, fadeInSeconds: 60, volumePercent: 40, placement: .user, config: "/home/a/-p.json")
        XCTAssertEqual(
            alarm.playArguments(oton: "/usr/bin/oton"),
            ["/usr/bin/oton", "play", "--alarm", "--fade-in=60s", "--volume=40", "--config=/home/a/-p.json", "--", "Radio -x"])
        let show = try ScheduledRecording(
            show: "-Show", station: "https://example.invalid/s.mp3", time: ScheduleTime.parse(at: "20:00", every: nil),
            seconds: 60, outDirectory: "/tmp/rec", template: "-{title}.{ext}", config: "/etc/oton.json")
        XCTAssertEqual(
            show.recordArguments(oton: "/usr/bin/oton"),
            [
                "/usr/bin/oton", "record", "--out=/tmp/rec/-Show", "--duration=60s", "--template=-{title}.{ext}", "--config=/etc/oton.json",
                "--", "https://example.invalid/s.mp3",
            ])
        for (service, crontab) in [
            (AlarmUnitText.service(alarm, oton: "/usr/bin/oton"), AlarmUnitText.crontabLine(alarm, oton: "/usr/bin/oton")),
            (ScheduleUnitText.service(show, oton: "/usr/bin/oton"), ScheduleUnitText.crontabLine(show, oton: "/usr/bin/oton")),
        ] {
            XCTAssertTrue(service.contains(#""--" ""#), service)
            XCTAssertTrue(crontab.contains("'--' '"), crontab)
        }
    }

    func testTheConfigRidesInTheTimerAndReadsBackAndMustBeAbsolute() throws {
        let alarm = try Alarm(
            number: 2, station: "Oton FM", time: time, fadeInSeconds: 0, volumePercent: nil, placement: .user, config: "/srv/oton/plugins.json")
        XCTAssertEqual(AlarmUnitText.alarm(fromTimer: AlarmUnitText.timer(alarm)), alarm)
        let show = try ScheduledRecording(
            show: "Show", station: "Oton FM", time: ScheduleTime.parse(at: "20:00", every: nil), seconds: 60,
            outDirectory: "/tmp/rec", config: "/srv/oton/plugins.json")
        XCTAssertEqual(ScheduleUnitText.recording(fromTimer: ScheduleUnitText.timer(show)), show)
        XCTAssertThrowsError(
            try Alarm(number: 3, station: "Oton FM", time: time, fadeInSeconds: 0, volumePercent: nil, placement: .user, config: "plugins.json"))
    }
}
