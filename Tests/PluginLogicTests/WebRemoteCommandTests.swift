import Foundation
import WebRemoteLogic
import XCTest

/// What the page gets from the control commands the plugin runs (ABI 1.3 run_command): the
/// sleep presets it may send, the station list, earlier history, and the reason of a failure.
final class WebRemoteCommandTests: XCTestCase {
    private func action(_ json: String) throws -> RemoteAction {
        try RemoteAction.parse(Array(json.utf8))
    }

    func testOnlyWholeMinutesAfterTrackAndCancelReachTheSleepCommand() throws {
        XCTAssertEqual(try action(#"{"action": "sleep", "value": "30m"}"#), .sleep("30m"))
        XCTAssertEqual(try action(#"{"action": "sleep", "value": "1440m"}"#), .sleep("1440m"))
        XCTAssertEqual(try action(#"{"action": "sleep", "value": "after-track"}"#), .sleep("after-track"))
        XCTAssertEqual(try action(#"{"action": "sleep", "value": "cancel"}"#), .sleep("cancel"))
        for bad in [
            #""0m""#, #""1441m""#, #""30""#, #""-5m""#, #""5h""#, #""m""#, #""30m; quit""#, #""٣m""#, "30", "null",
            #""99999999999999999999m""#,
        ] {
            XCTAssertThrowsError(try action(#"{"action": "sleep", "value": \#(bad)}"#), bad) { error in
                XCTAssertTrue("\(error)".contains("1 to 1440"), "\(error)")
            }
        }
    }

    /// The loudness toggle: `level on|off` from the page, and the reply's data shown on it.
    func testTheLoudnessToggleSendsOnOrOffAndThePageShowsTheLevelReply() throws {
        XCTAssertEqual(try action(#"{"action": "level", "value": "on"}"#), .level(true))
        XCTAssertEqual(try action(#"{"action": "level", "value": "off"}"#), .level(false))
        for bad in [#""yes""#, "true", "1", "null"] {
            XCTAssertThrowsError(try action(#"{"action": "level", "value": \#(bad)}"#), bad) { error in
                XCTAssertTrue("\(error)".contains("\"on\" or \"off\""), "\(error)")
            }
        }
        let reply = #"{"ok":true,"text":"level -3.3 dB (-14.7 LUFS)","data":{"enabled":true,"gain_db":-3.26,"loudness_lufs":-14.7,"target_lufs":-18}}"#
        XCTAssertEqual(CommandReplies.level(reply), RemoteState.Level(enabled: true, gainDB: -3.26))
        XCTAssertEqual(CommandReplies.level(#"{"ok":true,"text":"level off","data":{"enabled":false}}"#), RemoteState.Level(enabled: false, gainDB: nil))
        XCTAssertNil(CommandReplies.level(#"{"ok":false,"error":"loudness levelling is not available here"}"#))
        var state = RemoteState()
        XCTAssertFalse(state.render(monotonicNow: 0).contains("level"), "no toggle until oton says it levels")
        state.setLevel(CommandReplies.level(reply))
        XCTAssertTrue(state.render(monotonicNow: 0).contains(#""level":{"enabled":true,"gain_db":-3.3}"#), state.render(monotonicNow: 0))
    }

    func testTheStationListComesFromTheStationsReplyData() {
        let reply =
            #"{"id":null,"ok":true,"text":"…","data":{"stations":[{"number":1,"name":"Test FM","url":"http://a","current":true},{"number":2,"name":"Радио Два","url":"http://b","current":false},{"name":"no number"},"junk"]}}"#
        XCTAssertEqual(
            CommandReplies.stations(reply),
            [
                RemoteState.StationEntry(number: 1, name: "Test FM", isCurrent: true),
                RemoteState.StationEntry(number: 2, name: "Радио Два", isCurrent: false),
            ])
        XCTAssertEqual(CommandReplies.stations(#"{"ok":false,"error":"x"}"#), [])
        XCTAssertEqual(CommandReplies.stations("not json"), [])
        var state = RemoteState()
        state.setStations(CommandReplies.stations(reply))
        XCTAssertEqual(state.version, 1)
        state.setStations(CommandReplies.stations(reply))
        XCTAssertEqual(state.version, 1, "the same list is no change")
        XCTAssertTrue(state.render(monotonicNow: 0).contains(#""stations":[{"current":true,"name":"Test FM","number":1}"#))
    }

    func testEarlierHistoryFillsThePageBehindWhatItSawItselfWithoutDuplicates() throws {
        let rows: [[String: Any]] = [
            ["started_at": "2026-11-23T10:05:00.000Z", "title": "Now", "artist": "A", "station": "Test FM", "jingle": false],
            ["started_at": "2026-11-23T10:01:00Z", "title": "Before", "artist": "B", "station": "Test FM", "jingle": false],
            ["started_at": "2026-11-23T10:00:30Z", "title": "Jingle", "artist": NSNull(), "station": "Test FM", "jingle": true],
            ["started_at": "2026-11-23T10:00:00Z", "title": NSNull(), "artist": NSNull(), "station": "Test FM", "jingle": false],
            ["started_at": "yesterday", "title": "Bad date", "jingle": false],
        ]
        let text = String(decoding: try JSONSerialization.data(withJSONObject: rows), as: UTF8.self)
        let reply = String(decoding: try JSONSerialization.data(withJSONObject: ["id": NSNull(), "ok": true, "text": text]), as: UTF8.self)
        let earlier = CommandReplies.history(reply)
        XCTAssertEqual(earlier.map(\.title), ["Now", "Before"], "no jingles, no rows without a title or a readable time")

        var state = RemoteState()
        let now = Int64(ISO8601DateFormatter().date(from: "2026-11-23T10:05:00Z")!.timeIntervalSince1970 * 1_000_000)
        state.apply(
            name: "track", fields: ["sequence": "1", "title": "Now", "artist": "A", "station": "Test FM"], monotonicNanoseconds: 0,
            wallMicroseconds: now + 3_000_000)
        state.addEarlierHistory(earlier)
        XCTAssertEqual(state.history.map(\.title), ["Now", "Before"], "the play both know is listed once")
        XCTAssertEqual(CommandReplies.history(#"{"ok":true,"text":"[not json"}"#), [])
    }

    func testAFailedCommandIsSaidOnThePageUntilOneSucceeds() {
        XCTAssertEqual(
            CommandReplies.error(#"{"id":null,"ok":false,"error":"unknown command \"sleep\"; `oton ctl commands` lists them"}"#),
            #"unknown command "sleep"; `oton ctl commands` lists them"#)
        XCTAssertEqual(CommandReplies.error("<html>"), "the command failed")
        var state = RemoteState()
        state.setNotice("sleep: unknown command")
        XCTAssertTrue(state.render(monotonicNow: 0).contains(#""notice":"sleep: unknown command""#))
        state.setNotice(nil)
        XCTAssertFalse(state.render(monotonicNow: 0).contains("notice"))
    }
}

/// Timeshift on the page (docs/timeshift.md): the seek and live actions, and status's behind-live.
final class WebRemoteTimeshiftTests: XCTestCase {
    func testSeekAndLiveActionsAndTheBehindLiveReply() throws {
        func action(_ json: String) throws -> RemoteAction { try RemoteAction.parse(Array(json.utf8)) }
        XCTAssertEqual(try action(#"{"action": "seek", "seconds": -30}"#), .seek(seconds: -30))
        XCTAssertEqual(try action(#"{"action": "live"}"#), .live)
        for bad in ["0", "1.5", "4000", "\"-30\""] {
            XCTAssertThrowsError(try action(#"{"action": "seek", "seconds": \#(bad)}"#), bad)
        }
        let reply = #"{"ok":true,"text":"…","data":{"state":"playing","behind_live_ms":83000,"behind_live":"−1:23","timeshift_held_ms":600000}}"#
        XCTAssertEqual(CommandReplies.timeshift(reply), RemoteState.Timeshift(behindMilliseconds: 83000, heldMilliseconds: 600000))
        XCTAssertNil(CommandReplies.timeshift(#"{"ok":true,"text":"…","data":{"state":"playing"}}"#), "no timeshift: nothing shown")
        var state = RemoteState()
        state.setTimeshift(CommandReplies.timeshift(reply))
        XCTAssertTrue(state.render(monotonicNow: 0).contains(#""behind_live_ms":83000"#), state.render(monotonicNow: 0))
    }
}
