import HistoryLogic
import XCTest

/// Issue 15.21: the source's "Unknown - Unknown" is not a play; it is never scrobbled.
final class PlaceholderTitleTests: XCTestCase {
    func testUnknownArtistAndTitleInAnyCaseArePlaceholders() {
        XCTAssertTrue(PlaceholderTitle.isPlaceholder(artist: "Unknown", title: "Unknown"))
        XCTAssertTrue(PlaceholderTitle.isPlaceholder(artist: "UNKNOWN ARTIST", title: " unknown title "))
        XCTAssertTrue(PlaceholderTitle.isPlaceholder(artist: nil, title: "Unknown"), "a title alone that says nothing")
        XCTAssertTrue(PlaceholderTitle.isPlaceholder(artist: "n/a", title: "-"))
    }

    func testARealArtistOrTitleIsNotAPlaceholder() {
        XCTAssertFalse(PlaceholderTitle.isPlaceholder(artist: "Unknown", title: "Money"), "a title is a title")
        XCTAssertFalse(PlaceholderTitle.isPlaceholder(artist: "Pink Floyd", title: "Unknown"), "an artist is an artist")
        XCTAssertFalse(PlaceholderTitle.isPlaceholder(artist: "Unknown Mortal Orchestra", title: "Multi-Love"))
        XCTAssertFalse(PlaceholderTitle.isPlaceholder(artist: nil, title: nil), "nothing at all is a jingle's case, not this one")
    }

    func testPlaceholdersAreNeitherNowPlayingNorScrobbled() {
        let start = PlayStart(sequence: 1, artist: "Unknown", title: "Unknown", startedAtMicroseconds: 0)
        XCTAssertNil(ScrobbleRule.nowPlaying(start))
        let end = PlayEnd(start: start, endedAtMicroseconds: 600_000_000, secondsListened: 600, endedByTitleChange: true)
        XCTAssertNil(ScrobbleRule.listen(for: end, minimumLiveSeconds: 30))
        var real = end
        real.start.artist = "Pink Floyd"
        real.start.title = "Money"
        XCTAssertNotNil(ScrobbleRule.listen(for: real, minimumLiveSeconds: 30), "the same play with a real title counts")
    }
}
