import Foundation
import OtonTestSupport
import XCTest

/// Without a sound device oton says so once, with the fix, instead of showing "playing" in silence.
final class NoSoundDeviceTests: XCTestCase {
    func testPlayingWithoutASoundDeviceSaysSoOnceWithTheFix() throws {
        guard !FileManager.default.fileExists(atPath: "/dev/snd") else { throw XCTSkip("this machine has sound devices") }
        let directory = try TemporaryDirectory(self)
        let audio = directory.file("tone.ogg")
        XCTAssertEqual(try runProcess("/usr/bin/env", ["gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=40", "!", "audioconvert", "!",
                                                       "vorbisenc", "!", "oggmux", "!", "filesink", "location=\(audio)"]).status, 0)
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
