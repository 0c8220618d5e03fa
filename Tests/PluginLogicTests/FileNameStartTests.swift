import FileSinkLogic
import Foundation
import XCTest

/// `{start}`: the recording's start, local time "yyyy-MM-dd HH.mm", for scheduled shows.
final class FileNameStartTests: XCTestCase {
    func testStartIsTheLocalDateAndMinuteWithADot() throws {
        let date = try XCTUnwrap(ISO8601DateFormatter().date(from: "2026-12-01T19:05:59Z"))
        XCTAssertEqual(FileNameTemplate.startStamp(date, timeZone: try XCTUnwrap(TimeZone(identifier: "UTC"))), "2026-12-01 19.05")
        XCTAssertEqual(FileNameTemplate.startStamp(date, timeZone: try XCTUnwrap(TimeZone(identifier: "Europe/Berlin"))), "2026-12-01 20.05")
        XCTAssertEqual(FileNameTemplate.startStamp(date, timeZone: try XCTUnwrap(TimeZone(identifier: "Asia/Yakutsk"))), "2026-12-02 04.05")
    }

    func testTheScheduledTemplateNamesFilesByShowDateAndTrack() throws {
        let template = try FileNameTemplate("{start} - {artist} - {title}.{ext}")
        XCTAssertEqual(
            template.render(["start": "2026-12-01 20.00", "artist": "Miles Davis", "title": "So What", "ext": "mp3"]),
            "2026-12-01 20.00 - Miles Davis - So What.mp3")
        XCTAssertThrowsError(try FileNameTemplate("{begin} - {title}.{ext}"), "unknown placeholders are still refused")
    }
}
