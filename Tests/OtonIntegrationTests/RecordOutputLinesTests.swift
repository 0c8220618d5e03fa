import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `oton record` without a terminal, standard output and standard error both captured (as a
/// service manager or `oton record … 2>&1 | tee` sees them): each finished file is one line, on
/// standard output, and the end of the recording is said once.
final class RecordOutputLinesTests: XCTestCase {
    func testEachFinishedFileIsOneLineOnStandardOutput() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/lines.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let harness = try RecordHarness(self, url: server.url(mount: "/lines.mp3").absoluteString, extra: ["--duration", "4s"])
        try harness.start()
        XCTAssertEqual(harness.waitForExit(timeout: 40), 0, harness.stderr)
        let file = "Artist A - Song One.mp3"
        let outLines = harness.stdout.split(separator: "\n").filter { $0.contains(file) }
        let errLines = harness.stderr.split(separator: "\n").filter { $0.contains(file) }
        XCTAssertEqual(outLines.count, 1, "one line for the file on standard output:\n\(harness.stdout)")
        XCTAssertEqual(errLines, [], "and none on standard error (the log):\n\(harness.stderr)")
        let stopped = try XCTUnwrap(harness.events.first { $0["kind"] as? String == "org.oton.file-sink.stopped" }.map(harness.fields))
        let message = try XCTUnwrap(stopped["message"])
        let said = (harness.stdout + harness.stderr).components(separatedBy: message).count - 1
        XCTAssertEqual(said, 1, "the end of the recording (\(message)) is said once:\n\(harness.stdout)\n\(harness.stderr)")
    }

    /// `oton play --headless` with the file sink in plugins.json: the same one line per file on
    /// standard output (the log no longer has it at info level), and the end said once.
    func testHeadlessPlayWithAFileSinkPrintsTheSameLineOnce() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/play.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let directory = try TemporaryDirectory(self)
        let out = directory.file("out")
        let config = try directory.write(
            "plugins.json",
            """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/play.mp3"))"}],
             "plugins": [{"id": "org.oton.file-sink", "path": "\(TestPaths.pluginLibrary("OtonFileSink"))",
                          "config": {"directory": "\(out)", "mode": "always", "max_seconds": 3, "min_seconds": 1}}]}
            """)
        try FileManager.default.createDirectory(atPath: directory.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPaths.oton)
        process.arguments = ["play", "Test FM", "--headless", "--config", config, "--instance", "lines"]
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["XDG_RUNTIME_DIR": directory.file("run"), "XDG_DATA_HOME": directory.file("data"), "XDG_CACHE_HOME": directory.file("cache")]) { $1 }
        FileManager.default.createFile(atPath: directory.file("stdout.log"), contents: nil)
        FileManager.default.createFile(atPath: directory.file("stderr.log"), contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: directory.file("stdout.log"))!
        process.standardError = FileHandle(forWritingAtPath: directory.file("stderr.log"))!
        process.standardInput = FileHandle.nullDevice
        try process.run()
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        let deadline = Date().addingTimeInterval(40)
        while Date() < deadline, !directory.read("stdout.log").contains("recording stopped") { usleep(100_000) }
        process.terminate()
        process.waitUntilExit()
        let (stdout, stderr) = (directory.read("stdout.log"), directory.read("stderr.log"))
        let file = "Artist A - Song One.mp3"
        XCTAssertEqual(stdout.split(separator: "\n").filter { $0.contains(file) }.count, 1, "one line for the file:\n\(stdout)")
        XCTAssertEqual(stderr.split(separator: "\n").filter { $0.contains(file) }, [], "none in the log:\n\(stderr)")
        XCTAssertEqual(stdout.components(separatedBy: "recording stopped").count - 1, 1, "the end said once:\n\(stdout)")
        XCTAssertFalse(stdout.contains("recording stopped: recording stopped"), stdout)
    }
}
