import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// Timeshift on a real pipeline (docs/timeshift.md): a real Icecast mount of a tone whose frequency
/// steps each second, a headless player with a ring, the PCM tap counting what is heard.
final class TimeshiftPlaybackTests: XCTestCase {
    /// One MP3 frame is 1,152 samples: a step more than 10 ms (441 samples) off means samples were lost or doubled.
    static let tolerance = 441

    func testPauseKeepsReceivingAndResumesWithNoSampleLostOrDoubledAndTheTitleFollowsTheAudio() async throws {
        let station = try await TimeshiftStation.start(self)
        let harness = PlayerHarness(url: station.url, timeshift: TimeshiftSettings(seconds: 600))
        let media = MediaCollector(bus: harness.bus, taps: OTON_TAP_PCM)
        harness.start()
        defer { harness.stop() }
        XCTAssertNotNil(harness.waitForTrack(title: "Song One", timeout: 60), "the first title is heard")
        _ = try XCTUnwrap(media.waitForBytes(tap: OTON_TAP_PCM, count: 44100 * 4 * 6, timeout: 60), "6 s heard")

        harness.player.submit(.pause, from: "test")
        XCTAssertNotNil(harness.waitForState("paused", timeout: 10))
        let pausedAt = Clock.monotonicNanoseconds()
        let heardBeforePause = media.waitForBytes(tap: OTON_TAP_PCM, count: 0)?.count ?? 0
        // Five seconds into the pause the station names a new song: it is received, not heard.
        try await Task.sleep(for: .seconds(5))
        try await station.setTitle("Artist B - Song Two")
        try await Task.sleep(for: .seconds(15))
        XCTAssertNil(harness.trackEvents.first { $0.field("title") == "Song Two" }, "a title received during the pause is not announced")
        let heardDuringPause = (media.waitForBytes(tap: OTON_TAP_PCM, count: 0)?.count ?? 0) - heardBeforePause
        XCTAssertLessThan(heardDuringPause, 44100 * 4 * 2, "nothing plays while paused (at most the buffers in flight)")
        let snapshot = harness.player.snapshot
        XCTAssertGreaterThan(snapshot.receivedBytes, 0)

        let resumedAt = Clock.monotonicNanoseconds()
        harness.player.submit(.play, from: "test")
        XCTAssertNotNil(harness.waitForState("playing", timeout: 10, after: resumedAt))
        // Song Two began ~5 s into the pause: it is announced when its audio plays, ~5 s after the resume.
        let songTwo = try XCTUnwrap(harness.waitForTrack(title: "Song Two", timeout: 40, after: resumedAt), "Song Two is announced once heard")
        let delay = Double(songTwo.monotonicNanoseconds - resumedAt) / 1e9
        print("[measure] paused \(Double(resumedAt - pausedAt) / 1e9) s; the title changed 5 s into the pause was announced \(delay) s after the resume")
        XCTAssertGreaterThan(delay, 3, "not at the resume: when its audio plays")
        let behind = try XCTUnwrap(harness.player.snapshot.timeshift, "the connection has timeshift").behindLive
        XCTAssertEqual(Double(behind) / 1e9, 20, accuracy: 5, "about the pause's length behind live")

        // Ten more seconds heard, then every whole step — the one across the pause too — lasts 44,100 samples.
        let total = heardBeforePause + heardDuringPause + 44100 * 4 * 10
        let pcm = try XCTUnwrap(media.waitForBytes(tap: OTON_TAP_PCM, count: total, timeout: 60))
        let lengths = TimeshiftStation.stepLengths(in: pcm)
        print("[measure] \(lengths.count) steps heard; lengths off 44100 by at most \(lengths.map { abs($0 - 44100) }.max() ?? -1) samples")
        XCTAssertGreaterThanOrEqual(lengths.count, 14, "steps heard before and after the pause: \(lengths)")
        for (index, length) in lengths.enumerated() {
            XCTAssertEqual(length, 44100, accuracy: Self.tolerance, "step \(index) of \(lengths)")
        }
        XCTAssertEqual(media.drops, 0)
    }

    func testSeekBackThirtySecondsThenLiveAndTheTitlesFollow() async throws {
        let station = try await TimeshiftStation.start(self)
        let harness = PlayerHarness(url: station.url, timeshift: TimeshiftSettings(seconds: 600))
        harness.start()
        defer { harness.stop() }
        XCTAssertNotNil(harness.waitForTrack(title: "Song One", timeout: 60))
        try await Task.sleep(for: .seconds(20))
        try await station.setTitle("Artist B - Song Two")
        XCTAssertNotNil(harness.waitForTrack(title: "Song Two", timeout: 30))
        try await Task.sleep(for: .seconds(15))

        // Back 30 s: before the title changed, so Song One is heard (and announced) again.
        let back = Clock.monotonicNanoseconds()
        XCTAssertEqual(harness.player.seek(.by(-30_000_000_000)), .moved)
        XCTAssertNotNil(harness.waitForTrack(title: "Song One", timeout: 20, after: back), "the title heard there is announced")
        let behind = try XCTUnwrap(harness.player.snapshot.timeshift).behindLive
        XCTAssertEqual(Double(behind) / 1e9, 30, accuracy: 5)
        // The title comes with the seek's first sound (its first mark), while the new playback's buffer
        // may still be filling: playing follows.
        let settled = Date().addingTimeInterval(10)
        while Date() < settled, harness.player.state != .playing { usleep(50_000) }
        XCTAssertEqual(harness.player.state, .playing)
        // ~15 s later the change to Song Two is heard again.
        XCTAssertNotNil(harness.waitForTrack(title: "Song Two", timeout: 40, after: back), "the change is announced when heard again")

        // Further back than the ring holds: clamped, said so; the ring's start was Song One.
        let clamped = Clock.monotonicNanoseconds()
        guard case .clampedToStart = try XCTUnwrap(harness.player.seek(.by(-3_600_000_000_000))) else {
            return XCTFail("a seek before the ring's start is clamped")
        }
        XCTAssertNotNil(harness.waitForTrack(title: "Song One", timeout: 20, after: clamped), "the ring's start is heard")
        // Live again.
        let live = Clock.monotonicNanoseconds()
        XCTAssertEqual(harness.player.seek(.behindLive(0)), .live)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, harness.player.snapshot.timeshift?.behindLive != 0 { usleep(200_000) }
        XCTAssertEqual(harness.player.snapshot.timeshift?.behindLive, 0, "live")
        XCTAssertNotNil(harness.waitForTrack(title: "Song Two", timeout: 20, after: live), "live plays the live title")
    }
}
