import OtonJSON
import XCTest

/// The one clock form of a length (issue 39 §4: the recorder printed "0:12" and "8.0 s" side by side;
/// issue 34 §4: h:mm:ss was written twice).
final class TimeTextTests: XCTestCase {
    func testALengthReadsAsAClockWhateverItsSize() {
        XCTAssertEqual(TimeText.clock(8.0), "0:08")
        XCTAssertEqual(TimeText.clock(0.4), "0:00")
        XCTAssertEqual(TimeText.clock(12.4), "0:12")
        XCTAssertEqual(TimeText.clock(187), "3:07")
        XCTAssertEqual(TimeText.clock(3599.6), "1:00:00")
        XCTAssertEqual(TimeText.clock(3723), "1:02:03")
        XCTAssertEqual(TimeText.clock(2 * 3600 + 45 * 60), "2:45:00")
        XCTAssertEqual(TimeText.clock(-3), "0:00")
        XCTAssertEqual(TimeText.clock(.nan), "0:00")
        XCTAssertEqual(TimeText.minutesSeconds(65), "1:05")
    }

    /// Local times have one writer (issue 34 §4: five DateFormatters wrote them).
    func testLocalTimesFollowThePatternInTheGivenZone() throws {
        let date = try XCTUnwrap(TimeText.date(iso8601: "2026-11-27T06:05:09Z"))
        let yakutsk = try XCTUnwrap(TimeZone(identifier: "Asia/Yakutsk"))  // UTC+9, no DST
        XCTAssertEqual(TimeText.local(date, "yyyy-MM-dd HH:mm", timeZone: yakutsk), "2026-11-27 15:05")
        XCTAssertEqual(TimeText.local(date, "yyyyMMdd-HHmmss", timeZone: yakutsk), "20261127-150509")
        XCTAssertEqual(TimeText.local(date, "yyyy-MM-dd HH.mm.ss", timeZone: yakutsk), "2026-11-27 15.05.09")
        XCTAssertEqual(TimeText.local(date, "HH:mm", timeZone: TimeZone(identifier: "America/St_Johns")!), "02:35")  // UTC-3:30
        let newYork = try XCTUnwrap(TimeZone(identifier: "America/New_York"))
        let summer = try XCTUnwrap(TimeText.date(iso8601: "2026-07-01T12:00:00Z"))
        XCTAssertEqual(TimeText.local(summer, "HH:mm", timeZone: newYork), "08:00", "daylight saving is the zone's on that day")
        XCTAssertEqual(TimeText.local(date, "HH:mm", timeZone: newYork), "01:05")
    }

    func testTypedLocalTimesAreReadOrRefused() throws {
        let yakutsk = try XCTUnwrap(TimeZone(identifier: "Asia/Yakutsk"))
        func utc(_ text: String) -> String? { TimeText.date(local: text, timeZone: yakutsk).map(TimeText.iso8601) }
        XCTAssertEqual(utc("2026-11-27"), "2026-11-26T15:00:00Z")
        XCTAssertEqual(utc("2026-11-27 15:05"), "2026-11-27T06:05:00Z")
        XCTAssertEqual(utc(" 2026-11-27T15:05:09 "), "2026-11-27T06:05:09Z")
        XCTAssertEqual(utc("2026-1-5 7:05"), "2026-01-04T22:05:00Z")
        for refused in [
            "2026-02-30", "2026-13-01", "2026-11-27 24:00", "2026-11-27 15:60", "26-11-27", "2026-11-27 15", "today", "",
            "2026-11-27 15:05:09:01", "2026-11-27  15:05", "２０２６-11-27",
        ] {
            XCTAssertNil(utc(refused), refused)
        }
        let date = try XCTUnwrap(TimeText.date(local: "2024-02-29 23:59:59", timeZone: yakutsk))
        XCTAssertEqual(TimeText.local(date, "yyyy-MM-dd HH:mm:ss", timeZone: yakutsk), "2024-02-29 23:59:59", "a leap day, both ways")
    }
}
