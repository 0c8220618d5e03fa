import Foundation
import OtonJSON
import OtonSupport
import XCTest

@testable import OtonWindow

/// What the window shows of timeshift ("behind live") and levelling, from `status` and the replies of
/// `live` and `level`, and the alarm days it hands to `oton alarm add --days`. Pure: times are given.
final class WindowLiveAndLevelTests: XCTestCase {
    private let paused: [String: JSONValue] = [
        "state": "paused", "station": "Lab FM", "behind_live_ms": 5_000,
        "timeshift_held_ms": 60_000, "timeshift_limit_ms": 1_800_000,
        "level": ["enabled": true, "gain_db": .number(-3.5)],
    ]

    func testPausedItCountsUpFromWhatStatusSaidAndPlayingItStays() {
        var playing = NowPlaying()
        playing.apply(status: paused, now: 100)
        XCTAssertEqual(playing.behindLiveText(now: 100), "−0:05 behind live")
        XCTAssertEqual(playing.behindLiveText(now: 183.2), "−1:28 behind live", "paused: the time since status adds up")
        XCTAssertTrue(playing.isCountingDown, "paused with timeshift, the label ticks")
        // Playing from 110 s on: what the pause added is kept, and no longer grows.
        playing.apply(event: ["kind": "state", "fields": ["state": "playing"]], now: 110)
        XCTAssertEqual(playing.behindLiveMilliseconds(now: 110), 15_000)
        XCTAssertEqual(playing.behindLiveText(now: 500), "−0:15 behind live")
        XCTAssertFalse(playing.isCountingDown)
        // `live`'s reply: at live.
        XCTAssertTrue(playing.apply(timeshiftAndLevel: ["behind_live_ms": 0, "timeshift_held_ms": 60_000], now: 120))
        XCTAssertEqual(playing.behindLiveText(now: 130), "live")
    }

    func testPausedLongerThanTheRingStaysAtItsLength() {
        var playing = NowPlaying()
        playing.apply(status: ["state": "paused", "behind_live_ms": 50_000, "timeshift_limit_ms": 60_000], now: 0)
        XCTAssertEqual(playing.behindLiveMilliseconds(now: 3600), 60_000)
    }

    func testLevellingFromStatusAndFromLevelsReply() {
        var playing = NowPlaying()
        playing.apply(status: paused, now: 0)
        XCTAssertEqual(playing.levelling, true)
        XCTAssertTrue(playing.apply(timeshiftAndLevel: ["enabled": false], now: 1), "`level off` answers {enabled: false}")
        XCTAssertEqual(playing.levelling, false)
        XCTAssertFalse(playing.apply(timeshiftAndLevel: ["enabled": false], now: 2), "nothing changed")
    }

    func testAStatusWithoutTheFiguresHasNoTimeshiftNorLevelling() {
        var playing = NowPlaying()
        playing.apply(status: paused, now: 0)
        playing.apply(status: ["state": "playing", "station": "Lab FM"], now: 1)
        XCTAssertNil(playing.timeshift)
        XCTAssertNil(playing.behindLiveText(now: 2))
        XCTAssertNil(playing.levelling)
    }

    func testAlarmDaysAsTheCommandLineTakesThem() {
        XCTAssertEqual(Weekdays.daysArgument([1, 3]), "mon,wed")
        XCTAssertEqual(Weekdays.daysArgument([7, 6]), "sat,sun")
        XCTAssertNil(Weekdays.daysArgument([]), "none: every day")
        XCTAssertNil(Weekdays.daysArgument(Set(1...7)), "all: every day")
        XCTAssertEqual(Weekdays.daysArgument([0, 2, 9]), "tue", "only days of the week")
    }
}
