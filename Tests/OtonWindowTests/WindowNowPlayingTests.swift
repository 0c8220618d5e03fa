import OtonJSON
import XCTest

@testable import OtonWindow

/// The window's picture of the player, from the events `oton ctl subscribe` streams.
final class WindowNowPlayingTests: XCTestCase {
    private func event(_ kind: String, _ fields: [String: String]) -> [String: JSONValue] {
        ["kind": .string(kind), "fields": .object(fields.mapValues(JSONValue.string))]
    }

    func testStatesInWords() {
        var playing = NowPlaying()
        XCTAssertEqual(playing.stateText(now: 0), "connecting")
        playing.apply(event: event("state", ["state": "buffering", "buffering_percent": "40"]), now: 0)
        XCTAssertEqual(playing.stateText(now: 0), "buffering 40 %")
        XCTAssertTrue(playing.isPlaying)
        playing.apply(event: event("state", ["state": "paused"]), now: 0)
        XCTAssertEqual(playing.stateText(now: 0), "paused")
        XCTAssertFalse(playing.isPlaying, "paused: the main button plays")
    }

    /// A listener's player never gives up by itself (issue 54 §1): without a limit the window says it waits.
    func testWithoutALimitTheWindowSaysItWaitsForTheStation() {
        var playing = NowPlaying()
        playing.apply(
            event: event(
                "state",
                [
                    "state": "error", "retry_attempt": "7", "retry_in_ms": "2000", "error_kind": "stream-unavailable",
                    "error_message": "The station's stream was not found.", "error_suggestion": "Try again later.",
                ]), now: 100)
        XCTAssertEqual(playing.stateText(now: 100), "waiting for the station to come back (next try in 2 s)")
        XCTAssertFalse(playing.isPlaying)
    }

    func testReconnectCountsDownAndGivingUpKeepsTheSuggestion() {
        var playing = NowPlaying()
        playing.apply(
            event: event(
                "state",
                [
                    "state": "connecting", "retry_attempt": "2", "retry_in_ms": "4000", "retry_max": "3",
                    "error_kind": "network", "error_message": "The connection was refused.",
                    "error_suggestion": "Check the address.",
                ]), now: 100)
        XCTAssertEqual(playing.stateText(now: 100), "reconnecting in 4 s (attempt 2/3)")
        XCTAssertEqual(playing.stateText(now: 101.5), "reconnecting in 3 s (attempt 2/3)")
        XCTAssertFalse(playing.isPlaying, "while waiting, the main button tries again")
        playing.apply(
            event: event(
                "state",
                [
                    "state": "error", "error_kind": "network", "error_message": "The connection was refused.",
                    "error_suggestion": "Check the address.",
                ]), now: 110)
        XCTAssertEqual(playing.stateText(now: 110), "gave up")
        XCTAssertEqual(playing.problemText, "The connection was refused.\nCheck the address.")
        // The player quits after giving up: its last states carry no error, the window still says why.
        playing.apply(event: event("state", ["state": "stopped"]), now: 111)
        playing.playerGone = true
        XCTAssertEqual(playing.stateText(now: 112), "gave up")
        XCTAssertEqual(playing.problemText, "The connection was refused.\nCheck the address.")
        playing.apply(event: event("state", ["state": "playing"]), now: 120)
        XCTAssertNil(playing.problemText, "playing again: no error shown")
    }

    func testTrackTitleArtistStationAndTheirEnd() {
        var playing = NowPlaying()
        playing.apply(event: event("track", ["station": "Lab FM", "title": "<b>Song</b> &amp;", "artist": "A", "sequence": "1"]), now: 0, clock: "12:00")
        XCTAssertEqual(playing.title, "<b>Song</b> &amp;", "kept as sent; the label shows it as text")
        XCTAssertEqual(playing.station, "Lab FM")
        XCTAssertEqual(playing.history, ["12:00  A – <b>Song</b> &amp; · Lab FM"], "as text")
        playing.apply(event: event("track", ["sequence": "1", "station": "Lab FM", "title": "<b>Song</b> &amp;", "artist": "A"]), now: 0)
        XCTAssertEqual(playing.history.count, 1, "the same track again is not heard twice")
        playing.apply(event: event("track", ["sequence": "2"]), now: 0)
        XCTAssertEqual(playing.title, "", "a new track without a title ends the old one")
        XCTAssertEqual(playing.artist, "")
        XCTAssertEqual(playing.station, "Lab FM")
    }

    func testVolumeAndArtworkColourAreChecked() {
        var playing = NowPlaying()
        playing.apply(event: event("volume", ["volume": "0.4"]), now: 0)
        XCTAssertEqual(playing.volumePercent, 40)
        playing.apply(event: event("volume", ["volume": "9"]), now: 0)
        XCTAssertEqual(playing.volumePercent, 150)
        playing.apply(event: event("org.oton.artwork.ready", ["path": "/tmp/a.png", "color": "#12abEF"]), now: 0)
        XCTAssertEqual(playing.colour, "#12abEF")
        playing.apply(event: event("org.oton.artwork.ready", ["path": "/tmp/b.png", "color": "red; } * { color: red"]), now: 0)
        XCTAssertNil(playing.colour, "only #RRGGBB reaches the CSS")
        XCTAssertEqual(playing.artworkPath, "/tmp/b.png")
        XCTAssertEqual(playing.artworkDescription, "No cover for this track")
        playing.apply(event: event("org.oton.artwork.ready", ["path": "/tmp/c.png", "type": "cover"]), now: 0)
        XCTAssertEqual(playing.artworkDescription, "Cover of this track")
    }

    func testSleepTimerCountsDownFromItsEvents() {
        var playing = NowPlaying()
        XCTAssertNil(playing.sleepText(now: 0))
        playing.apply(event: event("org.oton.sleep.set", ["seconds": "1800", "mode": "duration"]), now: 10)
        XCTAssertEqual(playing.sleepText(now: 10), "sleep 30:00")
        XCTAssertEqual(playing.sleepText(now: 12.5), "sleep 29:58")
        XCTAssertTrue(playing.isCountingDown)
        playing.apply(event: event("org.oton.sleep.set", ["mode": "after-track"]), now: 20)
        XCTAssertEqual(playing.sleepText(now: 20), "sleep after track")
        playing.apply(event: event("org.oton.sleep.cancelled", [:]), now: 30)
        XCTAssertNil(playing.sleepText(now: 30))
        XCTAssertFalse(playing.isCountingDown)
    }

    func testArgumentsRefuseBadSizesAndInstanceNames() throws {
        XCTAssertEqual(try WindowArguments.parse(["--size", "390x844"]).size.width, 390)
        XCTAssertEqual(try WindowArguments.parse(["--instance=kitchen"]).instance, "kitchen")
        for bad in [["--size", "100x100"], ["--size", "1e3x900"], ["--instance", "../x"], ["--instance"], ["--colour", "red"]] {
            XCTAssertThrowsError(try WindowArguments.parse(bad), "\(bad)")
        }
    }
}
