import Foundation
import XCTest

@testable import OtonHost

/// The host's one rule for status-API answers: the stream's title names the heard
/// track; a status answer is used only once its title matches it (or the stream has none).
final class StationStatusLookupTests: XCTestCase {
    private let cover = URL(string: "https://img.example.com/covers/a.png")!
    private let heard = StationStatusLookup.Heard(title: "Song One", artist: "Artist A", rawTitle: "Artist A - Song One")

    func testTitleMatching() {
        XCTAssertTrue(StatusTitleMatcher.matches(statusTitle: "Artist A - Song One", title: "Song One", artist: "Artist A", rawTitle: nil))
        XCTAssertTrue(StatusTitleMatcher.matches(statusTitle: "artist a  -  song one", title: nil, artist: nil, rawTitle: "Artist A - Song One"))
        XCTAssertTrue(StatusTitleMatcher.matches(statusTitle: "Someone feat. X - Song One", title: "Song One", artist: "Someone", rawTitle: nil))
        XCTAssertFalse(StatusTitleMatcher.matches(statusTitle: "Artist A - Old Song", title: "Song One", artist: "Artist A", rawTitle: nil))
        XCTAssertFalse(StatusTitleMatcher.matches(statusTitle: "", title: "", artist: nil, rawTitle: nil))
    }

    func testALaggingStatusIsAskedAgainAfterTwoFourAndSixSecondsThenGivenUp() {
        var lookup = StationStatusLookup()
        XCTAssertEqual(lookup.heardTrackChanged(heard), .ask(afterSeconds: 0, round: 1))
        let old = StationStatus(title: "Someone - Old Song", artworkURL: URL(string: "https://img.example.com/old.png"))
        XCTAssertEqual(lookup.answered(old, round: 1), [.ask(afterSeconds: 2, round: 1)])
        XCTAssertEqual(lookup.failed(round: 1), .ask(afterSeconds: 4, round: 1))
        XCTAssertEqual(lookup.answered(old, round: 1), [.ask(afterSeconds: 6, round: 1)])
        XCTAssertEqual(lookup.answered(old, round: 1), [.gaveUp(round: 1, lastTitle: "Someone - Old Song")])
    }

    func testAMatchingAnswerIsUsedAndAskingStops() {
        var lookup = StationStatusLookup()
        _ = lookup.heardTrackChanged(heard)
        let status = StationStatus(title: "Artist A - Song One", artworkURL: cover)
        XCTAssertEqual(lookup.answered(status, round: 1), [.use(status)])
    }

    func testAnAnswerForAnOlderTitleIsStaleOnceANewTitleArrived() {
        var lookup = StationStatusLookup()
        _ = lookup.heardTrackChanged(heard)
        XCTAssertEqual(lookup.heardTrackChanged(.init(title: "Two", artist: "B", rawTitle: "B - Two")), .ask(afterSeconds: 0, round: 2))
        XCTAssertEqual(lookup.answered(StationStatus(title: "Artist A - Song One", artworkURL: cover), round: 1), [.stale])
        XCTAssertEqual(lookup.failed(round: 1), .stale)
    }

    func testAStreamWithoutTitlesUsesEveryAnswerAndAsksPeriodically() {
        var lookup = StationStatusLookup(idleInterval: 30, connectGrace: 2)
        XCTAssertEqual(lookup.connected(), .ask(afterSeconds: 2, round: 1), "the stream gets 2 s to name its track first")
        let status = StationStatus(title: "Whatever - Is On", artworkURL: cover)
        XCTAssertEqual(lookup.answered(status, round: 1), [.use(status), .ask(afterSeconds: 30, round: 1)])
        XCTAssertEqual(lookup.failed(round: 1), .ask(afterSeconds: 30, round: 1))
        XCTAssertEqual(lookup.heardTrackChanged(.init(title: nil, artist: nil, rawTitle: nil)), .ask(afterSeconds: 0, round: 2))
        XCTAssertEqual(lookup.answered(status, round: 2).first, .use(status), "a cleared stream title means the stream has none")
    }
}
