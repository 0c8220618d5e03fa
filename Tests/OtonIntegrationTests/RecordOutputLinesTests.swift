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
}
