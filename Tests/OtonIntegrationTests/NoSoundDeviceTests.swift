import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Without a sound device oton says so once, with the fix, instead of showing "playing" in silence.
final class NoSoundDeviceTests: XCTestCase {
    func testPlayingWithoutASoundDeviceSaysSoOnceWithTheFix() throws {
        guard !FileManager.default.fileExists(atPath: "/dev/snd") else { throw XCTSkip("this machine has sound devices") }
        let directory = try TemporaryDirectory(self)
        let audio = directory.file("tone.ogg")
        XCTAssertEqual(
            try runProcess(
                "/usr/bin/env",
                [
                    "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=40", "!", "audioconvert", "!",
                    "vorbisenc", "!", "oggmux", "!", "filesink", "location=\(audio)",
                ]
            ).status, 0)
        let config = try directory.write("plugins.json", #"{"stations": [], "plugins": []}"#)
        // A runtime directory of our own: no PulseAudio or PipeWire socket can be found in it.
        let environment = ProcessInfo.processInfo.environment.merging(["XDG_RUNTIME_DIR": directory.path, "PULSE_SERVER": "unix:/nonexistent"]) { $1 }
        let result = try runProcess(TestPaths.oton, ["play", audio, "--no-tui", "--config", config], environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        let warnings = result.stderr.components(separatedBy: "no sound device could be opened").count - 1
        XCTAssertEqual(warnings, 1, "said once: \(result.stderr)")
        XCTAssertTrue(result.stderr.contains("--headless") && result.stderr.contains("PulseAudio"), result.stderr)
        XCTAssertFalse(result.stderr.contains("AL lib"), "OpenAL is not tried behind oton's back, so it writes nothing: \(result.stderr)")

        let headless = try runProcess(TestPaths.oton, ["play", audio, "--headless", "--no-tui", "--config", config], environment: environment)
        XCTAssertFalse(headless.stderr.contains("no sound device"), "headless means no device is wanted: \(headless.stderr)")

        let bogus = try runProcess(TestPaths.oton, ["play", audio, "--no-tui", "--audio-sink", "no-such-sink", "--config", config], environment: environment)
        XCTAssertEqual(bogus.status, 2)
        XCTAssertTrue(bogus.stderr.contains("--audio-sink no-such-sink: no such GStreamer element"), bogus.stderr)
    }
}

/// `--audio-sink fakesink` (a sink that does not keep time by itself) flipped between buffering and
/// playing four times a second (issue 39 §4): a sink the listener names runs in real time.
final class NamedAudioSinkTests: XCTestCase {
    func testAFakeSinkNamedWithAudioSinkPlaysInRealTimeWithoutBufferingFlips() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let plugins = #"{"stations": [{"name": "Test FM", "url": "\#(server.url(mount: "/live.mp3"))"}], "plugins": []}"#
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--no-tui", "--audio-sink", "fakesink"], plugins: plugins)
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(events.waitForEvent("state") { $0["state"] == "playing" }, "playing")
        // Six seconds of playing: no flips (the old ones came four times a second: about 50 changes in six
        // seconds). A loaded machine may starve the test's encoder: a stretch of buffering (a state event per
        // percent) and back is the stream's own gap, not a flip; two such were seen with ten tests at once.
        events.setTimeout(seconds: 1)
        var states: [String] = []
        let end = Date().addingTimeInterval(6)
        while Date() < end {
            if let event = events.nextEvent(), event.kind == "state" { states.append(event.fields["state"] ?? "?") }
        }
        let changes = states.enumerated().filter { $0.offset == 0 || states[$0.offset - 1] != $0.element }.map(\.element)
        XCTAssertLessThanOrEqual(changes.count, 6, "state changes while playing into a fakesink: \(states)")
        try await pollUntilTrue(timeout: 30, interval: 0.5, "playing again") { try oton.ctl(["status"]).stdout.hasPrefix("playing") }
    }
}
