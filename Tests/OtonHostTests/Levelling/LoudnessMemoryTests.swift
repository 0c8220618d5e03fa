import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// Each station's measured loudness in the state folder: kept across runs, bounded, and a damaged
/// file is said and ignored.
final class LoudnessMemoryTests: XCTestCase {
    func testALoudnessIsKeptForTheNextRun() throws {
        let directory = try TemporaryDirectory(self)
        let file = directory.file("state/oton/loudness.json")
        LoudnessMemory(file: file).remember(-14.234, of: "http://a/stream")
        XCTAssertEqual(try XCTUnwrap(LoudnessMemory(file: file).loudness(of: "http://a/stream")), -14.23, accuracy: 1e-9)
        XCTAssertNil(LoudnessMemory(file: file).loudness(of: "http://b/stream"))
    }

    func testOnlyTheStationsHeardLastAreKept() throws {
        let directory = try TemporaryDirectory(self)
        let file = directory.file("loudness.json")
        let memory = LoudnessMemory(file: file)
        for index in 0..<LoudnessMemory.capacity + 10 { memory.remember(-20, of: "http://s/\(index)") }
        memory.remember(-12, of: "http://s/5")  // heard again: the most recent
        let reread = LoudnessMemory(file: file)
        XCTAssertNil(reread.loudness(of: "http://s/0"), "the oldest are dropped")
        XCTAssertNil(reread.loudness(of: "http://s/9"))
        XCTAssertEqual(reread.loudness(of: "http://s/5"), -12)
        XCTAssertEqual(reread.loudness(of: "http://s/\(LoudnessMemory.capacity + 9)"), -20)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        XCTAssertLessThan(size, 64 * 1024, "bounded: \(size) bytes")
    }

    func testADamagedFileIsIgnoredAndReplaced() throws {
        let directory = try TemporaryDirectory(self)
        for damaged in ["{not json", #"{"version": 2, "stations": []}"#, #"{"version": 1, "stations": [{"url": "x", "lufs": 900}]}"#] {
            let file = try directory.write("loudness.json", damaged)
            let memory = LoudnessMemory(file: file)
            XCTAssertNil(memory.loudness(of: "x"), damaged)
            memory.remember(-16, of: "x")
            XCTAssertEqual(LoudnessMemory(file: file).loudness(of: "x"), -16, "the next save replaces it")
        }
        XCTAssertThrowsError(try LoudnessMemory.parse(Data("{not json".utf8)))
        XCTAssertThrowsError(try LoudnessMemory.parse(Data(#"{"version": 1, "stations": [{"url": "x"}]}"#.utf8))) { error in
            XCTAssertTrue("\(error)".contains("stations[0]"), "the damage is named: \(error)")
        }
    }

    func testTheFileLivesInTheStateFolder() {
        XCTAssertEqual(XDGPaths(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]).loudnessFile, "/s/oton/loudness.json")
        XCTAssertEqual(XDGPaths(environment: ["HOME": "/h"]).loudnessFile, "/h/.local/state/oton/loudness.json")
    }
}
