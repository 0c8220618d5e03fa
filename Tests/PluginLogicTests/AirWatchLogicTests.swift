import FileSinkLogic
import XCTest

/// The air watch's judging on a made-up clock: dead air after the silence limit (once, and its end),
/// a title stall (once per title), a format change held for 50 frames (a VBR stream's frames are
/// not one), when the level is sampled, and the config keys.
final class AirWatchLogicTests: XCTestCase {
    private let second: Int64 = 1_000_000_000

    private func watch(silenceAfter: Int64 = 30, stall: Int64? = nil) -> AirWatch {
        var settings = AirWatch.Settings()
        settings.silenceAfterNanoseconds = silenceAfter * second
        settings.titleStallAfterNanoseconds = stall.map { $0 * second }
        return AirWatch(settings: settings)
    }

    func testSilenceLongerThanTheLimitIsDeadAirOnceThenItsEnd() {
        var air = watch(silenceAfter: 30)
        XCTAssertEqual(air.sampled(levelDBFS: -20, at: 0), [])
        XCTAssertEqual(air.sampled(levelDBFS: -60, at: 10 * second), [], "silent, not yet for long")
        XCTAssertEqual(air.sampled(levelDBFS: -.infinity, at: 30 * second), [])
        XCTAssertEqual(air.report(at: 35 * second).silenceSeconds, 25)
        XCTAssertEqual(air.sampled(levelDBFS: -70, at: 40 * second), [.deadAir(seconds: 30, levelDBFS: -70)])
        XCTAssertEqual(air.sampled(levelDBFS: -70, at: 50 * second), [], "said once")
        XCTAssertEqual(air.sampled(levelDBFS: -45, at: 60 * second), [.deadAirOver(seconds: 50, levelDBFS: -45)], "-45 is above -50")
        XCTAssertEqual(air.report(at: 61 * second), AirWatch.Report(levelDBFS: -45, silenceSeconds: 0, titleAgeSeconds: nil))
        // A short silence is no dead air, and its end is no alert.
        XCTAssertEqual(air.sampled(levelDBFS: -80, at: 70 * second), [])
        XCTAssertEqual(air.sampled(levelDBFS: -10, at: 80 * second), [])
        XCTAssertEqual(AirWatch.Alert.deadAir(seconds: 30, levelDBFS: -.infinity).details, "silent for 30.0 s (level -inf dBFS)")
        XCTAssertEqual(AirWatch.Alert.deadAir(seconds: 1, levelDBFS: 0).kind, "dead-air")
    }

    func testTheSameTitleTooLongStallsOncePerTitle() {
        var air = watch(stall: 600)
        XCTAssertEqual(air.check(at: 0), [], "no title yet")
        air.title("A - One", at: 0)
        XCTAssertEqual(air.check(at: 599 * second), [])
        XCTAssertEqual(air.check(at: 600 * second), [.titleStall(title: "A - One", seconds: 600)])
        XCTAssertEqual(air.check(at: 900 * second), [], "said once")
        XCTAssertEqual(air.report(at: 900 * second).titleAgeSeconds, 900)
        air.title("A - One", at: 901 * second)
        XCTAssertEqual(air.report(at: 902 * second).titleAgeSeconds, 902, "the same title again is no new title")
        air.title("B - Two", at: 1000 * second)
        XCTAssertEqual(air.check(at: 1599 * second), [])
        XCTAssertEqual(air.check(at: 1600 * second).map(\.kind), ["title-stall"])
        var unwatched = watch()
        unwatched.title("A", at: 0)
        XCTAssertEqual(unwatched.check(at: 100_000 * second), [], "no limit, no stall")
    }

    func testAFormatChangeCountsWhenItHoldsForFiftyFrames() {
        var air = watch()
        XCTAssertEqual(air.frame(format: "MPEG-1 layer III, 44100 Hz, 128 kbps"), [])
        // VBR: the bitrate changes from frame to frame; never 50 in a row.
        for index in 0..<500 {
            XCTAssertEqual(air.frame(format: "MPEG-1 layer III, 44100 Hz, \([128, 160, 192][index % 3]) kbps"), [])
        }
        var alerts: [AirWatch.Alert] = []
        for _ in 0..<AirWatch.framesToConfirm { alerts += air.frame(format: "MPEG-1 layer III, 48000 Hz, 64 kbps") }
        XCTAssertEqual(alerts, [.formatChanged(from: "MPEG-1 layer III, 44100 Hz, 128 kbps", to: "MPEG-1 layer III, 48000 Hz, 64 kbps")])
        XCTAssertEqual(air.frame(format: "MPEG-1 layer III, 48000 Hz, 64 kbps"), [])
    }

    func testTheLevelIsSampledEveryTenSecondsOrAThirdOfTheSilenceLimit() {
        var air = watch(silenceAfter: 30)
        XCTAssertEqual(air.settings.sampleEveryNanoseconds, 10 * second)
        XCTAssertTrue(air.levelSampleDue(at: 0), "at once")
        XCTAssertFalse(air.levelSampleDue(at: 9 * second))
        XCTAssertTrue(air.levelSampleDue(at: 10 * second))
        XCTAssertFalse(air.levelSampleDue(at: 11 * second))
        XCTAssertEqual(watch(silenceAfter: 6).settings.sampleEveryNanoseconds, 2 * second)
        XCTAssertEqual(watch(silenceAfter: 1).settings.sampleEveryNanoseconds, second)
        XCTAssertEqual(AirWatch.dBFS(sumOfSquares: 0, count: 100), -.infinity)
        XCTAssertEqual(AirWatch.dBFS(sumOfSquares: 50, count: 100), -3.0103, accuracy: 0.001, "a full-scale sine: RMS 0.707")
    }

    func testTheAirWatchKeys() throws {
        let settings = try XCTUnwrap(
            FileSinkSettings.parse(
                #"{"directory": "/a", "air_watch": true, "silence_threshold": -40, "silence_after": 12, "title_stall_after": 900}"#
            ).airWatch)
        XCTAssertEqual(settings.silenceThresholdDBFS, -40)
        XCTAssertEqual(settings.silenceAfterNanoseconds, 12 * second)
        XCTAssertEqual(settings.titleStallAfterNanoseconds, 900 * second)
        XCTAssertNil(try FileSinkSettings.parse(#"{"directory": "/a"}"#).airWatch)
        for (json, message) in [
            (#"{"directory": "/a", "silence_after": 12}"#, "config.silence_after applies to the air watch only"),
            (#"{"directory": "/a", "air_watch": true, "silence_threshold": 3}"#, "config.silence_threshold must be a level in dBFS"),
        ] {
            XCTAssertThrowsError(try FileSinkSettings.parse(json), json) { error in
                XCTAssertTrue("\(error)".contains(message), "\(error)")
            }
        }
    }
}
