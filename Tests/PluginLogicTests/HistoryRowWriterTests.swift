import Foundation
import HistoryLogic
import OtonJSON
import XCTest

/// `oton history` writes its rows one at a time; the text must be what the whole list gave.
final class HistoryRowWriterTests: XCTestCase {
    private func rows(_ count: Int) -> [PlayRow] {
        (0..<count).map { index in
            PlayRow(
                id: Int64(count - index), station: "Oton FM", artist: "Artist \(index)",
                title: index % 5 == 0 ? String(repeating: "long ", count: 20) : "Song \(index)",
                rawTitle: "Artist - Song", startedAt: 1_700_000_000_000_000 - Int64(index) * 180_000_000, endedAt: nil,
                secondsListened: index % 3 == 0 ? nil : 170.25, artworkPath: nil, isJingle: index % 7 == 0)
        }
    }

    func testStreamedJSONIsTheArrayJSONValueWrites() throws {
        for count in [0, 1, 3] {
            var writer = HistoryRowWriter(format: .json, timeZone: TimeZone(identifier: "UTC")!)
            let text = rows(count).map { writer.add($0) }.joined() + writer.finish()
            let parsed = try JSONValue.parse(Data(text.utf8))
            XCTAssertEqual(text, parsed.prettyJSONText + "\n", "\(count) rows")
            XCTAssertEqual(parsed.arrayValue?.count, count)
        }
    }

    func testATableHoldsOnlyItsFirstThousandRowsThenWritesAsTheyCome() {
        var writer = HistoryRowWriter(format: .table, timeZone: TimeZone(identifier: "UTC")!)
        let all = rows(HistoryRowWriter.tableWindow + 5)
        var outputs = all.map { writer.add($0) }
        outputs.append(writer.finish())
        XCTAssertTrue(outputs[..<(HistoryRowWriter.tableWindow - 1)].allSatisfy(\.isEmpty), "held for the widths")
        XCTAssertEqual(outputs[HistoryRowWriter.tableWindow - 1].split(separator: "\n").count, HistoryRowWriter.tableWindow + 1, "header and the window")
        XCTAssertTrue(outputs[HistoryRowWriter.tableWindow...].dropLast().allSatisfy { $0.split(separator: "\n").count == 1 }, "one line per row after")
        XCTAssertEqual(outputs.last, "")
    }

    func testTimesAreWhatISO8601DateFormatterWrites() {
        let formatter = ISO8601DateFormatter()
        for micros: Int64 in [
            0, 1_700_000_000_999_999, 1_700_000_000_499_999, 1_700_000_000_500_001, 1_727_000_170_000_000, 951_782_400_000_000, 4_102_444_799_000_000,
        ] {
            XCTAssertEqual(TimeText.iso8601(microseconds: micros), formatter.string(from: Date(timeIntervalSince1970: Double(micros) / 1e6)), "\(micros)")
        }
    }
}
