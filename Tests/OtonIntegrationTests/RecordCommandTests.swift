import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `oton record`'s own options: --duration, --format, a bad folder.
final class RecordCommandTests: XCTestCase {
    func testDurationStopsTheRecordingAndTheLastTrackIsIncomplete() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/dur.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let harness = try RecordHarness(self, url: server.url(mount: "/dur.mp3").absoluteString, extra: ["--duration", "3s"])
        let started = Date()
        try harness.start()
        XCTAssertEqual(harness.waitForExit(timeout: 20), 0, harness.stderr)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 3)
        XCTAssertEqual(harness.files(), ["incomplete/Oton Test FM/Artist A - Song One.mp3", "index.json"], harness.stderr)
        XCTAssertTrue(harness.stdout.contains("incomplete: \(harness.out)/incomplete/Oton Test FM/Artist A - Song One.mp3"), harness.stdout)
    }

    func testUnknownFormatSilenceWithoutWAVAndUnwritableFolderAreUsageErrors() throws {
        let flac = try RecordHarness(self, url: "http://127.0.0.1:9/none.mp3", extra: ["--format", "flac"])
        try flac.start()
        XCTAssertEqual(flac.waitForExit(timeout: 20), 2)
        XCTAssertTrue(flac.stderr.contains("--format flac: use stream"), flac.stderr)

        let window = try RecordHarness(self, url: "http://127.0.0.1:9/none.mp3", extra: ["--silence-window", "2"])
        try window.start()
        XCTAssertEqual(window.waitForExit(timeout: 20), 2)
        XCTAssertTrue(window.stderr.contains("silence_window needs config.format \"wav\""), window.stderr)

        let directory = try TemporaryDirectory(self)
        let blocker = try directory.write("file", "not a folder")
        let bad = try RecordHarness(self, url: "http://127.0.0.1:9/none.mp3", out: blocker + "/out")
        try bad.start()
        XCTAssertEqual(bad.waitForExit(timeout: 20), 2)
        XCTAssertTrue(bad.stderr.contains("cannot record: "), bad.stderr)
        XCTAssertTrue(bad.stderr.contains("cannot create the output folder"), bad.stderr)
    }
}
