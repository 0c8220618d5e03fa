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

    /// Native FLAC (`audio/flac`): one stream header at the start, then frames; a seek gets the header first.
    func testASeekBackInNativeFLACPlaysAtOnce() async throws {
        let server = try HostileServer(self, maxSeconds: 300)
        let directory = try TemporaryDirectory(self)
        let file = directory.file("tone.flac")
        let made = try runProcess(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "audiotestsrc", "num-buffers=2600", "samplesperbuffer=1024", "wave=sine",
                "volume=0.1", "!", "audio/x-raw,rate=44100,channels=2", "!", "audioconvert", "!",
                "flacenc", "!", "filesink", "location=\(file)",
            ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let size = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        let path = file.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? file
        // Sent at the rate that makes the file last its 60 s, as a station would.
        let url = server.url("/file?path=\(path)&type=audio%2Fflac&rate=\(max(size / 60, 1))")
        try await seekBackPlays(url: url, rate: 44100, name: "native FLAC")
    }

    private func seekBackPlays(format: StreamFormat, mount: String) async throws {
        let server = try await IcecastServer.start()
        addTeardownBlock { server.stop() }
        _ = try await server.startSource(mount: mount, format: format, initialTitle: "", timeout: 40)
        try await seekBackPlays(url: server.url(mount: mount).absoluteString, rate: format == .opus ? 48000 : 44100, name: "\(format)")
    }

    private func seekBackPlays(url: String, rate: Int, name format: String) async throws {
        let harness = PlayerHarness(url: url, timeshift: TimeshiftSettings(seconds: 600))
        let media = MediaCollector(bus: harness.bus, taps: OTON_TAP_PCM)
        harness.start()
        defer { harness.stop() }
        XCTAssertNotNil(harness.waitForState("playing", timeout: 60), "it plays")
        // 20 s heard (16-bit stereo at the stream's rate).
        _ = try XCTUnwrap(media.waitForBytes(tap: OTON_TAP_PCM, count: rate * 4 * 20, timeout: 90), "20 s heard")

        // Back 10 s: into the middle of the one chain, its headers 20 s behind.
        let heardBefore = media.waitForBytes(tap: OTON_TAP_PCM, count: 0)?.count ?? 0
        let back = Clock.monotonicNanoseconds()
        XCTAssertEqual(harness.player.seek(.by(-10_000_000_000)), .moved)
        // Five seconds of sound after the seek, well within the time a reconnect would take.
        let after = try XCTUnwrap(
            media.waitForBytes(tap: OTON_TAP_PCM, count: heardBefore + rate * 4 * 5, timeout: 30),
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
