import Foundation
import OtonTestSupport
import XCTest

@testable import OtonHost

/// The units oton writes: systemd itself accepts them (`systemd-analyze verify`), their OnCalendar=
/// elapses when the show starts (`systemd-analyze calendar`), and the timer reads back as written.
final class ScheduleUnitFilesTests: XCTestCase {
    private func recording(
        _ show: String = "Jazz Hour", station: String = "Oton FM", at: String = "Tue 20:00",
        every: String? = nil, seconds: Int = 7200, out: String = "/tmp/rec"
    ) throws -> ScheduledRecording {
        try ScheduledRecording(show: show, station: station, time: ScheduleTime.parse(at: at, every: every), seconds: seconds, outDirectory: out)
    }

    func testWrittenUnitsPassSystemdAnalyzeVerify() throws {
        let folder = ScheduleUnitFolder(path: try TemporaryDirectory(self).path + "/systemd/user")
        for show in ["Jazz Hour", "100% \"live\" \\ $HOME", "Кино/ночь"] {
            let recording = try recording(show, station: "St. $PATH 50%", out: "/tmp/my \"rec\"")
            try folder.write(recording, oton: TestPaths.oton)
            let result = try runProcess("/usr/bin/env", ["systemd-analyze", "verify", "--man=no", folder.timerPath(show), folder.servicePath(show)])
            XCTAssertEqual(result.status, 0, "\(show): \(result.stdout)\(result.stderr)")
            XCTAssertFalse((result.stdout + result.stderr).contains("oton-schedule"), "no warning about our units: \(result.stderr)")
            let service = try String(contentsOfFile: folder.servicePath(show), encoding: .utf8)
            XCTAssertTrue(service.contains("RuntimeMaxSec=7260\n"), service)
            XCTAssertTrue(service.contains(#""--duration=7200s" "--template={start} - {artist} - {title}.{ext}""#), service)
            let timer = try String(contentsOfFile: folder.timerPath(show), encoding: .utf8)
            XCTAssertTrue(timer.contains("OnCalendar=Tue *-*-* 20:00:00\nPersistent=true\n"), timer)
            XCTAssertEqual(ScheduleUnitText.recording(fromTimer: timer), recording, "the timer reads back as written")
        }
    }

    func testABrokenUnitFailsVerifySoTheCheckAbove() throws {
        let directory = try TemporaryDirectory(self)
        let path = try directory.write("oton-schedule-x.service", "[Service]\nExecStart=\"/nonexistent/oton\" \"record\"\n")
        XCTAssertNotEqual(try runProcess("/usr/bin/env", ["systemd-analyze", "verify", "--man=no", path]).status, 0)
    }

    func testCalendarExpressionsElapseWhenTheShowStarts() throws {
        let manager = SystemdUserManager(environment: ProcessInfo.processInfo.environment)
        let weekly = try XCTUnwrap(manager.nextElapse(ScheduleTime.parse(at: "Tue 20:00", every: nil).onCalendar))
        XCTAssertTrue(weekly.hasPrefix("Tue ") && weekly.contains(" 20:00:00"), weekly)
        XCTAssertTrue(try XCTUnwrap(manager.nextElapse(ScheduleTime.parse(at: "2099-12-31 23:00", every: nil).onCalendar)).hasPrefix("Thu 2099-12-31 23:00:00"))
        let weekdays = try XCTUnwrap(manager.nextElapse(ScheduleTime.parse(at: "06:30", every: "weekdays").onCalendar))
        XCTAssertTrue(["Mon", "Tue", "Wed", "Thu", "Fri"].contains(String(weekdays.prefix(3))) && weekdays.contains(" 06:30:00"), weekdays)
        XCTAssertEqual(manager.nextElapse(try ScheduleTime.parse(at: "2020-01-01 10:00", every: nil).onCalendar), "never")
    }

    func testBothFilesOrNeither() throws {
        let folder = ScheduleUnitFolder(path: try TemporaryDirectory(self).path + "/user")
        let jazz = try recording()
        try FileManager.default.createDirectory(atPath: folder.timerPath(jazz.show) + "/blocker", withIntermediateDirectories: true)
        XCTAssertThrowsError(try folder.write(jazz, oton: "/usr/bin/oton"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.servicePath(jazz.show)), "no service without its timer")
        try FileManager.default.removeItem(atPath: folder.timerPath(jazz.show))

        try folder.write(jazz, oton: "/usr/bin/oton")
        XCTAssertEqual(
            try FileManager.default.destinationOfSymbolicLink(atPath: folder.enabledLinkPath("Jazz Hour")), "../" + SystemdUnitName.timer(for: "Jazz Hour"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.enabledLinkPath("Jazz Hour")), "the link resolves to the timer")
        try folder.write(try recording("Morning", at: "06:30", every: "weekdays"), oton: "/usr/bin/oton")
        _ = try TemporaryDirectory.write(folder, "not-ours.timer", "[Timer]\nOnCalendar=daily\n")
        XCTAssertEqual(folder.recordings().map(\.show), ["Jazz Hour", "Morning"], "only oton's units, by prefix")
        XCTAssertTrue(folder.remove("Jazz Hour"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.timerPath("Jazz Hour")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.servicePath("Jazz Hour")))
        XCTAssertNil(try? FileManager.default.destinationOfSymbolicLink(atPath: folder.enabledLinkPath("Jazz Hour")))
        XCTAssertFalse(folder.remove("Jazz Hour"))
        XCTAssertEqual(folder.recordings().map(\.show), ["Morning"])
    }

    /// `schedule add --template`: the service records with it, the timer remembers it, a timer from
    /// before the option reads back with the default, and a template that leaves the show's folder
    /// or has no {ext} is refused.
    func testTheFileNameTemplateReachesTheServiceAndReadsBack() throws {
        let time = try ScheduleTime.parse(at: "Tue 20:00", every: nil)
        let recording = try ScheduledRecording(
            show: "Jazz Hour", station: "Jazz 24", time: time, seconds: 3600, outDirectory: "/srv/rec",
            template: "{start}/{title}.{ext}")
        let service = ScheduleUnitText.service(recording, oton: "/usr/bin/oton")
        XCTAssertTrue(service.contains(#""--template={start}/{title}.{ext}""#), service)
        let timer = ScheduleUnitText.timer(recording)
        XCTAssertEqual(ScheduleUnitText.recording(fromTimer: timer)?.template, "{start}/{title}.{ext}")
        let older = timer.split(separator: "\n").filter { !$0.hasPrefix("X-OtonTemplate=") }.joined(separator: "\n")
        XCTAssertEqual(ScheduleUnitText.recording(fromTimer: older)?.template, ScheduledRecording.defaultTemplate)
        for bad in ["{start} - {title}.mp3", "/etc/{title}.{ext}", "{title}\u{1B}.{ext}"] {
            XCTAssertThrowsError(
                try ScheduledRecording(
                    show: "Jazz Hour", station: "Jazz 24", time: time, seconds: 60, outDirectory: "/srv/rec",
                    template: bad), bad)
        }
    }

    func testOverlapsOnTheSameStationOnly() throws {
        let jazz = try recording(at: "Tue 20:00", seconds: 7200)
        XCTAssertTrue(jazz.overlaps(try recording("B", at: "21:59")), "daily at 21:59 meets Tuesday's window")
        XCTAssertFalse(jazz.overlaps(try recording("B", at: "22:00")), "starting as it ends is no overlap")
        XCTAssertFalse(jazz.overlaps(try recording("B", station: "Other", at: "20:30")))
        XCTAssertTrue(jazz.overlaps(try recording("B", at: "Tue 19:00", seconds: 3660)))
        XCTAssertFalse(jazz.overlaps(try recording("B", at: "Wed 20:00")))
        XCTAssertTrue(jazz.overlaps(try recording("B", at: "2026-12-01 21:00")), "2026-12-01 is a Tuesday")
        XCTAssertFalse(jazz.overlaps(try recording("B", at: "2026-12-02 21:00")))
        XCTAssertTrue(try recording("A", at: "Mon 23:00", seconds: 7200).overlaps(try recording("B", at: "00:30", every: "weekdays")), "across midnight")
        XCTAssertFalse(try recording("A", at: "Sat 23:00", seconds: 3600).overlaps(try recording("B", at: "00:30", every: "weekdays")))
    }
}

private extension TemporaryDirectory {
    static func write(_ folder: ScheduleUnitFolder, _ name: String, _ text: String) throws -> String {
        try text.write(toFile: folder.path + "/" + name, atomically: false, encoding: .utf8)
        return folder.path + "/" + name
    }
}
