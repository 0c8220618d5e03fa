import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// `oton plugins run` (issue 38 §3), the plugin author's harness: the C examples, built by cc, get a
/// script of events, commands and a WAV file made by GStreamer, with no station; what they publish
/// and answer comes out as JSON lines.
final class PluginsRunTests: XCTestCase {
    private func example(_ folder: String, _ file: String, in directory: TemporaryDirectory) throws -> String {
        try CPluginBuilder.build(TestPaths.root + "/examples/\(folder)/\(file).c", into: directory, name: file, libraries: ["m"])
    }

    private func run(_ arguments: [String]) throws -> ProcessResult {
        try runProcess(TestPaths.oton, ["plugins", "run"] + arguments)
    }

    private func lines(_ output: String) throws -> [JSONValue] {
        try output.split(separator: "\n").map { try JSONValue.parse(Data($0.utf8)) }
    }

    func testTheLevelMeterMeasuresAWAVToneAndAnswersItsCommand() throws {
        let directory = try TemporaryDirectory(self)
        let meter = try example("c-level-meter", "oton_level_meter", in: directory)
        let wav = directory.file("tone.wav")
        // 2 s of a 440 Hz sine at half scale: peak −6.0 dBFS, RMS −9.0 dBFS.
        let made = try runProcess(
            "/usr/bin/env",
            [
                "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=88", "samplesperbuffer=1000", "freq=440", "volume=0.5",
                "!", "audio/x-raw,format=S16LE,rate=44100,channels=2", "!", "wavenc", "!", "filesink", "location=\(wav)",
            ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let script = try directory.write(
            "script.jsonl",
            """
            # a state, the tone, then the command
            {"kind": "state", "fields": {"state": "playing"}}
            {"audio": true}
            {"command": "level-meter-stats"}
            """)
        let result = try run([meter, "--audio", wav, "--events", script, "--plugin-config", #"{"window_ms": 500}"#])
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = try lines(result.stdout)
        let levels = output.filter { $0["kind"]?.stringValue == "org.example.level-meter.level" }
        XCTAssertEqual(levels.count, 3, "88,000 frames are three whole windows of 22,050: \(result.stdout)")
        for level in levels {
            XCTAssertEqual(level["fields"]?["peak_dbfs"]?.stringValue, "-6.0")
            XCTAssertEqual(level["fields"]?["rms_dbfs"]?.stringValue, "-9.0")
        }
        XCTAssertEqual(output.last?["command"]?.stringValue, "level-meter-stats")
        XCTAssertEqual(output.last?["text"]?.stringValue, "3 windows, 0 gaps, 0 format changes, 0 bytes dropped")
    }

    func testTheLoggerGetsTheScriptsEventsAndCountsThem() throws {
        let directory = try TemporaryDirectory(self)
        let logger = try example("c-logger", "oton_event_logger", in: directory)
        let log = directory.file("events.log")
        let script = try directory.write(
            "script.jsonl",
            """
            {"event": {"kind": "track", "fields": {"artist": "Кино", "title": "Группа крови", "sequence": "1"}}}
            {"kind": "volume", "fields": {"volume": "0.500"}}
            {"command": "logger-stats"}
            """)
        let result = try run([logger, "--events", script, "--plugin-config", #"{"file": "\#(log)"}"#])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try lines(result.stdout).last?["text"]?.stringValue, "2 events, 1 tracks")
        XCTAssertTrue(directory.read("events.log").contains("Группа крови"), directory.read("events.log"))
    }

    func testAWrongScriptOrAMissingWAVIsRefusedWithTheLine() throws {
        let directory = try TemporaryDirectory(self)
        let meter = try example("c-level-meter", "oton_level_meter", in: directory)
        let bad = try directory.write("bad.jsonl", "{\"kind\": \"state\", \"fields\": {}}\n{\"kind\": \"Not A Kind\"}\n")
        let refused = try run([meter, "--events", bad])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("line 2: \"kind\" must name an event kind"), refused.stderr)
        let audio = try directory.write("audio.jsonl", "{\"audio\": true}\n")
        let noWAV = try run([meter, "--events", audio])
        XCTAssertEqual(noWAV.status, 1)
        XCTAssertTrue(noWAV.stderr.contains("no --audio WAV file was given"), noWAV.stderr)
        let notWAV = try run([meter, "--events", audio, "--audio", bad])
        XCTAssertEqual(notWAV.status, 1)
        XCTAssertTrue(notWAV.stderr.contains("not a WAV file"), notWAV.stderr)
    }
}
