import OtonTestSupport
import SleepTimerLogic
import XCTest

final class SleepDurationTests: XCTestCase {
    func testGoodDurations() throws {
        let cases: [(String, Int)] = [
            ("90s", 90), ("30m", 1800), ("1h15m", 4500), ("1h 15m 30s", 4530),
            ("2H", 7200), ("10:00", 600), ("1:05:00", 3900), (" 15m ", 900), ("1.5h", 5400),
        ]
        for (text, seconds) in cases {
            XCTAssertEqual(try SleepDuration.parse(text), seconds, text)
        }
    }

    func testBadDurations() {
        for text in ["", "0", "0s", "m", "10x", "1h1h", "15m30", "-5m", "25h", "1:60", "a:b", "99999999999999999999", "1..5h"] {
            XCTAssertThrowsError(try SleepDuration.parse(text), text) { error in
                XCTAssertTrue("\(error)".contains("is not a duration"), "\(error)")
            }
        }
    }

    func testABareNumberIsRefusedWithTheUnitsToChooseFrom() {
        XCTAssertThrowsError(try SleepDuration.parse("45")) { error in
            XCTAssertTrue("\(error)".contains("45m for minutes, 45s for seconds"), "\(error)")
        }
    }

    func testFormat() {
        XCTAssertEqual(SleepDuration.format(9), "0:09")
        XCTAssertEqual(SleepDuration.format(1800), "30:00")
        XCTAssertEqual(SleepDuration.format(3900), "1:05:00")
    }
}

final class SleepTimerModelTests: XCTestCase {
    private let second: Int64 = 1_000_000_000

    /// The sound is gone at the time set (issue 54 §13: `sleep 30s` ended at 0:40): the fade ends at the deadline.
    func testDurationFadesSoThatTheSoundEndsAtTheDeadlineThenFinishes() {
        var model = SleepTimerModel(settings: .init(fadeMilliseconds: 2000, action: .pause))
        model.volumeChanged(0.7)
        XCTAssertEqual(model.set(seconds: 60, now: 0), [.arm(nanoseconds: 58 * second), .announceSet(seconds: 60, mode: "duration")])
        XCTAssertEqual(model.remainingSeconds(now: 30 * second), 30)
        XCTAssertEqual(model.timerFired(now: 57 * second), [.arm(nanoseconds: second)], "an early wake re-arms")
        XCTAssertEqual(model.timerFired(now: 58 * second), [.arm(nanoseconds: nil), .announceFired, .fadeOut(milliseconds: 2000)])
        model.volumeChanged(0.1)  // the fade's own volume events do not overwrite the volume to restore
        XCTAssertEqual(model.fadeFinished(), [.finish(.pause, restoreVolume: 0.7)])
        XCTAssertEqual(model.mode, .off)
    }

    func testATimerShorterThanTheFadeFadesOverAllOfIt() {
        var model = SleepTimerModel(settings: .init(fadeMilliseconds: 10_000))
        XCTAssertEqual(model.set(seconds: 4, now: 0), [.arm(nanoseconds: 0), .announceSet(seconds: 4, mode: "duration")])
        XCTAssertEqual(model.timerFired(now: 0), [.arm(nanoseconds: nil), .announceFired, .fadeOut(milliseconds: 4000)], "all of it")
    }

    func testCancelBeforeExpiryAndDuringFade() {
        var model = SleepTimerModel()
        _ = model.set(seconds: 10, now: 0)
        XCTAssertEqual(model.cancel(), [.arm(nanoseconds: nil), .announceCancelled])
        XCTAssertEqual(model.timerFired(now: 11 * second), [], "a cancelled timer never fires")
        XCTAssertEqual(model.cancel(), [])
        _ = model.set(seconds: 1, now: 0)
        _ = model.timerFired(now: second)
        XCTAssertEqual(model.cancel(), [.arm(nanoseconds: nil), .announceCancelled, .restoreVolume(1.0)])
        XCTAssertEqual(model.fadeFinished(), [])
    }

    func testAfterTrackStopsAtTheNextSequence() {
        var model = SleepTimerModel()
        _ = model.trackChanged(sequence: 1, heard: true)
        XCTAssertEqual(model.setAfterTrack(), [.arm(nanoseconds: nil), .announceSet(seconds: nil, mode: "after-track")])
        XCTAssertEqual(model.trackChanged(sequence: 1, heard: true), [], "the same track again (station name or artwork added) is no change")
        XCTAssertEqual(model.trackChanged(sequence: 1, heard: false), [], "an untitled event of the same track is no change")
        XCTAssertEqual(model.trackChanged(sequence: 2, heard: true), [.arm(nanoseconds: nil), .announceFired, .fadeOut(milliseconds: 10_000)])
    }

    func testAfterTrackSetBeforeAnyTitleWaitsForTheFirstToEnd() {
        var model = SleepTimerModel()
        _ = model.trackChanged(sequence: 0, heard: false)  // the host announces the station before any title
        _ = model.setAfterTrack()
        XCTAssertEqual(model.trackChanged(sequence: 1, heard: true), [])
        XCTAssertEqual(model.trackChanged(sequence: 2, heard: true).contains(.announceFired), true)
    }

    func testPresetsCycleAndWrapToOff() {
        var model = SleepTimerModel()
        var minutes: [Int?] = []
        for _ in 0..<7 {
            _ = model.cycle(now: 0)
            minutes.append(model.remainingSeconds(now: 0).map { $0 / 60 })
        }
        XCTAssertEqual(minutes, [5, 10, 15, 30, 45, 60, nil])
    }
}
