import Foundation
import OtonJSON
import XCTest

@testable import OtonWindow

/// The history lines from the history plugin's `history --format json`, the plugins as the
/// preferences list them, and the artwork a window attaching mid-track gets from `status`.
final class WindowHistoryTests: XCTestCase {
    private let utc = TimeZone(identifier: "UTC")!

    func testPluginRowsBecomeLinesTodayWithTheTimeOtherDaysWithTheDate() throws {
        let json = """
            [
              {"artist": "Artist B", "jingle": false, "raw_title": "Artist B - Song Two", "started_at": "2026-11-27T14:05:10Z", "station": "Lab FM", "title": "Song Two"},
              {"artist": null, "jingle": true, "raw_title": "Station ID", "started_at": "2026-11-27T14:04:00Z", "station": "Lab FM", "title": "Station ID"},
              {"artist": null, "jingle": false, "raw_title": "<b>Only</b> &amp; raw", "started_at": "2026-11-27T14:00:00Z", "station": "", "title": null},
              {"artist": "Artist A", "jingle": false, "raw_title": "Artist A - Song One", "started_at": "2026-11-26T23:59:00Z", "station": "Lab FM", "title": "Song One"}
            ]
            """
        let now = try XCTUnwrap(TimeText.date(iso8601: "2026-11-27T18:00:00Z"))
        XCTAssertEqual(
            HistoryLines.lines(fromJSON: json, now: now, timeZone: utc),
            [
                "14:05  Artist B – Song Two · Lab FM",
                "14:00  <b>Only</b> &amp; raw",
                "2026-11-26 23:59  Artist A – Song One · Lab FM",
            ], "jingles left out, markup kept as text, another day dated")
        XCTAssertEqual(HistoryLines.lines(fromJSON: "[]", now: now, timeZone: utc), [])
        XCTAssertNil(HistoryLines.lines(fromJSON: "unknown command \"history\"", now: now), "not the plugin's answer")
    }

    func testTheWindowsOwnLinesAreSearchedIgnoringCaseAndAccents() {
        let lines = ["14:05  Björk – Jóga · Lab FM", "14:00  Artist A – Song One · Lab FM"]
        XCTAssertEqual(HistoryLines.matching(lines, "bjork joga"), [])
        XCTAssertEqual(HistoryLines.matching(lines, "JOGA"), [lines[0]])
        XCTAssertEqual(HistoryLines.matching(lines, "  "), lines)
    }

    func testPluginsShowTheirNameStateAndWhatTheyDo() throws {
        let data = try JSONValue.parse(
            Data(
                """
                {"plugins": [
                  {"id": "org.oton.history", "status": "running 1.2.0", "path": "/x/libOtonHistory.so", "name": "Listening history", "description": "Keeps every track heard"},
                  {"id": "org.oton.mqtt", "status": "disabled", "path": "/x/libOtonMQTT.so"},
                  {"id": "org.example.bad", "status": "failed: no such file", "path": "/x/libBad.so"}
                ]}
                """.utf8))
        XCTAssertEqual(
            PluginRow.list(from: data),
            [
                PluginRow(title: "Listening history", subtitle: "org.oton.history · enabled, version 1.2.0 · Keeps every track heard", enabled: true),
                PluginRow(title: "org.oton.mqtt", subtitle: "disabled", enabled: false),
                PluginRow(title: "org.example.bad", subtitle: "enabled, did not load: no such file", enabled: true),
            ])
    }

    func testAttachingMidTrackTakesTheArtworkFromTheStatus() {
        var playing = NowPlaying()
        playing.apply(status: [
            "state": "playing", "station": "Lab FM",
            "artwork": ["path": "/tmp/a.png", "type": "station-logo", "color": "#102030"],
        ])
        XCTAssertEqual(playing.artworkPath, "/tmp/a.png")
        XCTAssertEqual(playing.artworkDescription, "Station logo")
        XCTAssertEqual(playing.colour, "#102030")
        var bad = NowPlaying()
        bad.apply(status: ["artwork": ["path": "/tmp/a.png", "type": "cover", "color": "red; } * { color: red"]])
        XCTAssertNil(bad.colour, "only #RRGGBB reaches the CSS")
    }
}
