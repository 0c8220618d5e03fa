import FileSinkLogic
import XCTest

/// The record of the names an archive folder gave: read back as written, a torn line skipped, and
/// kept only as long as a name could be rendered again.
final class ArchiveNameRecordTests: XCTestCase {
    private let second: Int64 = 1_000_000_000

    func testEntriesReadBackAndATornLineIsSkipped() {
        let entries = [
            ArchiveNameRecord.Entry(name: "2026/11/27/12.mp3", base: "2026/11/27/12.mp3", start: 1_795_000_000 * second),
            ArchiveNameRecord.Entry(name: "2026/11/27/12 (2).mp3", base: "2026/11/27/12.mp3", start: 1_795_000_005 * second),
        ]
        let text = entries.map { ArchiveNameRecord.line($0) + "\n" }.joined() + #"{"name": "2026/11/27/1"#
        XCTAssertEqual(ArchiveNameRecord.parse(text), entries)
    }

    func testAnEntryGoesOnlyWhenOldAndNoLongerTheNameBeingGiven() {
        let period = try! XCTUnwrap(ArchivePeriod(seconds: 3600))
        let horizon = ArchiveNameRecord.horizon(period: period)
        XCTAssertEqual(horizon, 2 * 3600 * second, "two periods")
        XCTAssertEqual(ArchiveNameRecord.horizon(period: try! XCTUnwrap(ArchivePeriod(seconds: 5))), 600 * second, "ten minutes at least")
        let now = 1_795_000_000 * second
        let recent = ArchiveNameRecord.Entry(name: "a (2).mp3", base: "a.mp3", start: now - 60 * second)
        let old = ArchiveNameRecord.Entry(name: "b.mp3", base: "b.mp3", start: now - horizon - second)
        let oldButRenderedAgain = ArchiveNameRecord.Entry(name: "c (5).mp3", base: "c.mp3", start: now - 10 * horizon)
        XCTAssertEqual(
            ArchiveNameRecord.kept([recent, old, oldButRenderedAgain], now: now, horizon: horizon, base: "c.mp3"),
            [recent, oldButRenderedAgain])
    }
}
