import OtonHost
import XCTest

/// Display width as a terminal counts it, and cutting a title to fit its row.
final class TerminalTextTests: XCTestCase {
    func testWidthCountsWideCharactersTwiceAndCombiningMarksNotAtAll() {
        XCTAssertEqual(TerminalText.width("Кино"), 4)
        XCTAssertEqual(TerminalText.width("東京"), 4)
        XCTAssertEqual(TerminalText.width("e\u{301}"), 1, "e + combining acute")
        XCTAssertEqual(TerminalText.width("🎵"), 2)
        XCTAssertEqual(TerminalText.width("a\u{200B}b"), 2)
    }

    func testTruncationFitsTheColumnsAndEndsWithAnEllipsis() {
        XCTAssertEqual(TerminalText.truncated("Кино – Группа крови", toColumns: 50), "Кино – Группа крови")
        let cut = TerminalText.truncated("Кино – Группа крови", toColumns: 8)
        XCTAssertEqual(cut, "Кино – …")
        XCTAssertEqual(TerminalText.width(cut), 8)
        let wide = TerminalText.truncated("東京東京東京", toColumns: 6)
        XCTAssertLessThanOrEqual(TerminalText.width(wide), 6)
        XCTAssertTrue(wide.hasSuffix("…"))
        XCTAssertEqual(TerminalText.truncated("anything", toColumns: 0), "")
    }
}
