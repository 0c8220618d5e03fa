import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// The Player's logic on fake engines and virtual time: reconnects, switches, the stall watchdog,
/// the engine fallback, the alarm tone and fades, each in well under a second. The real engines
/// meet real servers in OtonIntegrationTests.
final class PlayerReconnectLogicTests: XCTestCase {
    /// A listener's player (no `--retries`) never gives up by itself (issue 54 §1): a mount that answers
    /// 404 while its source is away is tried every second or two until it is back, then plays.
    func testAListenersPlayerWaitsForAVanishedStationAndPlaysWhenItIsBack() {
        let harness = PlayerLogicHarness(options: Player.Options(headless: false))
        harness.start()
        harness.play()
        harness.fail(.streamUnavailable(reason: .serverEnded))
        for attempt in 1...120 {
            XCTAssertEqual(harness.stateName, "error")
            XCTAssertNil(harness.state?.field(OTON_FIELD_RETRY_MAX), "no limit")
            let delay = Int(harness.state?.field(OTON_FIELD_RETRY_IN_MS) ?? "") ?? .max
            XCTAssertLessThanOrEqual(delay, 2000, "attempt \(attempt) comes within 2 s")
            harness.advance(.milliseconds(delay))
            XCTAssertEqual(harness.stateName, "connecting")
            harness.fail(.streamUnavailable(reason: .notFound))
        }
        XCTAssertNil(harness.outcome, "still trying after four minutes of 404")
        let tries = harness.engines.engines.count
        harness.advance(.seconds(2))
        XCTAssertEqual(harness.engines.engines.count, tries + 1)
        harness.play()
        XCTAssertEqual(harness.stateName, "playing", "the station is back")
    }

    func testReconnectsAfterTwoFourAndSixSecondsThenGivesUpWithTheCount() {
        // A script's limit (`--retries 3`): as many attempts, 2, 4 and 6 s apart, then oton gives up.
        let harness = PlayerLogicHarness(options: Player.Options(headless: false, reconnect: .limited(3)))
        harness.start()
        XCTAssertEqual(harness.stateName, "connecting")
        XCTAssertEqual(harness.engines.engines.count, 1)
        for (attempt, seconds) in [(1, 2), (2, 4), (3, 6)] {
            harness.fail()
            XCTAssertEqual(harness.stateName, "error")
            XCTAssertEqual(harness.state?.field(OTON_FIELD_RETRY_ATTEMPT), String(attempt))
            XCTAssertEqual(harness.state?.field(OTON_FIELD_RETRY_IN_MS), String(seconds * 1000))
            XCTAssertEqual(harness.state?.field(OTON_FIELD_RETRY_MAX), "3")
            XCTAssertTrue(harness.state?.field(OTON_FIELD_ERROR_SUGGESTION)?.contains("tries again on its own") == true, "a reconnect is to come")
            XCTAssertTrue(harness.engines.last!.isStopped, "a failed connection is let go of")
            harness.advance(.seconds(seconds) - .milliseconds(100))
            XCTAssertEqual(harness.engines.engines.count, attempt, "no reconnect before its delay")
            harness.advance(.milliseconds(100))
            XCTAssertEqual(harness.engines.engines.count, attempt + 1, "attempt \(attempt) after \(seconds) s")
            XCTAssertEqual(harness.stateName, "connecting")
        }
        harness.fail()
        XCTAssertEqual(harness.outcome, .gaveUp(.networkUnavailable, reconnects: 3))
        XCTAssertEqual(harness.stateName, "error")
        XCTAssertEqual(
            harness.state?.field(OTON_FIELD_ERROR_SUGGESTION), "Check your internet connection.",
            "after giving up the suggestion promises no retry (issue 39)")
        XCTAssertNil(harness.state?.field(OTON_FIELD_RETRY_ATTEMPT), "gave up: no attempt under way")
        harness.advance(.seconds(60))
        XCTAssertEqual(harness.engines.engines.count, 4, "no attempt after giving up")
    }

