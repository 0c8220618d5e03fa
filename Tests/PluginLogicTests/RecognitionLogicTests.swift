import OtonJSON
import PluginAPI
import RecognitionLogic
import XCTest

final class RecognitionLogicTests: XCTestCase {
    func testTheWindowIsLookedAtOnceFullThenEveryTenSeconds() {
        var window = ListeningWindow(rate: 100)
        let second = [Int16](repeating: 1, count: 100)
        var looks: [Int] = []
        for elapsed in 1...40 {
            let chunk = second.map { _ in Int16(elapsed) }
            if chunk.withUnsafeBufferPointer({ window.append($0) }) { looks.append(elapsed) }
        }
        XCTAssertEqual(looks, [12, 22, 32])
        XCTAssertEqual(window.samples.count, 1200)
        XCTAssertEqual(window.samples.first, 29)  // the last 12 s, oldest first
        XCTAssertEqual(window.samples.last, 40)
        window.clear()
        XCTAssertEqual(window.heldSeconds, 0)
        XCTAssertFalse(second.withUnsafeBufferPointer { window.append($0) })
    }

    func testSuggestionsChangeWithTheSongAndAreWithdrawnAfterThreeMisses() {
        var tracker = SuggestionTracker()
        XCTAssertNil(tracker.looked(nil))
        XCTAssertEqual(tracker.looked(7), .suggest(7))
        XCTAssertNil(tracker.looked(7))
        XCTAssertNil(tracker.looked(nil))
        XCTAssertNil(tracker.looked(7))  // a miss between two recognitions does not count
        XCTAssertEqual(tracker.looked(9), .suggest(9))
        XCTAssertNil(tracker.looked(nil))
        XCTAssertNil(tracker.looked(nil))
        XCTAssertEqual(tracker.looked(nil), .withdraw)
        XCTAssertNil(tracker.suggested)
        XCTAssertEqual(tracker.looked(9), .suggest(9))
    }

    func testTheRoleFollowsWhereTheTitleCameFrom() {
        let base = [OTON_FIELD_SEQUENCE: "4", OTON_FIELD_STATION: "Titled FM"]
        XCTAssertEqual(
            RecognitionRole.of(base.merging([OTON_FIELD_TITLE: "Song", OTON_FIELD_ARTIST: "Band"]) { $1 }),
            .index(TitledSong(artist: "Band", title: "Song", station: "Titled FM")))
        XCTAssertEqual(
            RecognitionRole.of(base.merging([OTON_FIELD_TITLE: "Song", OTON_FIELD_TITLE_SOURCE: "station-api"]) { $1 }),
            .index(TitledSong(artist: nil, title: "Song", station: "Titled FM")))
        // Its own suggestion, come back as the track: still a station to listen to, never a song to learn.
        XCTAssertEqual(RecognitionRole.of(base.merging([OTON_FIELD_TITLE: "Song", OTON_FIELD_TITLE_SOURCE: "recognised"]) { $1 }), .listen)
        XCTAssertEqual(RecognitionRole.of(base), .listen)
        XCTAssertEqual(RecognitionRole.of(base.merging([OTON_FIELD_BREAK: "1"]) { $1 }), .pause)
    }

    func testACaptureIsKeptFromTwentySecondsAndEndsAtItsMaximum() {
        var span = CaptureSpan(rate: 10, maximumSeconds: 60)
        XCTAssertEqual(span.take(150), 150)
        XCTAssertFalse(span.isWorthKeeping)
        XCTAssertEqual(span.take(500), 450)
        XCTAssertTrue(span.isWorthKeeping)
        XCTAssertTrue(span.isFull)
        XCTAssertEqual(span.take(10), 0)
    }

    func testConfigDefaultsAndRefusals() throws {
        let defaults = try RecognitionConfig.parse("{}")
        XCTAssertEqual(defaults.maxMegabytes, 50)
        XCTAssertEqual(defaults.maxFrames, 50 * 1_048_576 / FingerprintBudget.bytesPerFrame)
        XCTAssertNil(defaults.database)
        XCTAssertEqual(try RecognitionConfig.parse(#"{"max_mb": 5, "database": "/tmp/r.sqlite"}"#).database, "/tmp/r.sqlite")
        XCTAssertThrowsError(try RecognitionConfig.parse(#"{"max_mb": 0}"#)) { XCTAssertTrue("\($0)".contains("config.max_mb"), "\($0)") }
        XCTAssertThrowsError(try RecognitionConfig.parse(#"{"threshold": 0.5}"#)) { XCTAssertTrue("\($0)".contains("threshold"), "\($0)") }
        XCTAssertThrowsError(try RecognitionConfig.parse(#"{"max_track_seconds": "long"}"#))
    }
}
