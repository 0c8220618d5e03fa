import OtonJSON
import OtonSupport
import XCTest

@testable import OtonWindow

/// Issue 52: a title the stream did not send is shown as what it is, wherever a song is shown
/// (`SongText`: the status line, `ctl status`, the log lines, the window).
final class WindowTitleSourceTests: XCTestCase {
    private func event(_ kind: String, _ fields: [String: String]) -> [String: JSONValue] {
        ["kind": .string(kind), "fields": .object(fields.mapValues(JSONValue.string))]
    }

    func testASongSaysWhereItsTitleCameFromUnlessTheStreamSaidIt() {
        XCTAssertEqual(SongText.line(artist: "Artist", title: "Song", source: "stream"), "Artist – Song")
        XCTAssertEqual(SongText.line(artist: "Artist", title: "Song", source: nil), "Artist – Song", "an older host")
        XCTAssertEqual(SongText.line(artist: "Artist", title: "Song", source: "station-api"), "Artist – Song (from the station's website)")
        XCTAssertEqual(SongText.line(artist: nil, title: "Song", source: "provider:laut.fm"), "Song (from laut.fm)")
        XCTAssertEqual(SongText.line(artist: "Artist", title: "Song", source: "recognised"), "probably Artist – Song (recognised)")
        XCTAssertEqual(SongText.line(artist: "Artist", title: "Song", source: "telepathy"), "Artist – Song (not from the stream)")
        XCTAssertEqual(SongText.line(artist: nil, title: "", source: "station-api"), "", "nothing to show, no note")
        let russian = MessageCatalogue.load(languages: ["ru"], directories: [TestLocale.directory])
        XCTAssertEqual(russian.tr("from the station's website"), "с сайта станции")
    }

    func testTheWindowHedgesARecognisedTitleAndNotesAStationsOwn() {
        var playing = NowPlaying()
        playing.apply(event: event("track", ["sequence": "1", "title": "Song", "artist": "Artist", "title_source": "recognised"]), now: 0)
        XCTAssertEqual(playing.shownTitle, "probably Song")
        XCTAssertEqual(playing.titleSourceText, "recognised")
        XCTAssertEqual(playing.history.first?.hasSuffix("probably Artist – Song (recognised)"), true, playing.history.first ?? "")
        playing.apply(event: event("track", ["sequence": "1", "title": "Song", "artist": "Artist", "title_source": "stream"]), now: 0)
        XCTAssertEqual(playing.shownTitle, "Song", "the stream named it since")
        XCTAssertNil(playing.titleSourceText)
        playing.apply(event: event("track", ["sequence": "2", "station": "Oton FM"]), now: 0)
        XCTAssertNil(playing.titleSource, "another track without a title forgets the source")
        playing.apply(status: ["state": "playing", "title": "Other", "artist": "B", "title_source": "station-api"])
        XCTAssertEqual(playing.titleSourceText, "from the station's website")
        XCTAssertEqual(playing.shownTitle, "Other")
    }

    func testHistoryLinesFromThePluginSayTheSource() throws {
        let json = """
            [{"started_at": "2026-11-29T06:00:00Z", "title": "Song", "artist": "Artist", "station": "Oton FM",
              "jingle": false, "title_source": "station-api"}]
            """
        let lines = try XCTUnwrap(HistoryLines.lines(fromJSON: json, now: Date(timeIntervalSince1970: 1_795_500_000), timeZone: .gmt))
        XCTAssertEqual(lines.count, 1)
        XCTAssertTrue(lines[0].hasSuffix("Artist – Song (from the station's website) · Oton FM"), lines[0])
    }
}

/// The repository's catalogues, for a test that reads a translation.
private enum TestLocale {
    static var directory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/OtonHost/Resources/locale").path
    }
}
