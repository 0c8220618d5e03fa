import FileSinkLogic
import Foundation
import XCTest

/// Archive mode's clock arithmetic: periods, boundaries in UTC and local time, segment names.
final class ArchiveBoundaryTests: XCTestCase {
    private let second: Int64 = 1_000_000_000

    /// 2026-11-27T12:34:56Z in nanoseconds.
    private var sample: Int64 { 1_795_782_896 * second }

    func testPeriodsMustDivideADay() {
        for seconds in [1.0, 10, 60, 300, 900, 3600, 21600, 86400] {
            XCTAssertNotNil(ArchivePeriod(seconds: seconds), "\(seconds)")
        }
        for seconds in [0.0, 0.5, 7, 420, 7 * 3600, 90000, -60, .nan, .infinity] {
            XCTAssertNil(ArchivePeriod(seconds: seconds), "\(seconds)")
        }
        XCTAssertEqual(try? ArchiveSettings.period("1h").get(), 3600)
        XCTAssertEqual(try? ArchiveSettings.period("1d").get(), 86400)
        XCTAssertNil(try? ArchiveSettings.period("7m").get(), "7 minutes do not divide a day")
        XCTAssertNil(try? ArchiveSettings.period("60").get(), "a bare number says no unit")
    }

    func testUTCBoundaries() throws {
        let hour = try XCTUnwrap(ArchivePeriod(seconds: 3600))
        XCTAssertEqual(hour.start(containing: sample), 1_795_780_800 * second)  // 12:00:00
        XCTAssertEqual(hour.boundary(after: sample), 1_795_784_400 * second)  // 13:00:00
        XCTAssertEqual(hour.boundary(after: 1_795_780_800 * second), 1_795_784_400 * second, "a time on a boundary: the next one")
        XCTAssertEqual(hour.boundary(after: 1_795_780_800 * second - 1), 1_795_780_800 * second)
        let tenSeconds = try XCTUnwrap(ArchivePeriod(seconds: 10))
        XCTAssertEqual(tenSeconds.boundary(after: sample), 1_795_782_900 * second)
        let day = try XCTUnwrap(ArchivePeriod(seconds: 86400))
        XCTAssertEqual(day.start(containing: sample), 1_795_737_600 * second)  // 00:00Z that day
        XCTAssertEqual(ArchivePeriod(seconds: 60)?.start(containing: -1), -60 * second, "before 1970 rounds down too")
    }

    func testLocalBoundariesFollowTheZoneAndItsSummerTime() throws {
        let india = try XCTUnwrap(TimeZone(identifier: "Asia/Kolkata"))  // +05:30: hours begin at :30 UTC
        let hour = try XCTUnwrap(ArchivePeriod(seconds: 3600, zone: .local(india)))
        XCTAssertEqual(hour.boundary(after: sample), 1_795_786_200 * second, "12:34:56Z is 18:04:56 in India; 19:00 there is 13:30Z")
        XCTAssertEqual(hour.start(containing: sample), 1_795_782_600 * second, "12:30Z is 18:00 in India")
        let berlin = try XCTUnwrap(TimeZone(identifier: "Europe/Berlin"))
        let day = try XCTUnwrap(ArchivePeriod(seconds: 86400, zone: .local(berlin)))
        // 2026-03-29 is 23 hours long in Berlin: midnight +01:00 to midnight +02:00.
        let noonOnTheShortDay: Int64 = 1_774_778_400 * second  // 2026-03-29T10:00:00Z = 12:00 +02:00
        XCTAssertEqual(day.start(containing: noonOnTheShortDay), 1_774_738_800 * second, "2026-03-28T23:00:00Z = 00:00 +01:00")
        XCTAssertEqual(day.boundary(after: noonOnTheShortDay), 1_774_821_600 * second, "2026-03-29T22:00:00Z = 00:00 +02:00")
    }

    func testNamesCarryTheStartInTheZone() throws {
        let utc = try ArchiveNaming(ArchiveNaming.standard, zone: .utc)
        XCTAssertEqual(
            utc.relativePath(start: sample, station: "Oton FM", container: .mpegAudio, caps: "audio/mpeg"),
            "Oton FM/2026/11/27/2026-11-27T12-34-56Z.mp3")
        XCTAssertEqual(
            utc.relativePath(start: 1_795_780_800 * second - 10_000_000, station: nil, container: .adts, caps: "audio/aac"),
            "Unknown station/2026/11/27/2026-11-27T12-00-00Z.aac", "11:59:59.990 names the 12:00 segment")
        let india = try XCTUnwrap(TimeZone(identifier: "Asia/Kolkata"))
        let local = try ArchiveNaming("{yyyy}{mm}{dd}/{hh}/{start}.{ext}", zone: .local(india))
        XCTAssertEqual(
            local.relativePath(start: sample, station: "S", container: .ogg, caps: "application/ogg; codecs=opus"),
            "20261127/18/2026-11-27T18-04-56+0530.opus")
        XCTAssertThrowsError(try ArchiveNaming("{station}/{artist}.{ext}", zone: .utc), "track placeholders mean nothing to a segment")
    }

    /// Segments of one run have names in the order they began: a segment begun off its boundary
    /// (after an outage) 0.4 s before the next one is cut at a boundary is named for its own second.
    func testNamesOfOneRunSortInTheOrderTheSegmentsBegan() throws {
        let utc = try ArchiveNaming(ArchiveNaming.standardInStationFolder, zone: .utc)
        let boundary: Int64 = 1_795_780_800 * second  // 12:00:00Z
        let afterOutage = ArchiveNaming.namedTime(start: boundary - 400_000_000, periodStart: boundary - 10 * second, fromBoundary: false)
        let cut = ArchiveNaming.namedTime(start: boundary - 10_000_000, periodStart: boundary, fromBoundary: true)
        let first = utc.relativePath(start: afterOutage, station: nil, container: .mpegAudio, caps: "audio/mpeg")
        let second = utc.relativePath(start: cut, station: nil, container: .mpegAudio, caps: "audio/mpeg")
        XCTAssertEqual(first, "2026/11/27/2026-11-27T11-59-59Z.mp3")
        XCTAssertEqual(second, "2026/11/27/2026-11-27T12-00-00Z.mp3", "a cut 10 ms early is the 12:00 segment")
        XCTAssertLessThan(first, second)
    }
}
