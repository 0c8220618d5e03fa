import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// `oton plugins inspect|list` and `oton play` against plugin files that must not
/// hang or run: a FIFO, a library under a world-writable folder, one that crashes in create.
final class HostilePluginFileTests: XCTestCase {
    private struct Run {
        var status: Int32
        var reason: Process.TerminationReason
        var stdout: String
        var stderr: String
    }

    /// Runs oton with output in files; fails the test (and kills it) if it outlives `limit`.
    private func oton(
        _ arguments: [String], in directory: TemporaryDirectory, limit: TimeInterval,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPaths.oton)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": directory.file("data"), "XDG_CACHE_HOME": directory.file("cache")])
        { $1 }
        for name in ["out.log", "err.log"] { FileManager.default.createFile(atPath: directory.file(name), contents: nil) }
        process.standardOutput = FileHandle(forWritingAtPath: directory.file("out.log"))
        process.standardError = FileHandle(forWritingAtPath: directory.file("err.log"))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(limit)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTFail("oton \(arguments.joined(separator: " ")) still ran after \(limit) s", file: file, line: line)
        }
        return Run(
            status: process.terminationStatus, reason: process.terminationReason,
            stdout: directory.read("out.log"), stderr: directory.read("err.log"))
    }

    func testInspectOfAFIFOFailsAtOnce() throws {
        let directory = try TemporaryDirectory(self)
        let fifo = directory.file("libfifo.so")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let run = try oton(["plugins", "inspect", fifo], in: directory, limit: 5)
        XCTAssertEqual(run.reason, .exit)
        XCTAssertEqual(run.status, 2)
        XCTAssertEqual(
            run.stderr,
            "oton: \(fifo): refused: it is a FIFO (named pipe), not a regular file\n  hint: point \"path\" at the plugin's shared library file itself\n")
    }

    func testListWithAFIFOEntryReportsItAndGoesOn() throws {
        let directory = try TemporaryDirectory(self)
        let fifo = directory.file("libfifo.so")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let probe = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "probe")
        let config = try directory.write(
            "plugins.json",
            """
            {"plugins": [{"id": "org.test.fifo", "path": "\(fifo)"}, {"id": "org.oton.test.probe", "path": "\(probe)"}]}
            """)
        let run = try oton(["plugins", "list", "--config", config], in: directory, limit: 5)
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.stdout.contains("✗ org.test.fifo  enabled  refused: it is a FIFO (named pipe), not a regular file"), run.stdout)
        XCTAssertTrue(run.stdout.contains("✓ org.oton.test.probe  ok 0.0.1"), run.stdout)
    }

    func testInspectRefusesALibraryUnderAWorldWritableFolderWithoutRunningIt() throws {
        let directory = try TemporaryDirectory(self)
        let marker = directory.file("constructed")
        let built = try CPluginBuilder.build(
            CPluginBuilder.probeSource, into: directory, name: "probe",
            defines: [#"PROBE_CONSTRUCTOR_MARKER="\#(marker)""#])
        try FileManager.default.createDirectory(atPath: directory.file("open/inner"), withIntermediateDirectories: true)
        chmod(directory.file("open/inner"), 0o755)
        chmod(directory.file("open"), 0o777)
        let path = directory.file("open/inner/libprobe.so")
        try FileManager.default.moveItem(atPath: built, toPath: path)
        let run = try oton(["plugins", "inspect", path], in: directory, limit: 10)
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(
            run.stderr.hasPrefix("oton: \(path): refused: the directory \(directory.file("open")) is writable by every user (mode 777) and not sticky"),
            run.stderr)
        XCTAssertTrue(run.stderr.contains("hint: "), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "the library's constructor ran")
        // Made safe, the same file loads and its constructor runs: the check above can fail.
        chmod(directory.file("open"), 0o755)
        XCTAssertEqual(try oton(["plugins", "inspect", path], in: directory, limit: 10).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: marker))
    }

    func testAPluginThatCrashesInCreate() throws {
        let directory = try TemporaryDirectory(self)
        let path = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "crash", defines: ["PROBE_CRASH_IN_CREATE"])
        // inspect and list never call create: they describe it and exit 0.
        let inspect = try oton(["plugins", "inspect", path], in: directory, limit: 10)
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertTrue(inspect.stdout.contains("org.oton.test.probe"), inspect.stdout)
        // A plugin runs inside oton (no isolation yet): its crash ends oton by the signal, promptly,
        // leaving the events file with whole lines only.
        let config = try directory.write(
            "plugins.json",
            """
            {"stations": [{"name": "Nothing", "url": "file://\(directory.file("none.ogg"))"}],
             "plugins": [{"id": "org.oton.test.probe", "path": "\(path)"}]}
            """)
        let play = try oton(
            ["play", "Nothing", "--headless", "--no-control", "--config", config, "--events", directory.file("events.jsonl")],
            in: directory, limit: 30)
        XCTAssertEqual(play.reason, .uncaughtSignal)
        XCTAssertEqual(play.status, SIGSEGV)
        for line in directory.lines("events.jsonl") {
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)), line)
        }
    }
}
