import Foundation
import OtonTestSupport
import XCTest

/// Issue 39: `oton alarm add 07:00 --station "No Such FM"` exited 0 and the alarm rang silent at 7:00;
/// `schedule add` took an unknown station that `record` refuses. Both now refuse a station that does
/// not resolve (naming the known ones), and take `--config`, which the unit then carries.
final class UnitStationCheckTests: XCTestCase {
    private var home: HomeWithoutUserManager!

    override func setUpWithError() throws {
        home = try HomeWithoutUserManager(self)
    }

    private func oton(_ arguments: [String]) throws -> ProcessResult {
        try runProcess(TestPaths.oton, arguments, environment: home.environment)
    }

    private var timers: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: home.units)) ?? []).filter { $0.hasSuffix(".timer") }
    }

    func testAnUnknownStationIsRefusedWithTheKnownNamesAndNothingIsWritten() throws {
        let alarm = try oton(["alarm", "add", "07:00", "--station", "No Such FM"])
        XCTAssertEqual(alarm.status, 2, alarm.stderr)
        XCTAssertTrue(alarm.stderr.contains("no station named \"No Such FM\"") && alarm.stderr.contains("Oton FM, Jazz 24"), alarm.stderr)
        let schedule = try oton(["schedule", "add", "Show", "--station", "No Such FM", "--at", "20:00", "--for", "1h", "--out", "/tmp/rec"])
        XCTAssertEqual(schedule.status, 2, schedule.stderr)
        XCTAssertTrue(schedule.stderr.contains("no station named \"No Such FM\""), schedule.stderr)
        XCTAssertEqual(timers, [], "nothing written")
        let injected = try oton(["alarm", "add", "07:00", "--station=--config=/tmp/evil.json"])
        XCTAssertEqual(injected.status, 2, injected.stderr)
        XCTAssertTrue(injected.stderr.contains("never begins with \"-\""), injected.stderr)
        XCTAssertEqual(timers, [])
    }

    func testTheConfigGivenIsCheckedAndWrittenIntoTheUnit() throws {
        let directory = try TemporaryDirectory(self)
        let config = try directory.write("other.json", #"{"stations": [{"name": "Night FM", "url": "https://example.invalid/n.mp3"}], "plugins": []}"#)
        XCTAssertEqual(try oton(["alarm", "add", "07:00", "--station", "Night FM"]).status, 2, "not a station of the usual plugins.json")
        let added = try oton(["alarm", "add", "07:00", "--station", "Night FM", "--config", config])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stdout.contains("'--config=\(config)' '--' 'Night FM'"), added.stdout)
        let service = try String(contentsOfFile: home.units + "/oton-alarm-1.service", encoding: .utf8)
        XCTAssertTrue(service.contains("\"--config=\(config)\" \"--\" \"Night FM\""), service)
        XCTAssertTrue(added.stderr.contains("runs oton from a build folder") || !TestPaths.oton.contains("/.build/"), added.stderr)
        let scheduled = try oton(["schedule", "add", "Night", "--station", "Night FM", "--at", "23:00", "--for", "1h", "--out", "/tmp/rec", "--config", config])
        XCTAssertEqual(scheduled.status, 0, scheduled.stderr)
        XCTAssertTrue(scheduled.stdout.contains("'--config=\(config)' '--' 'Night FM'"), scheduled.stdout)
    }
}
