import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// Issue 39, N11: labels were capped at 100 characters, not bytes; 100 emoji are 400 bytes, past the
/// 255 a folder name may have, and that station recorded nothing.
final class StationLabelsTests: XCTestCase {
    func testLabelsFitAFolderNameInBytesWhateverTheScript() throws {
        var labels = StationLabels()
        let directory = try TemporaryDirectory(self)
        for name in [String(repeating: "🎵", count: 100), String(repeating: "Радио", count: 60), String(repeating: "x", count: 300)] {
            let first = labels.label(for: name), second = labels.label(for: name)
            XCTAssertLessThanOrEqual(first.utf8.count, StationLabels.maximumBytes, first)
            XCTAssertNotEqual(first, second, "two stations of one name are told apart")
            for label in [first, second] {
                XCTAssertNoThrow(
                    try FileManager.default.createDirectory(atPath: directory.file(label), withIntermediateDirectories: false),
                    "a folder of that name can be made: \(label.utf8.count) bytes")
            }
        }
        XCTAssertEqual(labels.label(for: "Jazz/24: \"live\""), "Jazz_24_ _live_")
    }
}
