import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// Timeshift on Ogg (docs/timeshift.md): a seek lands inside a chain whose headers lie behind it;
/// playback is sent the chain's headers first, so it plays from there at once (before, the decoder
/// heard nothing until the next chain). A real Icecast Ogg mount, a headless player, the PCM tap.
final class TimeshiftOggTests: XCTestCase {
    func testASeekBackInsideAVorbisChainPlaysAtOnce() async throws {
        try await seekBackPlays(format: .ogg, mount: "/ts.ogg")
    }

    func testASeekBackInsideAnOpusChainPlaysAtOnce() async throws {
        try await seekBackPlays(format: .opus, mount: "/ts.opus")
    }

    private func seekBackPlays(format: StreamFormat, mount: String) async throws {
        let server = try await IcecastServer.start()
        addTeardownBlock { server.stop() }
        _ = try await server.startSource(mount: mount, format: format, initialTitle: "", timeout: 40)
        let harness = PlayerHarness(url: server.url(mount: mount).absoluteString, timeshift: TimeshiftSettings(seconds: 600))
        let media = MediaCollector(bus: harness.bus, taps: OTON_TAP_PCM)
        harness.start()
        defer { harness.stop() }
        XCTAssertNotNil(harness.waitForState("playing", timeout: 60), "it plays")
        // 20 s heard (at 48 kHz for Opus, 44.1 kHz for Vorbis: 16-bit stereo).
        let rate = format == .opus ? 48000 : 44100
        _ = try XCTUnwrap(media.waitForBytes(tap: OTON_TAP_PCM, count: rate * 4 * 20, timeout: 90), "20 s heard")

        // Back 10 s: into the middle of the one chain, its headers 20 s behind.
        let heardBefore = media.waitForBytes(tap: OTON_TAP_PCM, count: 0)?.count ?? 0
        let back = Clock.monotonicNanoseconds()
        XCTAssertEqual(harness.player.seek(.by(-10_000_000_000)), .moved)
        // Five seconds of sound after the seek, well within the time a reconnect would take.
        let after = try XCTUnwrap(media.waitForBytes(tap: OTON_TAP_PCM, count: heardBefore + rate * 4 * 5, timeout: 30),
                                  "sound after the seek, from inside the chain")
        let waited = Double(Clock.monotonicNanoseconds() - back) / 1e9
        print("[measure] \(format): 5 s heard \(waited) s after a seek back 10 s into a chain (\(after.count - heardBefore) bytes)")
        XCTAssertEqual(harness.player.state, .playing)
        let behind = try XCTUnwrap(harness.player.snapshot.timeshift, "the connection has timeshift").behindLive
        XCTAssertEqual(Double(behind) / 1e9, 10, accuracy: 5, "about 10 s behind live: played from the ring, not reconnected at live")
        let troubled = harness.events.events.filter {
            $0.name == "state" && $0.monotonicNanoseconds >= back && ["connecting", "error"].contains($0.field("state") ?? "")
        }
        XCTAssertTrue(troubled.isEmpty, "no error and no reconnect after the seek: \(troubled)")
    }
}
