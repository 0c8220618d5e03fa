import Foundation
import OtonTestSupport
import RecognitionLogic
import RecognitionStore
import XCTest

/// The SQLite index (recognition.sqlite): its cap, oldest out (matching through it: RecognitionMatcherTests).
final class RecognitionIndexTests: XCTestCase {
    private func frames(_ count: Int, seed: UInt32) -> [UInt32] {
        var state = seed &* 2_654_435_761 | 1
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return state
        }
    }

    func testTheOldestSongsGoFirstPastTheCap() throws {
        let directory = try TemporaryDirectory(self)
        let index = try FingerprintIndex(path: directory.file("recognition.sqlite"), maxFrames: 1000)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for number in 1...3 {
            try index.add(
                TitledSong(artist: nil, title: "Song \(number)", station: nil), frames: frames(400, seed: UInt32(number)), now: start + Double(number))
        }
        // 1200 frames > 1000: song 1, the oldest, went.
        XCTAssertEqual(try index.titles().map(\.title), ["Song 2", "Song 3"])
        // Song 2 heard again is new again: song 3 is now the oldest and goes for song 4.
        try index.add(TitledSong(artist: nil, title: "Song 2", station: nil), frames: frames(300, seed: 2), now: start + 10)
        let evicted = try index.add(TitledSong(artist: nil, title: "Song 4", station: nil), frames: frames(400, seed: 4), now: start + 11)
        XCTAssertEqual(evicted, 1)
        XCTAssertEqual(try index.titles().map(\.title), ["Song 2", "Song 4"])
        XCTAssertEqual(try index.figures().frames, 800)
        // What went is gone from the lookup table too: its frames find nothing.
        let gone = Set(frames(400, seed: 3).map(FingerprintMatcher.key))
        XCTAssertTrue(try index.hits(for: gone, limit: 10).values.allSatisfy { $0.allSatisfy { $0.song != 3 } })
        XCTAssertNil(try index.frames(of: 3))
    }

    /// The cap in megabytes holds for the file: FingerprintBudget.bytesPerFrame is what a frame costs.
    func testTheFileStaysWithinItsMegabytes() throws {
        let directory = try TemporaryDirectory(self)
        let path = directory.file("recognition.sqlite")
        var config = RecognitionConfig()
        config.maxMegabytes = 1
        let index = try FingerprintIndex(path: path, maxFrames: config.maxFrames)
        for number in 1...40 {  // 80,000 frames offered, three times the cap
            try index.add(TitledSong(artist: "A", title: "Song \(number)", station: nil), frames: frames(2000, seed: UInt32(number)))
        }
        XCTAssertLessThanOrEqual(try index.figures().frames, config.maxFrames)
        let bytes = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        XCTAssertLessThanOrEqual(bytes + wal, 1_048_576 * 5 / 4, "1 MB of index took \(bytes + wal) bytes")
        print("RecognitionIndexTests: \(try index.figures().frames) frames in \(bytes + wal) bytes")
    }

    func testAnIndexReopenedKeepsItsSongs() throws {
        let directory = try TemporaryDirectory(self)
        let path = directory.file("sub/recognition.sqlite")
        try FingerprintIndex(path: path, maxFrames: 10_000).add(TitledSong(artist: "A", title: "Kept", station: "S"), frames: frames(100, seed: 9))
        XCTAssertEqual(try FingerprintIndex(path: path, maxFrames: 10_000).titles().map(\.title), ["Kept"])
    }
}
