import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Issue 39: an alarm is never silent. An alarm whose station no longer resolves (renamed, removed,
/// another plugins.json) plays the built-in tone at once and says why; the tone, heard at a real
/// PulseAudio null sink, is beeps a person wakes to — hundreds of milliseconds long at a broadcast's
/// level, not 14 ms ticks at −21 dBFS.
final class AlarmToneHeardTests: XCTestCase {
    func testAnAlarmForAStationThatNoLongerResolvesRingsTheToneWithBeepsAtABroadcastsLevel() throws {
        try XCTSkipUnless(PulseAudioServer.isInstalled, "pulseaudio and pulseaudio-utils (scripts/bootstrap installs them)")
        let directory = try TemporaryDirectory(self)
        let pulse = try PulseAudioServer(directory: directory.file("pulse"))
        defer { pulse.stop() }
        let recording = directory.file("monitor.raw")
        try pulse.record(into: recording)
        let oton = try OtonProcess(
            self, arguments: ["play", "No Such FM", "--alarm", "--volume", "100", "--audio-sink", "pulsesink", "--no-tui"],
            plugins: #"{"stations": [{"name": "Oton FM", "url": "http://127.0.0.1:9/a.mp3"}], "plugins": []}"#,
            environment: ["PULSE_SERVER": pulse.environment["PULSE_SERVER"]])
        _ = try oton.connect(timeout: 30)
        let window = 0.05
        var levels: [Double] = []
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            levels = PulseAudioServer.levels(of: recording, windowSeconds: window)
            if let start = levels.firstIndex(where: { $0 > 0.05 }), levels.count - start >= Int(4 / window) { break }
            usleep(200_000)
        }
        let stderr = oton.directory.read("stderr.log")
        XCTAssertTrue(stderr.contains("alarm: no station named \"No Such FM\"") && stderr.contains("playing the alarm tone instead"), stderr)
        let start = try XCTUnwrap(levels.firstIndex { $0 > 0.05 }, "the tone was not heard: \(stderr)")
        let heard = Array(levels[start...].prefix(Int(4 / window)))
        let loudest = heard.max() ?? 0
        // A sine of 0.7 of full scale has an RMS of 0.49 (−6 dBFS); the old ticks measured 0.085 (−21 dBFS).
        XCTAssertGreaterThan(loudest, 0.35, "a beep at a broadcast's level: \(heard)")
        let on = heard.map { $0 > loudest / 2 }
        var longest = 0, run = 0
        for sounding in on {
            run = sounding ? run + 1 : 0
            longest = max(longest, run)
        }
        XCTAssertGreaterThanOrEqual(Double(longest) * window, 0.15, "beeps of a few hundred ms, not ticks: \(heard)")
        let share = Double(on.filter { $0 }.count) / Double(on.count)
        XCTAssertTrue((0.3...0.7).contains(share), "beeps with pauses between them (\(share) of the time sounding): \(heard)")
        XCTAssertTrue(oton.process.isRunning, "the alarm keeps ringing")
        print(
            "[measure] alarm tone at the sink: loudest 50 ms RMS \(String(format: "%.3f", loudest)) (\(String(format: "%.1f", 20 * log10(loudest))) dBFS), longest beep \(Double(longest) * window) s, sounding \(String(format: "%.0f", share * 100)) % of the time"
        )
    }
}
