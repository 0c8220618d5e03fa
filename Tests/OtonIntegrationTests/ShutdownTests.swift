import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// SIGTERM and Ctrl-C: plugins destroyed in order, files closed, exit 0.
final class ShutdownTests: XCTestCase {
    func testSIGTERMDestroysPluginsInOrderAndExitsZero() throws {
        let directory = try TemporaryDirectory(self)
        let first = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "first", defines: [#"PROBE_ID="org.test.first""#])
        let second = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "second", defines: [#"PROBE_ID="org.test.second""#])
        let log = directory.file("plugins.log")
        let audio = directory.file("tone.ogg")
        XCTAssertEqual(try runProcess("/usr/bin/env", ["gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=2000", "!", "audioconvert", "!",
                                                       "vorbisenc", "!", "oggmux", "!", "filesink", "location=\(audio)"]).status, 0)
        let config = try directory.write("plugins.json", """
        {"stations": [{"name": "Tone", "url": "file://\(audio)"}],
         "plugins": [
           {"id": "org.test.first", "path": "\(first)", "config": {"log": "\(log)"}},
           {"id": "org.test.second", "path": "\(second)", "config": {"log": "\(log)"}}
         ]}
        """)
        let events = directory.file("events.jsonl")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPaths.oton)
        process.arguments = ["play", "Tone", "--headless", "--config", config, "--events", events]
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": directory.file("data"), "XDG_CACHE_HOME": directory.file("cache")]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait for "playing" in the event stream (the file is written by oton as events happen).
        let deadline = Date().addingTimeInterval(15)
        while !directory.read("events.jsonl").contains(#""state":"playing""#) && Date() < deadline { usleep(20_000) }
        XCTAssertTrue(directory.read("events.jsonl").contains(#""state":"playing""#))
        process.terminate() // SIGTERM
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0)
        let lines = directory.lines("plugins.log").filter { $0.hasPrefix("create") || $0.hasPrefix("destroy") }
        XCTAssertEqual(lines.map { $0.split(separator: " ").prefix(2).joined(separator: " ") },
                       ["create org.test.first", "create org.test.second", "destroy org.test.first", "destroy org.test.second"],
                       "created and destroyed in the order of plugins.json")
        // The events file was closed complete: every line is a JSON object.
        for line in directory.lines("events.jsonl") {
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)), line)
        }
    }
}
