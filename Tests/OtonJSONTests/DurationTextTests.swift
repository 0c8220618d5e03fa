import OtonJSON
import XCTest

/// The one grammar of durations (every option and command reads through it).
final class DurationTextTests: XCTestCase {
    func testUnitsAndClocks() throws {
        let cases: [(String, Double)] = [
            ("90s", 90), ("30m", 1800), ("2h", 7200), ("1h15m", 4500), ("1h 15m 30s", 4530),
            ("1.5h", 5400), ("0.5s", 0.5), ("2H", 7200), (" 15m ", 900), ("4:30", 270),
            ("1:05:00", 3900), ("0:09", 9), ("0s", 0), ("1d", 86400), ("30d", 2_592_000), ("1d12h", 129_600),
        ]
        for (text, seconds) in cases {
            XCTAssertEqual(try DurationText.seconds(text), seconds, text)
        }
    }

    func testEachWayOfGettingItWrongIsNamed() {
        let cases: [(String, DurationText.Problem)] = [
            ("", .empty), ("   ", .empty), ("45", .bareNumber("45")), ("m", .unitWithoutNumber("m")), ("1hm", .unitWithoutNumber("m")),
            ("1h1h", .unitTwice("h")), ("10x", .unexpected("x")), ("-5m", .unexpected("-")), ("15m30", .numberWithoutUnit),
            ("a:b", .clockShape), ("1:2:3:4", .clockShape), ("1:", .clockShape), ("1:60", .clockFieldTooLarge),
            ("1234567890123s", .tooLong), ("1..5h", .unexpected(".")),
        ]
        for (text, problem) in cases {
            XCTAssertThrowsError(try DurationText.seconds(text), text) { error in
                XCTAssertEqual(error as? DurationText.Problem, problem, text)
            }
        }
    }
}
