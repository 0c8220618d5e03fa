import Foundation
import OtonTestSupport
import XCTest

/// `oton schedule` as a person runs it on a machine without a systemd user manager (this one, CI):
/// both units are written, the crontab line is printed, list shows it, remove removes both.
final class ScheduleCommandTests: XCTestCase {
    private var environment: [String: String] = [:]
    private var units = ""

    override func setUpWithError() throws {
        let home = try HomeWithoutUserManager(self)
        environment = home.environment
        units = home.units
    }

    private func oton(_ arguments: String...) throws -> ProcessResult {
        try runProcess(TestPaths.oton, ["schedule"] + arguments, environment: environment)
    }

    func testAddListRemoveWithoutAUserManager() throws {
        let added = try oton("add", "Jazz Hour", "--station", "Oton FM", "--at", "Tue 20:00", "--for", "2h", "--out", "/tmp/rec")
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stderr.contains("no systemd user manager runs"), added.stderr)
        XCTAssertTrue(added.stdout.hasPrefix("0 20 * * 2 '"), "the crontab line: \(added.stdout)")
        XCTAssertTrue(added.stdout.contains("'record' '--out=/tmp/rec/Jazz Hour' '--duration=7200s'"), added.stdout)
        XCTAssertTrue(added.stdout.hasSuffix("'--' 'Oton FM'\n"), "the station after --: \(added.stdout)")
        let timer = units + "/oton-schedule-Jazz\\x20Hour.timer", service = units + "/oton-schedule-Jazz\\x20Hour.service"
        XCTAssertTrue(FileManager.default.fileExists(atPath: timer))
        XCTAssertTrue(FileManager.default.fileExists(atPath: service))
        let verify = try runProcess("/usr/bin/env", ["systemd-analyze", "verify", "--man=no", timer, service])
        XCTAssertEqual(verify.status, 0, verify.stderr)

        let overlapping = try oton("add", "Late", "--station", "Oton FM", "--at", "21:30", "--for", "1h", "--out", "/tmp/rec")
        XCTAssertEqual(overlapping.status, 0, overlapping.stderr)
        XCTAssertTrue(overlapping.stderr.contains("Late overlaps Jazz Hour on Oton FM"), overlapping.stderr)
        XCTAssertEqual(try oton("add", "Late", "--station", "Oton FM", "--at", "22:30", "--for", "1h").status, 2, "the name is taken")

        let listed = try oton("list")
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, listed.stdout)
        XCTAssertTrue(lines[0].hasPrefix("Jazz Hour  Oton FM  Tue 20:00 every week for 2h  next run Tue "), lines[0])
        XCTAssertTrue(lines[0].contains(" 20:00:00"), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("Late  Oton FM  21:30 every day for 1h  next run "), lines[1])

        let removed = try oton("remove", "Jazz Hour")
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: timer))
        XCTAssertFalse(FileManager.default.fileExists(atPath: service))
        XCTAssertEqual(try oton("list").stdout.split(separator: "\n").count, 1)
        XCTAssertEqual(try oton("remove", "Jazz Hour").status, 2, "a second remove finds nothing")
    }

    func testBadTimesAreRefusedWithTheAcceptedFormsAndWriteNothing() throws {
        for at in ["Tues 20:00", "25:00", "2026-02-30 10:00", "tomorrow", "8pm"] {
            let result = try oton("add", "Show", "--station", "Oton FM", "--at", at, "--for", "1h")
            XCTAssertEqual(result.status, 2, at)
            XCTAssertTrue(
                result.stderr.contains("HH:MM") && result.stderr.contains("\"Tue 20:00\"") && result.stderr.contains("YYYY-MM-DD HH:MM"), result.stderr)
        }
        XCTAssertEqual(try oton("add", "Show", "--station", "Oton FM", "--at", "20:00", "--for", "2").status, 2, "a duration needs its unit")
        XCTAssertEqual(try oton("add", "Show", "--station", "Oton FM", "--at", "20:00", "--for", "1h", "--every", "month").status, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: units + "/oton-schedule-Show.timer"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: units + "/oton-schedule-Show.service"))
    }
}
