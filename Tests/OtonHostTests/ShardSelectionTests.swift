import OtonHost
import XCTest

/// `--shard I/N`: rendezvous hashing covers every station exactly once and moves few when N grows.
final class ShardSelectionTests: XCTestCase {
    let urls = (1...60).map { "http://127.0.0.1:8000/station.mp3?s=\($0)" }

    func testThreeShardsCoverSixtyStationsExactlyOnce() throws {
        let shards = try (1...3).map { try ShardSelection("\($0)/3") }
        for url in urls {
            XCTAssertEqual(shards.filter { $0.keeps(url) }.count, 1, url)
        }
        // Balanced enough that no recorder gets most of them.
        for shard in shards { XCTAssertGreaterThan(urls.filter(shard.keeps).count, 8, "\(shard)") }
    }

    func testGoingFromThreeToFourShardsMovesOnlyWhatTheNewShardWins() {
        var moved = 0
        for url in urls {
            let before = ShardSelection.owner(of: url, shards: 3)
            let after = ShardSelection.owner(of: url, shards: 4)
            if before != after {
                moved += 1
                XCTAssertEqual(after, 4, "a station moves only to the new shard: \(url)")
            }
        }
        XCTAssertLessThanOrEqual(moved, urls.count / 3, "at most a third move")
        XCTAssertGreaterThan(moved, 0, "the new shard gets some")
    }

    func testShardArgumentsOutsideTheirRangeAreRefused() {
        for text in ["0/3", "4/3", "1/0", "a/3", "1", "1/3/4", ""] {
            XCTAssertThrowsError(try ShardSelection(text), text)
        }
        XCTAssertNoThrow(try ShardSelection("3/3"))
    }
}
