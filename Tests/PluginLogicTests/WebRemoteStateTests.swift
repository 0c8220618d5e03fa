import Foundation
import WebRemoteLogic
import XCTest

/// The page's state as events build it: track, state with its error, volume, artwork without its
/// path, the sleep countdown, share text and the last 20 plays.
final class WebRemoteStateTests: XCTestCase {
    private func json(_ state: RemoteState, at now: Int64 = 0) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(state.render(monotonicNow: now).utf8)) as? [String: Any])
    }

    /// The UPnP plugin's org.oton.cast.state: the page says where the station is cast while it is.
    func testCastingIsShownWhileItLasts() throws {
        var state = RemoteState()
        XCTAssertTrue(
            state.apply(
                name: "org.oton.cast.state", fields: ["renderer": "Living Room", "state": "casting", "url": "http://x/live"], monotonicNanoseconds: 0,
                wallMicroseconds: 0))
        XCTAssertEqual(try json(state)["cast"] as? [String: String], ["renderer": "Living Room", "url": "http://x/live"])
        XCTAssertTrue(
            state.apply(
                name: "org.oton.cast.state", fields: ["renderer": "Living Room", "state": "stopped", "url": "http://x/live"], monotonicNanoseconds: 0,
                wallMicroseconds: 0))
        XCTAssertNil(try json(state)["cast"])
        XCTAssertFalse(
            state.apply(
                name: "org.oton.cast.state", fields: ["renderer": "TV", "state": "failed", "url": "", "message": "no"], monotonicNanoseconds: 0,
                wallMicroseconds: 0), "a failure casts nothing")
    }

    func testTrackStateAndVolumeShowAndBumpTheVersion() throws {
        var state = RemoteState()
        XCTAssertTrue(
            state.apply(
                name: "track", fields: ["sequence": "1", "title": "Song", "artist": "Band", "station": "Test FM"], monotonicNanoseconds: 0,
                wallMicroseconds: 5_000_000))
        XCTAssertTrue(
            state.apply(
                name: "state", fields: ["state": "error", "error_message": "gone", "error_suggestion": "retry"], monotonicNanoseconds: 0, wallMicroseconds: 0))
        XCTAssertTrue(state.apply(name: "volume", fields: ["volume": "0.500"], monotonicNanoseconds: 0, wallMicroseconds: 0))
        XCTAssertFalse(state.apply(name: "volume", fields: ["volume": "0.500"], monotonicNanoseconds: 0, wallMicroseconds: 0), "no change, no update")
        XCTAssertFalse(state.apply(name: "org.example.unknown", fields: [:], monotonicNanoseconds: 0, wallMicroseconds: 0))
        let object = try json(state)
        XCTAssertEqual(object["title"] as? String, "Song")
        XCTAssertEqual(object["station"] as? String, "Test FM")
        XCTAssertEqual(object["volume"] as? Double, 0.5)
        XCTAssertEqual(object["version"] as? Int, 3)
        XCTAssertEqual((object["error"] as? [String: String])?["suggestion"], "retry")
        XCTAssertEqual((object["history"] as? [[String: Any]])?.first?["time"] as? Int, 5000)
    }

    func testArtworkPathNeverReachesThePageAndBadColoursAreDropped() throws {
        var state = RemoteState()
        state.apply(
            name: "org.oton.artwork.ready", fields: ["path": "/home/me/.cache/cover.jpg", "type": "cover", "color": "#102030"], monotonicNanoseconds: 0,
            wallMicroseconds: 0)
        XCTAssertEqual(state.artworkPath, "/home/me/.cache/cover.jpg")
        XCTAssertFalse(state.render(monotonicNow: 0).contains("/home/me"))
        XCTAssertEqual(try json(state)["color"] as? String, "#102030")
        state.apply(name: "org.oton.artwork.ready", fields: ["path": "/x", "color": "red;background:url(x)"], monotonicNanoseconds: 0, wallMicroseconds: 0)
        XCTAssertNil(try json(state)["color"])
        XCTAssertEqual((try json(state)["artwork"] as? [String: Any])?["version"] as? Int, 2)
    }

    func testSleepCountdownFollowsMonotonicTimeAndEndsOnCancel() throws {
        var state = RemoteState()
        state.apply(
            name: "org.oton.sleep.set", fields: ["seconds": "600", "mode": "duration", "action": "stop"], monotonicNanoseconds: 1_000_000_000,
            wallMicroseconds: 0)
        let sleep = try XCTUnwrap(try json(state, at: 61_000_000_000)["sleep"] as? [String: Any])
        XCTAssertEqual(sleep["remaining_seconds"] as? Int, 540)
        state.apply(name: "org.oton.sleep.cancelled", fields: [:], monotonicNanoseconds: 0, wallMicroseconds: 0)
        XCTAssertNil(try json(state)["sleep"])
    }

    func testHistoryKeepsTheLastTwentyPlaysAndSkipsBreaks() throws {
        var state = RemoteState()
        for index in 1...25 {
            state.apply(
                name: "track", fields: ["sequence": "\(2 * index)", "title": "Song \(index)", "artist": "A"], monotonicNanoseconds: 0, wallMicroseconds: 0)
            state.apply(name: "track", fields: ["sequence": "\(2 * index + 1)", "break": "1"], monotonicNanoseconds: 0, wallMicroseconds: 0)
        }
        XCTAssertEqual(state.history.count, 20)
        XCTAssertEqual(state.history.first?.title, "Song 25")
        XCTAssertEqual(state.history.last?.title, "Song 6")
        XCTAssertTrue(state.isBreak)
        XCTAssertEqual(state.title, "")
    }

    func testShareEventIsShown() throws {
        var state = RemoteState()
        state.apply(name: "org.oton.share", fields: ["text": "Listening to X", "links": "https://a\nhttps://b"], monotonicNanoseconds: 0, wallMicroseconds: 0)
        XCTAssertEqual((try json(state)["share"] as? [String: Any])?["links"] as? [String], ["https://a", "https://b"])
    }

    func testAStationSwitchEndsTheSongWithoutPlayingItAgain() throws {
        var state = RemoteState()
        state.apply(
            name: "track", fields: ["sequence": "1", "title": "Blood Type", "artist": "Kino", "station": "Lab MP3"],
            monotonicNanoseconds: 0, wallMicroseconds: 0)
        // The host's event at a switch: a new sequence, the new station, no title yet.
        XCTAssertTrue(state.apply(name: "track", fields: ["sequence": "2", "station": "Lab Ogg"], monotonicNanoseconds: 0, wallMicroseconds: 0))
        let object = try json(state)
        XCTAssertEqual(object["title"] as? String, "", "the old song is gone")
        XCTAssertEqual(object["artist"] as? String, "")
        XCTAssertEqual(object["station"] as? String, "Lab Ogg")
        XCTAssertEqual(state.history.map(\.title), ["Blood Type"], "the old song is not listed a second time")
    }
}