    func testPlayingAgainStartsTheScheduleAfreshAndHeadlessNeverGivesUp() {
        let harness = PlayerLogicHarness()  // headless: unlimited, at most every 30 s
        harness.start()
        harness.fail()
        harness.advance(.seconds(2))
        harness.play()
        XCTAssertEqual(harness.stateName, "playing")
        harness.fail()
        XCTAssertEqual(harness.state?.field(OTON_FIELD_RETRY_IN_MS), "500", "the first attempt again after playing (headless: after 0.5 s)")
        XCTAssertNil(harness.state?.field(OTON_FIELD_RETRY_MAX), "unlimited")
        for _ in 0..<25 {  // 0.5 s, 1 s × 9, then 2 s, 4 s … : 30 s from the 25th
            harness.advance(.seconds(30))
            harness.fail()
        }
        XCTAssertNil(harness.outcome)
        XCTAssertEqual(harness.state?.field(OTON_FIELD_RETRY_IN_MS), "30000", "the delay stops growing at 30 s")
        XCTAssertEqual(harness.engines.engines.count, 27, "the first, one after the first failure, one per 30 s")
    }

    func testAFailureNotWorthARetryEndsAtOnce() {
        let harness = PlayerLogicHarness(options: Player.Options(headless: false))
        harness.start()
        harness.fail(.streamUnavailable(reason: .httpStatus(403)))
        XCTAssertEqual(harness.outcome, .gaveUp(.streamUnavailable(reason: .httpStatus(403)), reconnects: 0))
        harness.advance(.seconds(30))
        XCTAssertEqual(harness.engines.engines.count, 1)
    }

    func testAPipelineThatCannotBeBuiltFailsLikeAConnection() {
        let harness = PlayerLogicHarness(options: Player.Options(headless: false))
        harness.engines.failBuilding(with: .missing("hlsdemux", package: "gstreamer1.0-plugins-bad"))
        harness.start()
        XCTAssertEqual(
            harness.outcome, .gaveUp(.streamUnavailable(reason: .playlist(.hls)), reconnects: 0),
            "a missing HLS demuxer is the playlist error that names the package")
    }
}

final class PlayerSwitchLogicTests: XCTestCase {
    func testASwitchWhileConnectingDropsTheOldConnectionAndIgnoresItsLateReports() {
        let harness = PlayerLogicHarness()
        harness.start()
        let first = harness.engines.last!
        harness.submit(.switchStation(PlayerLogicHarness.stationB))
        XCTAssertTrue(first.isStopped)
        XCTAssertEqual(harness.engines.engines.count, 2)
        XCTAssertEqual(harness.engines.last?.description.url, PlayerLogicHarness.stationB.url)
        first.flows()
        harness.report(.started, from: first)
        XCTAssertEqual(harness.stateName, "connecting", "a report of the dropped connection changes nothing")
        harness.play()
        XCTAssertEqual(harness.stateName, "playing")
        XCTAssertEqual(harness.bus.current(OTON_EVENT_TRACK)?.event.field(OTON_FIELD_STATION), "Station B")
        XCTAssertEqual(harness.player.snapshot.station, PlayerLogicHarness.stationB)
    }

    func testASwitchDuringTheReconnectWaitCancelsTheRetry() {
        let harness = PlayerLogicHarness()
        harness.start()
        harness.fail()
        harness.submit(.stepStation(1))
        XCTAssertEqual(harness.engines.engines.count, 2, "the next station connects at once")
        XCTAssertEqual(harness.engines.last?.description.url, PlayerLogicHarness.stationB.url)
        harness.advance(.seconds(10))
        XCTAssertEqual(harness.engines.engines.count, 2, "the old station's retry never fires")
    }

    func testGivingUpAfterASwitchStaysOnTheErrorInsteadOfEnding() {
        let harness = PlayerLogicHarness(options: Player.Options(headless: false))
        harness.start()
        harness.submit(.switchStationNamed("Station B"))
        harness.fail(.streamUnavailable(reason: .httpStatus(403)))
        XCTAssertNil(harness.outcome, "the previous station is one switch away")
        XCTAssertEqual(harness.stateName, "error")
    }
}

