import XCTest

@testable import OtonHost

/// `--at` and `--every` → OnCalendar= and crontab fields; everything else refused with the accepted forms.
final class ScheduleTimeTests: XCTestCase {
    private func calendar(_ at: String, _ every: String? = nil) throws -> String {
        try ScheduleTime.parse(at: at, every: every).onCalendar
    }

    func testEachAcceptedFormBecomesItsCalendarExpression() throws {
        XCTAssertEqual(try calendar("Tue 20:00"), "Tue *-*-* 20:00:00")
        XCTAssertEqual(try calendar("tuesday 20:00", "week"), "Tue *-*-* 20:00:00")
        XCTAssertEqual(try calendar("Sunday 7:05"), "Sun *-*-* 07:05:00")
        XCTAssertEqual(try calendar("20:00"), "*-*-* 20:00:00")
        XCTAssertEqual(try calendar("20:00", "day"), "*-*-* 20:00:00")
        XCTAssertEqual(try calendar("06:30", "weekdays"), "Mon..Fri *-*-* 06:30:00")
        XCTAssertEqual(try calendar("2026-12-31 23:00"), "2026-12-31 23:00:00")
        XCTAssertEqual(try calendar("2028-02-29 00:00"), "2028-02-29 00:00:00", "a leap day")
    }

    func testCrontabFieldsMatch() throws {
        XCTAssertEqual(try ScheduleTime.parse(at: "Tue 20:00", every: nil).crontabFields, "0 20 * * 2")
        XCTAssertEqual(try ScheduleTime.parse(at: "Sun 20:15", every: nil).crontabFields, "15 20 * * 0")
        XCTAssertEqual(try ScheduleTime.parse(at: "06:30", every: "weekdays").crontabFields, "30 6 * * 1-5")
        XCTAssertEqual(try ScheduleTime.parse(at: "2026-12-31 23:00", every: nil).crontabFields, "0 23 31 12 *")
    }

    func testTheWordsRoundTrip() throws {
        for (at, every) in [("Tue 20:00", "week"), ("20:00", "day"), ("06:30", "weekdays"), ("2026-12-31 23:00", nil)] as [(String, String?)] {
            let time = try ScheduleTime.parse(at: at, every: every)
            XCTAssertEqual(time.atText, at)
            XCTAssertEqual(time.everyText, every)
            XCTAssertEqual(try ScheduleTime.parse(at: time.atText, every: time.everyText), time)
        }
    }

    func testAnythingElseIsRefusedWithTheAcceptedForms() {
        for bad in [
            "", "20", "24:00", "20:60", "8pm", "Tue", "Tue 20:00 x", "Tues 20:00", "2026-02-30 10:00", "2026-13-01 10:00",
            "26-12-31 23:00", "tomorrow 20:00", "20:0", "-1:00", "２０:００", "Tue20:00", "2027-02-29 10:00",
        ] {
            XCTAssertThrowsError(try ScheduleTime.parse(at: bad, every: nil), bad) { error in
                XCTAssertTrue("\(error)".contains("YYYY-MM-DD HH:MM"), "\(bad): \(error)")
                XCTAssertTrue("\(error)".contains("Tue 20:00"), "\(bad): \(error)")
            }
        }
    }

    func testEveryMustFitTheTime() {
        for (at, every) in [("Tue 20:00", "day"), ("20:00", "week"), ("2026-12-31 23:00", "week"), ("Tue 20:00", "weekdays"), ("20:00", "month")] {
            XCTAssertThrowsError(try ScheduleTime.parse(at: at, every: every), "\(at) --every \(every)")
        }
    }
}
