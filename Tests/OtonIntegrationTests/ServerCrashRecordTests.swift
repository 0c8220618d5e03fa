import Foundation
import OtonTestSupport
import XCTest

/// A station's server that dies and comes back (Tests/Fixtures/live_source.py `crash`: every listener
/// closed, connections refused, then the same port again), and one whose first answer after a break
/// is empty (issue 37 §6): the recorder names the cause right, keeps every byte it received, and is
/// back soon after the server is.
final class ServerCrashRecordTests: XCTestCase {
    private func poll(timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(200_000)
        }
        return condition()
    }

    /// Archive and track files together, --min-seconds far above what is recorded: the server crashes
    /// (2 s of refused connections), comes back, then SIGTERM. Nothing received is deleted: the archive
    /// joins to every byte sent up to what SIGTERM cut in flight, and the track pieces cut short by the
    /// crash and by SIGTERM are kept as incomplete. The log says the server refused the connection —
    /// never that the network is unavailable.
    func testACrashedServerIsNamedRightAndNothingReceivedIsDeleted() throws {
        let directory = try TemporaryDirectory(self)
        let file = directory.file("source.mp3")
        try LiveSource.makeFile(file, seconds: 6)
        let station = try LiveSource(self, file: file, logDirectory: directory.file("sent"))
        let recorder = try RecordHarness(self, url: station.url, extra: ["--archive", "1h", "--tracks", "--min-seconds", "600"])
        try recorder.start()
        let parts = { ((FileManager.default.enumerator(atPath: recorder.out)?.allObjects as? [String]) ?? []).filter { $0.hasSuffix(".part") } }
        XCTAssertTrue(
            poll(timeout: 60) {
                parts().contains { (try? FileManager.default.attributesOfItem(atPath: recorder.out + "/" + $0)[.size] as? Int) ?? 0 > 40_000 }
            }, recorder.stderr)
        let before = recorder.stderr.count
        station.crash(seconds: 2)
        XCTAssertTrue(poll(timeout: 60) { ((try? station.connections().count) ?? 0) >= 2 }, "reconnected after the crash: \(recorder.stderr)")
        XCTAssertTrue(poll(timeout: 60) { ((try? station.connections().last?.bytes.count) ?? 0) > 40_000 }, recorder.stderr)
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)

        let connections = try station.connections()
        if let up = station.upTimes.first, connections.count >= 2 {
            print("reconnect after the server came back: \(String(format: "%.3f", connections[1].accepted - up)) s")
        }
        let afterCrash = String(recorder.stderr.dropFirst(before))
        XCTAssertFalse(afterCrash.contains("network seems to be unavailable"), "the network was never down: \(afterCrash)")
        XCTAssertTrue(afterCrash.contains("refused the connection"), "the cause, named: \(afterCrash)")

        // The archive: every byte received, in one segment (a crash is a gap, not a cut), kept though short.
        let archive = try ArchiveSegments(recorder.out)
        XCTAssertEqual(archive.segments.count, 1, "\(archive.segments.map(\.path))")
        let sent = connections.reduce(into: [UInt8]()) { $0 += $1.bytes }
        let joined = archive.joined
        XCTAssertGreaterThan(joined.count, sent.count - connections.last!.bytes.count, "all of the first connection and some of the next")
        XCTAssertTrue(
            joined.count <= sent.count && Array(sent.prefix(joined.count)) == joined,
            "the archive is the bytes sent (\(joined.count) of \(sent.count))")
        XCTAssertEqual(archive.segments.first?.summary?["status"] as? String, "ended-early")
        XCTAssertFalse(archive.segments.first?.gaps.isEmpty ?? true, "the crash is a gap in the ledger")

        // The track pieces: cut short by the crash and by SIGTERM, each far below --min-seconds, kept as incomplete.
        let tracks = recorder.finishedEvents().filter { $0["status"] != "archive" }
        XCTAssertGreaterThanOrEqual(tracks.count, 2, "\(tracks)")
        XCTAssertEqual(tracks.filter { $0["status"] == "dropped" }, [], "no piece deleted")
        for track in tracks {
            XCTAssertEqual(track["status"], "incomplete", "\(track)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: track["path"] ?? ""), "\(track)")
        }
    }

    /// After a connection that yields nothing, the player asks the address once more to learn why; when
    /// that answer is the stream (the station is back), it reconnects at once instead of throwing the
    /// answer away and waiting for its backoff.
    func testAStationThatAnswersTheDiagnosticRequestIsReconnectedAtOnce() throws {
        let directory = try TemporaryDirectory(self)
        let file = directory.file("source.mp3")
        try LiveSource.makeFile(file, seconds: 6)
        let station = try LiveSource(self, file: file, logDirectory: directory.file("sent"))
        let recorder = try RecordHarness(self, url: station.url)
        try recorder.start()
        XCTAssertNotNil(recorder.waitForEvent("org.oton.recording.started", timeout: 60), recorder.stderr)
        station.closeEmpty(1)
        station.goDown(seconds: 0)  // the listener is closed; the reconnect gets an empty answer, the next request the stream
        XCTAssertTrue(poll(timeout: 60) { ((try? station.connections().count) ?? 0) >= 3 }, recorder.stderr)
        XCTAssertTrue(poll(timeout: 30) { recorder.stderr.contains("the station answers again; reconnecting at once") }, recorder.stderr)
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)
        let connections = try station.connections()
        print("diagnostic request → reconnect: \(String(format: "%.3f", connections[2].accepted - connections[1].accepted)) s")
    }
}