final class PlayerWatchdogLogicTests: XCTestCase {
    func testPlayingWithoutAudioForTenSecondsIsAStallAndReconnects() {
        let harness = PlayerLogicHarness()
        harness.start()
        harness.play()
        harness.advance(.seconds(9))
        XCTAssertEqual(harness.stateName, "playing")
        // A headless player retries 0.5 s after the error: look for it in small steps.
        for _ in 0..<40 where harness.stateName != "error" { harness.advance(.milliseconds(100)) }
        XCTAssertEqual(harness.stateName, "error")
        XCTAssertEqual(harness.state?.field(OTON_FIELD_ERROR_KIND), PlaybackErrorKind.stalled(seconds: 10).code)
        XCTAssertTrue(harness.engines.engines[0].isStopped)
        harness.advance(.seconds(1))
        XCTAssertEqual(harness.engines.engines.count, 2, "a stall reconnects like any failure")
    }

    func testAudioThatKeepsFlowingIsNeverAStall() {
        let harness = PlayerLogicHarness()
        harness.start()
        harness.play()
        for _ in 0..<60 {
            harness.engines.last!.flows()
            harness.advance(.seconds(1))
        }
        XCTAssertEqual(harness.stateName, "playing")
        XCTAssertEqual(harness.engines.engines.count, 1)
    }

    func testBufferingLongerThanItsTimeoutIsAFailure() {
        var options = Player.Options(headless: true)
        options.bufferingTimeout = .seconds(20)
        let harness = PlayerLogicHarness(options: options)
        harness.start()
        harness.play()
        harness.report(.buffering(percent: 10))
        XCTAssertEqual(harness.stateName, "buffering")
        XCTAssertEqual(harness.engines.last?.playingAsked, [false], "the pipeline pauses to refill")
        harness.advance(.seconds(19))
        XCTAssertEqual(harness.stateName, "buffering")
        for _ in 0..<30 where harness.state?.field(OTON_FIELD_ERROR_KIND) == nil { harness.advance(.milliseconds(100)) }
        XCTAssertEqual(harness.state?.field(OTON_FIELD_ERROR_KIND), PlaybackErrorKind.bufferingTimeout.code)
    }
}

final class PlayerEngineFallbackLogicTests: XCTestCase {
    private func recorderOptions(_ engine: EngineChoice) -> Player.Options {
        var options = Player.Options(headless: true)
        options.decodes = false
        options.engine = engine
        return options
    }

    func testGStreamerTakesOverWhenTheLightEngineCannotFrameTheStreamAndKeepsIt() {
        let harness = PlayerLogicHarness(options: recorderOptions(.auto))
        harness.start()
        XCTAssertEqual(harness.engines.last?.kind, .light, "a recorder of an http stream starts on the light engine")
        harness.report(.needsPipeline(reason: "FLAC"))
        XCTAssertEqual(harness.engines.engines.map(\.kind), [.light, .gstreamer])
        XCTAssertTrue(harness.engines.engines[0].isStopped)
        XCTAssertEqual(harness.engines.last?.description.url, PlayerLogicHarness.stationA.url)
        harness.fail()
        harness.advance(.seconds(2))
        XCTAssertEqual(harness.engines.last?.kind, .gstreamer, "the station's reconnects stay on GStreamer")
    }

    func testWithEngineLightTheStreamIsRefusedInstead() {
        let harness = PlayerLogicHarness(options: recorderOptions(.light))
        harness.start()
        harness.report(.needsPipeline(reason: "FLAC"))
        XCTAssertEqual(harness.engines.engines.map(\.kind), [.light])
        XCTAssertEqual(harness.outcome, .gaveUp(.streamUnavailable(reason: .unsupportedFormat), reconnects: 0))
    }
}

final class PlayerWakeUpLogicTests: XCTestCase {
    private func alarm(fadeMilliseconds: Int = 0) -> PlayerLogicHarness {
        var options = Player.Options(headless: false, volume: 0.8)
        options.wakeUp = WakeUp(fadeMilliseconds: fadeMilliseconds, toneAfter: WakeUp.alarmToneAfter)
        return PlayerLogicHarness(options: options)
    }

