import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// SIGTERM and Ctrl-C: plugins destroyed in order, files closed, exit 0; a plugin
/// that blocks holds the exit for at most the shutdown deadline; a second signal ends it at once.
final class ShutdownTests: XCTestCase {
    func testSIGTERMDestroysPluginsInOrderAndExitsZero() throws {
        let directory = try TemporaryDirectory(self)
        let first = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "first", defines: [#"PROBE_ID="org.test.first""#])
        let second = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "second", defines: [#"PROBE_ID="org.test.second""#])
        let log = directory.file("plugins.log")
        let audio = directory.file("tone.ogg")
        XCTAssertEqual(
            try runProcess(
                "/usr/bin/env",
                [
                    "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=2000", "!", "audioconvert", "!",
                    "vorbisenc", "!", "oggmux", "!", "filesink", "location=\(audio)",
                ]
            ).status, 0)
        let config = try directory.write(
            "plugins.json",
            """
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
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": directory.file("data"), "XDG_CACHE_HOME": directory.file("cache")])
        { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait for "playing" in the event stream (the file is written by oton as events happen).
        let deadline = Date().addingTimeInterval(15)
        while !directory.read("events.jsonl").contains(#""state":"playing""#) && Date() < deadline { usleep(20_000) }
        XCTAssertTrue(directory.read("events.jsonl").contains(#""state":"playing""#))
        process.terminate()  // SIGTERM
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0)
        let lines = directory.lines("plugins.log").filter { $0.hasPrefix("create") || $0.hasPrefix("destroy") }
        XCTAssertEqual(
            lines.map { $0.split(separator: " ").prefix(2).joined(separator: " ") },
            ["create org.test.first", "create org.test.second", "destroy org.test.first", "destroy org.test.second"],
            "created and destroyed in the order of plugins.json")
        // The events file was closed complete: every line is a JSON object.
        for line in directory.lines("events.jsonl") {
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)), line)
        }
    }

    // MARK: a plugin that blocks

    /// `oton play` of a local Ogg file with the C plugin of Tests/Fixtures/blocking_plugin.c,
    /// whose on_event sleeps 30 s per event (far past every deadline, so a loaded machine cannot blur
    /// "the deadline ended it" with "the plugin finished"); returns once the events file says "playing".
    private func playWithBlockingPlugin(_ directory: TemporaryDirectory, topLevel: String = "") throws -> Process {
        let plugin = try CPluginBuilder.build(
            TestPaths.root + "/Tests/Fixtures/blocking_plugin.c", into: directory, name: "blocking",
            defines: ["BLOCK_IN_EVENT", "BLOCK_MS=30000"])
        let audio = directory.file("tone.ogg")
        XCTAssertEqual(
            try runProcess(
                "/usr/bin/env",
                [
                    "gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=2000", "!", "audioconvert", "!",
                    "vorbisenc", "!", "oggmux", "!", "filesink", "location=\(audio)",
                ]
            ).status, 0)
        let config = try directory.write(
            "plugins.json",
            """
            {\(topLevel)"stations": [{"name": "Tone", "url": "file://\(audio)"}],
             "plugins": [{"id": "org.oton.test.blocking", "path": "\(plugin)", "config": {"log": "\(directory.file("plugin.log"))"}}]}
            """)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPaths.oton)
        process.arguments = ["play", "Tone", "--headless", "--no-control", "--config", config, "--events", directory.file("events.jsonl")]
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": directory.file("data"), "XDG_CACHE_HOME": directory.file("cache")])
        { $1 }
        process.standardOutput = FileHandle.nullDevice
        FileManager.default.createFile(atPath: directory.file("stderr.log"), contents: nil)
        process.standardError = FileHandle(forWritingAtPath: directory.file("stderr.log"))
        try process.run()
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        XCTAssertTrue(waitFor(#""state":"playing""#, in: directory, "events.jsonl", timeout: 15), directory.read("stderr.log"))
        return process
    }

    /// Polls a file another process writes (nothing can be awaited across processes).
    private func waitFor(_ text: String, in directory: TemporaryDirectory, _ name: String, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !directory.read(name).contains(text) {
            guard Date() < deadline else { return false }
            usleep(20_000)
        }
        return true
    }

    /// Waits for the exit; returns the seconds it took, or nil (and kills it) after `limit`.
    private func secondsUntilExit(_ process: Process, limit: TimeInterval) -> TimeInterval? {
        let started = Date()
        while process.isRunning {
            guard Date().timeIntervalSince(started) < limit else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return nil
            }
            usleep(10_000)
        }
        return Date().timeIntervalSince(started)
    }

    private func assertEventsAreJSONLines(_ directory: TemporaryDirectory, file: StaticString = #filePath, line: UInt = #line) {
        let lines = directory.lines("events.jsonl")
        XCTAssertFalse(lines.isEmpty, file: file, line: line)
        for text in lines {
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(text.utf8)), text, file: file, line: line)
        }
    }

    /// A SIGTERM is never lost, however early it comes: the handler used to ignore the signal until a dispatch
    /// source took over, and one that came in between left oton playing for ever (a CI run hung on it).
    func testASIGTERMAtAnyMomentOfTheStartEndsOton() throws {
        let directory = try TemporaryDirectory(self)
        let config = try directory.write("plugins.json", #"{"stations": [{"name": "Nowhere", "url": "http://127.0.0.1:9/none.mp3"}], "plugins": []}"#)
        for attempt in 0..<12 {
            let process = ManagedProcess(
                name: "oton-\(attempt)", executable: TestPaths.oton,
                arguments: ["play", "Nowhere", "--headless", "--no-control", "--config", config])
            try process.start()
            usleep(useconds_t(attempt * 40_000))
            _ = kill(process.pid, SIGTERM)
            // Gone or a zombie, read from /proc: Foundation's own reaping is not what this test is about.
            let pid = process.pid
            let deadline = Date().addingTimeInterval(20)
            func ended() -> Bool {
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
                return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
            }
            while !ended(), Date() < deadline { usleep(20_000) }
            XCTAssertTrue(ended(), "oton ran on 20 s after a SIGTERM \(attempt * 40) ms into its start")
            process.kill()
        }
    }

    func testSIGTERMWithPluginStuckInOnEventEndsAtTheDefaultDeadline() throws {
        let directory = try TemporaryDirectory(self)
        let process = try playWithBlockingPlugin(directory)
        process.terminate()
        let took = try XCTUnwrap(secondsUntilExit(process, limit: 15), "oton still ran 15 s after SIGTERM")
        XCTAssertGreaterThan(took, 2.5, "the plugin gets the default 3 s")
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0)
        let stderr = directory.read("stderr.log")
        XCTAssertTrue(stderr.contains("plugin org.oton.test.blocking did not finish within 3 s at shutdown (still in on_event); abandoned"), stderr)
        XCTAssertNotNil(
            stderr.range(of: #"plugin org.oton.test.blocking: [1-9][0-9]* queued events and media buffers dropped at shutdown"#, options: .regularExpression),
            stderr)
        XCTAssertFalse(directory.read("plugin.log").contains("destroy"), "an abandoned plugin is not called again")
        assertEventsAreJSONLines(directory)
        XCTAssertTrue(directory.read("events.jsonl").contains(#""state":"stopped""#))
    }

    func testConfiguredDeadlineEndsOtonWithinTwoSeconds() throws {
        let directory = try TemporaryDirectory(self)
        let process = try playWithBlockingPlugin(directory, topLevel: #""shutdown_timeout_ms": 500, "#)
        process.terminate()
        let took = try XCTUnwrap(secondsUntilExit(process, limit: 15), "oton still ran 15 s after SIGTERM")
        XCTAssertLessThan(took, 6, "0.5 s configured (the message below says which deadline applied)")
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertTrue(directory.read("stderr.log").contains("did not finish within 0.5 s"), directory.read("stderr.log"))
        assertEventsAreJSONLines(directory)
    }

    func testSecondSIGTERMExitsAtOnceNamingThePlugin() throws {
        try assertSecondSignalExitsAtOnce(SIGTERM)
    }

    func testCtrlCDuringShutdownExitsAtOnceNamingThePlugin() throws {
        try assertSecondSignalExitsAtOnce(SIGINT)
    }

    private func assertSecondSignalExitsAtOnce(_ second: Int32, file: StaticString = #filePath, line: UInt = #line) throws {
        let directory = try TemporaryDirectory(self)
        // A 16 s deadline: the queue is given half (8 s), then the final state is published and the
        // stuck plugin is waited for the other 8 s, which the second signal cuts short.
        let process = try playWithBlockingPlugin(directory, topLevel: #""shutdown_timeout_ms": 16000, "#)
        process.terminate()
        // The final state is published just before the plugins are waited for one by one.
        XCTAssertTrue(waitFor(#""state":"stopped""#, in: directory, "events.jsonl", timeout: 20), file: file, line: line)
        kill(process.processIdentifier, second)
        let took = try XCTUnwrap(secondsUntilExit(process, limit: 20), file: file, line: line)
        XCTAssertLessThan(took, 4, "at once, not after the 8 s left of the deadline", file: file, line: line)
        XCTAssertEqual(process.terminationReason, .exit, file: file, line: line)
        XCTAssertEqual(process.terminationStatus, 128 + second, file: file, line: line)
        let lines = directory.lines("stderr.log").filter { $0.hasPrefix("oton: second signal") }
        XCTAssertEqual(lines, ["oton: second signal \(second), exiting at once; plugin org.oton.test.blocking was still shutting down"], file: file, line: line)
        assertEventsAreJSONLines(directory, file: file, line: line)
    }
}
