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
}