    func testAnAlarmWhoseStationStaysSilentForTwentySecondsPlaysTheTone() {
        let harness = alarm()
        harness.start()
        harness.advance(.seconds(19))
        XCTAssertEqual(harness.engines.engines.count, 1)
        harness.advance(.seconds(1))
        XCTAssertEqual(harness.engines.engines.count, 2)
        XCTAssertEqual(harness.engines.last?.description.url, PipelineDescription.toneURL)
        XCTAssertTrue(harness.player.snapshot.station.name.contains("Station A"), "the tone says whose alarm it stands in for")
        harness.play()
        XCTAssertEqual(harness.stateName, "playing")
        XCTAssertEqual(harness.volume, 0.8, accuracy: 0.01, "the tone starts at the alarm's volume")
        harness.advance(.seconds(30))
        XCTAssertEqual(harness.volume, 0.9, accuracy: 0.02, "and rises while nobody stops it")
        harness.advance(.seconds(30))
        XCTAssertEqual(harness.volume, 1.0, accuracy: 0.001, "to full volume in a minute")
    }

    func testAStationThatPlaysInTimeKeepsTheAlarm() {
        let harness = alarm()
        harness.start()
        harness.advance(.seconds(5))
        harness.play()
        for _ in 0..<30 {
            harness.engines.last!.flows()
            harness.advance(.seconds(1))
        }
        XCTAssertEqual(harness.engines.engines.count, 1)
    }

    func testAnAlarmWhoseStationFailsPlaysTheToneAtOnceAndASnoozeRingGoesBack() {
        let harness = alarm()
        harness.start()
        harness.fail(.streamUnavailable(reason: .httpStatus(404)))
        XCTAssertNil(harness.outcome, "an alarm does not end on a failure")
        XCTAssertEqual(harness.engines.last?.description.url, PipelineDescription.toneURL)
        harness.play()
        harness.submit(.wakeUp(WakeUp(fadeMilliseconds: 0, toneAfter: WakeUp.alarmToneAfter), volume: 0.8))
        XCTAssertEqual(harness.engines.last?.description.url, PlayerLogicHarness.stationA.url, "the ring after a snooze tries the station again")
    }

    func testAFadeInStartsFromSilenceWhenAudioPlays() {
        let harness = alarm(fadeMilliseconds: 2000)
        harness.start()
        XCTAssertEqual(harness.volume, 0)
        harness.advance(.seconds(3))
        XCTAssertEqual(harness.volume, 0, "no rise before the station plays")
        harness.play()
        harness.advance(.seconds(1))
        XCTAssertEqual(harness.volume, 0.4, accuracy: 0.03)
        harness.advance(.seconds(1))
        XCTAssertEqual(harness.volume, 0.8, accuracy: 0.001)
    }
}

final class PlayerFadeLogicTests: XCTestCase {
    func testTheSleepTimersFadeStepsTheVolumeToItsTargetAndTheEngineFollows() {
        let harness = PlayerLogicHarness()
        harness.start()
        harness.play()
        harness.submit(.fadeVolume(to: 0, milliseconds: 2000))
        harness.advance(.seconds(1))
        XCTAssertEqual(harness.volume, 0.5, accuracy: 0.03)
        harness.advance(.seconds(1))
        XCTAssertEqual(harness.volume, 0)
        XCTAssertEqual(harness.engines.last?.volumesSet.last, 0)
        XCTAssertEqual(harness.engines.last?.volumesSet.count, 40, "20 steps a second")
        XCTAssertEqual(harness.bus.current(OTON_EVENT_VOLUME)?.event.field(OTON_FIELD_VOLUME), "0.000")
    }

    func testPauseDuringAFadeEndsItAtItsTarget() {
        let harness = PlayerLogicHarness()
        harness.start()
        harness.play()
        harness.submit(.fadeVolume(to: 0.2, milliseconds: 10000))
        harness.advance(.seconds(1))
        harness.submit(.pause)
        XCTAssertEqual(harness.volume, 0.2)
        XCTAssertEqual(harness.stateName, "paused")
        harness.advance(.seconds(20))
        XCTAssertEqual(harness.volume, 0.2, "no step after the fade ended")
    }
}
