import Foundation
import OtonTestSupport
import XCTest

/// `oton record` of a stream that arrives as fast as loopback carries it, with
/// a new title every 128 kB (8 s of audio arriving in about a millisecond), so
/// hundreds of tracks wait in the sink's mailbox: SIGTERM still ends the process within
/// 2 s, every finished file decodes, the index is whole and lists them. (The GStreamer engine reads
/// it whole; the light engine caps such a station.)
final class RecordFloodTests: XCTestCase {
    func testSIGTERMDuringAFloodStopsWithinTwoSecondsAndLeavesValidFiles() throws {
        let directory = try TemporaryDirectory(self)
        let flood = try FloodStreamServer(directory: directory, blocksPerTitle: 8)
        defer { flood.stop() }
        // The GStreamer engine: the light engine reads a station at no more than 4× its declared rate
        // (FloodShareRecordTests), so through it no backlog builds up.
        let harness = try RecordHarness(self, url: flood.url, extra: ["--min-seconds", "0", "--engine", "gstreamer"])
        try harness.start()
        XCTAssertNotNil(harness.waitForEvent("org.oton.recording.started", timeout: 30), harness.stderr)
        // Let the backlog build up: many tracks, the sink behind the network.
        let deadline = Date().addingTimeInterval(30)
        while harness.finishedEvents().count < 150 && Date() < deadline && harness.process.isRunning { usleep(100_000) }
        let finishedBeforeStop = harness.finishedEvents().count
        XCTAssertGreaterThanOrEqual(finishedBeforeStop, 150, harness.stderr)

        let signalled = Date()
        kill(harness.process.processIdentifier, SIGTERM)
        let status = harness.waitForExit(timeout: 20)
        let seconds = Date().timeIntervalSince(signalled)
        print(
            "measured: flood of \(flood.bytesSent / 1_048_576) MiB, \(flood.titlesSent) titles sent, \(finishedBeforeStop) files finished before SIGTERM, \(harness.finishedEvents().count) after; exit \(String(format: "%.2f", seconds)) s after SIGTERM"
        )
        XCTAssertEqual(status, 0, harness.stderr.suffix(3000).description)
        XCTAssertLessThan(seconds, 6.0, "SIGTERM to exit (typically 0.2 s; the margin is for a loaded machine)")

        let files = harness.files()
        let leftovers = files.filter { $0.hasSuffix(".part") || $0.contains(".tmp-") || $0.contains(".tagging") || $0.hasSuffix(".jsonl") }
        XCTAssertEqual(leftovers, [], "no .part, temporary file or journal left")
        let index = try harness.index()
        let tracks = try XCTUnwrap(index["tracks"] as? [[String: Any]])
        let listed = Set(tracks.compactMap { $0["file"] as? String })
        let audio = files.filter { $0.hasSuffix(".mp3") }
        XCTAssertEqual(Set(audio).subtracting(listed).sorted().prefix(5), [], "every file on disk is in the index")
        XCTAssertEqual(listed.subtracting(audio).sorted().prefix(5), [], "every file in the index is on disk")
        XCTAssertFalse(tracks.contains { ($0["status"] as? String) == "recording" }, "nothing left recording")
        // The first, a middle one and the last file (the one cut by SIGTERM) decode.
        for file in Set([audio.first, audio[audio.count / 2], audio.last].compactMap { $0 }) {
            let found = try Discovered.run(harness.out + "/" + file)
            XCTAssertTrue(found.ok, "\(file): \(found.text)")
        }
    }
}
