import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// A plugin's filter (ABI 1.6) in the author's tools (issue 53 §2, §3): `oton plugins inspect` shows
/// it with its budget, and `oton plugins run --audio IN.wav --filtered OUT.wav` runs it over a WAV
/// file, says its time per buffer against the budget and writes what it made.
final class PluginFilterToolsTests: XCTestCase {
    private func halfGain(in directory: TemporaryDirectory) throws -> String {
        try CPluginBuilder.build(TestPaths.root + "/examples/c-half-gain/oton_half_gain.c", into: directory, name: "oton_half_gain")
    }

    func testInspectShowsTheFilterWithItsBudget() throws {
        let directory = try TemporaryDirectory(self)
        let library = try halfGain(in: directory)
        let text = try runProcess(TestPaths.oton, ["plugins", "inspect", library])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("callbacks:   filter\n"), text.stdout)
        XCTAssertTrue(
            text.stdout.contains(
                "filter:      in place on the sound heard, after the effects; budget half of each buffer's duration, at least 2 ms (11.61 ms for 1024 frames at 44.1 kHz)"
            ), text.stdout)
        let json = try runProcess(TestPaths.oton, ["plugins", "inspect", library, "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let filter = try JSONValue.parse(Data(json.stdout.utf8))["filter"]
        XCTAssertEqual(filter?["example_budget_ms"]?.numberValue ?? 0, 11.61, accuracy: 0.01, json.stdout)
        XCTAssertEqual(filter?["budget"]?.stringValue, "half of each buffer's duration, at least 2 ms", json.stdout)
        // A plugin without one says so.
        let meter = try CPluginBuilder.build(
            TestPaths.root + "/examples/c-level-meter/oton_level_meter.c", into: directory, name: "oton_level_meter", libraries: ["m"])
        let none = try runProcess(TestPaths.oton, ["plugins", "inspect", meter])
        XCTAssertTrue(none.stdout.contains("filter:      (none)\n"), none.stdout)
    }

    /// The example halves the level: the WAV it writes is 6.02 dB below the one it read.
    func testRunDrivesTheFilterOverAWAVFileAndWritesWhatItMade() throws {
        let directory = try TemporaryDirectory(self)
        let library = try halfGain(in: directory)
        let input = directory.file("tone.wav")
        let output = directory.file("half.wav")
        // 2 s of a 440 Hz sine at half scale, stereo 44.1 kHz.
        let made = try runProcess(
            "/usr/bin/env",
            [
                "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=88", "samplesperbuffer=1000", "freq=440", "volume=0.5",
                "!", "audio/x-raw,format=S16LE,rate=44100,channels=2", "!", "wavenc", "!", "filesink", "location=\(input)",
            ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let run = try runProcess(TestPaths.oton, ["plugins", "run", library, "--audio", input, "--filtered", output])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        // 88,000 frames: 86 buffers of 1024 frames; the budget of one is 11.61 ms at 44.1 kHz.
        XCTAssertTrue(run.stderr.contains("filter: 86 buffers of 1024 frames; time per buffer: median "), run.stderr)
        XCTAssertTrue(run.stderr.contains(" ms; budget 11.610 ms (half of each buffer's duration, at least 2 ms)"), run.stderr)
        let before = try WAVAudio(path: input)
        let after = try WAVAudio(path: output)
        XCTAssertEqual(after.rate, 44_100)
        XCTAssertEqual(after.channels, 2)
        XCTAssertEqual(after.samples.count, before.samples.count)
        let change = 20 * log10(Self.rms(after.samples) / Self.rms(before.samples))
        XCTAssertEqual(change, -6.02, accuracy: 0.05, "half the gain")
    }

    func testRunRefusesFilteredWithoutAudio() throws {
        let directory = try TemporaryDirectory(self)
        let noAudio = try runProcess(TestPaths.oton, ["plugins", "run", try halfGain(in: directory), "--filtered", directory.file("out.wav")])
        XCTAssertEqual(noAudio.status, 2, noAudio.stderr)
        XCTAssertTrue(noAudio.stderr.contains("--filtered needs the sound to filter: give --audio IN.wav"), noAudio.stderr)
    }

    private static func rms(_ bytes: [UInt8]) -> Double {
        var sum = 0.0
        for index in stride(from: 0, to: bytes.count - 1, by: 2) {
            let sample = Double(Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)) / 32768
            sum += sample * sample
        }
        return (sum / Double(max(bytes.count / 2, 1))).squareRoot()
    }
}
