import Foundation
import OtonTestSupport
import XCTest

@testable import OtonHost

/// An alarm's units: systemd accepts them (`systemd-analyze verify`), their OnCalendar= elapses on
/// the days asked for (`systemd-analyze calendar`, no manager needed), the timer reads back as
/// written, and the folder holds both units or neither.
final class AlarmUnitFilesTests: XCTestCase {
    private func alarm(
        _ number: Int = 1, station: String = "Oton FM", at: String = "07:00", days: String? = "mon-fri",
        fade: Int = 120, volume: Int? = 40, placement: Alarm.Placement = .user
    ) throws -> Alarm {
        try Alarm(
            number: number, station: station, time: ScheduleTime.parse(alarm: at, days: days), fadeInSeconds: fade,
            volumePercent: volume, placement: placement)
    }

    func testWrittenUnitsPassSystemdAnalyzeVerifyAndReadBack() throws {
        let folder = ScheduleUnitFolder(path: try TemporaryDirectory(self).path + "/systemd/user")
        let alarms = [
            try alarm(1), try alarm(2, station: "St. $PATH 50% \"x\" \\ y", at: "Sat 09:30", days: nil, fade: 0, volume: nil),
            try alarm(3, station: "Кино", at: "2099-12-31 06:00", days: nil, placement: .system(user: "ann", uid: 1000)),
        ]
        for alarm in alarms {
            try folder.write(alarm, oton: TestPaths.oton, userManagerWakes: false)
            let timer = folder.path + "/" + alarm.timerName, service = folder.path + "/" + alarm.serviceName
            let result = try runProcess("/usr/bin/env", ["systemd-analyze", "verify", "--man=no", timer, service])
            XCTAssertEqual(result.status, 0, "\(alarm.station): \(result.stdout)\(result.stderr)")
            XCTAssertFalse((result.stdout + result.stderr).contains("oton-alarm"), "no warning about our units: \(result.stderr)")
            let text = try String(contentsOfFile: timer, encoding: .utf8)
            XCTAssertEqual(AlarmUnitText.alarm(fromTimer: text), alarm, "the timer reads back as written")
            XCTAssertTrue(text.contains("Persistent=true\n"), text)
        }
        let first = try String(contentsOfFile: folder.path + "/oton-alarm-1.service", encoding: .utf8)
        XCTAssertTrue(first.contains(#""play" "--alarm" "--fade-in=120s" "--volume=40" "--" "Oton FM""#), first)
        XCTAssertFalse(
            try String(contentsOfFile: folder.path + "/oton-alarm-1.timer", encoding: .utf8).contains("WakeSystem"),
            "a user timer of a manager that cannot wake asks for nothing it would refuse")
        let system = try String(contentsOfFile: folder.path + "/oton-alarm-3.service", encoding: .utf8)
        XCTAssertTrue(system.contains("User=ann\nEnvironment=XDG_RUNTIME_DIR=/run/user/1000\n"), system)
        XCTAssertTrue(try String(contentsOfFile: folder.path + "/oton-alarm-3.timer", encoding: .utf8).contains("WakeSystem=true\n"))
        XCTAssertEqual(folder.alarms().map(\.alarm.number), [1, 2, 3])
        XCTAssertEqual(folder.alarms().map(\.wakesSystem), [false, false, true])
        XCTAssertEqual(Alarm.nextNumber(after: folder.alarms().map(\.alarm)), 4)
    }

    func testCalendarGivesTheDaysAskedFor() throws {
        func nextWeekdays(_ at: String, _ days: String?, iterations: Int) throws -> [String] {
            let onCalendar = try ScheduleTime.parse(alarm: at, days: days).onCalendar
            let result = try runProcess("/usr/bin/env", ["systemd-analyze", "calendar", "--iterations=\(iterations)", onCalendar])
            XCTAssertEqual(result.status, 0, result.stderr)
            let times = result.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { $0.hasPrefix("Next elapse:") || $0.hasPrefix("Iter. #") }
                .map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) }
            XCTAssertEqual(times.count, iterations, result.stdout)
            for time in times where !time.contains(String(at.suffix(5)) + ":00") { XCTFail("\(time) is not at \(at)") }
            return times.map { String($0.prefix(3)) }
        }
        XCTAssertEqual(Set(try nextWeekdays("07:00", "mon-fri", iterations: 10)), ["Mon", "Tue", "Wed", "Thu", "Fri"])
        XCTAssertEqual(Set(try nextWeekdays("09:30", "sat,sun", iterations: 4)), ["Sat", "Sun"])
        XCTAssertEqual(Set(try nextWeekdays("06:15", "mon,wed,fri", iterations: 6)), ["Mon", "Wed", "Fri"])
        XCTAssertEqual(Set(try nextWeekdays("05:00", "fri-mon", iterations: 8)), ["Fri", "Sat", "Sun", "Mon"], "a range wraps over Sunday")
        XCTAssertEqual(Set(try nextWeekdays("Tue 07:00", nil, iterations: 3)), ["Tue"])
        XCTAssertEqual(Set(try nextWeekdays("07:00", nil, iterations: 7)).count, 7, "every day")
        XCTAssertEqual(try nextWeekdays("2099-12-31 23:00", nil, iterations: 1), ["Thu"])
    }

    func testDaysMapOntoTheScheduleRepeats() throws {
        XCTAssertEqual(try ScheduleTime.repeats(days: "mon-fri"), .weekdays, "the same repeat as schedule --every weekdays")
        XCTAssertEqual(try ScheduleTime.repeats(days: "Monday-Friday"), .weekdays)
        XCTAssertEqual(try ScheduleTime.repeats(days: "tue"), .weekly(weekday: 2))
        XCTAssertEqual(try ScheduleTime.repeats(days: "sun,sat"), .days([6, 7]))
        XCTAssertEqual(try ScheduleTime.repeats(days: "mon-sun"), .daily)
        XCTAssertEqual(try ScheduleTime.parse(alarm: "07:00", days: "sat,sun").crontabFields, "0 7 * * 6,0")
        XCTAssertEqual(try ScheduleTime.parse(alarm: "07:00", days: "mon,wed").daysText, "mon,wed")
    }

    func testAnythingElseIsRefusedWithTheAcceptedForms() {
        for (at, days) in [
            ("7", nil), ("24:00", nil), ("07:60", nil), ("tomorrow 07:00", nil), ("2026-02-30 07:00", nil),
            ("07:00 pm", nil), ("", nil),
        ] as [(String, String?)] {
            XCTAssertThrowsError(try ScheduleTime.parse(alarm: at, days: days), at) { error in
                XCTAssertTrue("\(error)".contains("HH:MM (every day)") && "\(error)".contains("YYYY-MM-DD HH:MM"), "\(error)")
            }
        }
        XCTAssertThrowsError(try ScheduleTime.parse(alarm: "07:00", days: "weekends")) { XCTAssertTrue("\($0)".contains("mon-fri"), "\($0)") }
        XCTAssertThrowsError(try ScheduleTime.parse(alarm: "07:00", days: "mon-")) { XCTAssertTrue("\($0)".contains("mon-fri"), "\($0)") }
        XCTAssertThrowsError(try ScheduleTime.parse(alarm: "Tue 07:00", days: "mon-fri")) { XCTAssertTrue("\($0)".contains("HH:MM alone"), "\($0)") }
    }

    func testBothFilesOrNeitherAndRemoveRemovesBoth() throws {
        let folder = ScheduleUnitFolder(path: try TemporaryDirectory(self).path + "/user")
        let first = try alarm(1)
        try FileManager.default.createDirectory(atPath: folder.path + "/" + first.timerName + "/blocker", withIntermediateDirectories: true)
        XCTAssertThrowsError(try folder.write(first, oton: "/usr/bin/oton", userManagerWakes: false))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path + "/" + first.serviceName), "no service without its timer")
        try FileManager.default.removeItem(atPath: folder.path + "/" + first.timerName)

        try folder.write(first, oton: "/usr/bin/oton", userManagerWakes: true)
        XCTAssertTrue(
            try String(contentsOfFile: folder.path + "/" + first.timerName, encoding: .utf8).contains("WakeSystem=true\n"),
            "a user manager that may wake the machine is asked to")
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.linkPath(timer: first.timerName)), "enabled, the link resolves")
        XCTAssertTrue(folder.remove(alarm: 1))
        for path in [folder.path + "/" + first.timerName, folder.path + "/" + first.serviceName, folder.linkPath(timer: first.timerName)] {
            XCTAssertNil(try? FileManager.default.attributesOfItem(atPath: path), path)
        }
        XCTAssertFalse(folder.remove(alarm: 1))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix("timers.") }, [],
            "no temporary files left behind")
    }
}
