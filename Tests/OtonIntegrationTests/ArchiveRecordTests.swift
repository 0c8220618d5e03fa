import Foundation
import OtonTestSupport
import XCTest

/// `oton record --archive`: segments cut on the clock, checked against a live station that logs
/// every byte it sends and the air time of each frame. The period is 10 s (a period that divides a
/// day, the same cutting code as 1h), so a run crosses several boundaries in well under a minute.
final class ArchiveRecordTests: XCTestCase {
    /// The archive period: 10 s in the suite; OTON_ARCHIVE_TEST_PERIOD=60 runs the issue's own
    /// two-minute `--archive 1m` case (a measurement, not part of the suite's time).
    private let period = Double(ProcessInfo.processInfo.environment["OTON_ARCHIVE_TEST_PERIOD"] ?? "") ?? 10.0

    /// Segments cut at the frame nearest each boundary (±1 frame by the ledger, within 0.1 s of the
    /// air time the station logged), each decoding on its own to the length its ledger says, joining
    /// to exactly the bytes the station sent on each connection; a 5 s outage of the source is a gap
    /// the ledger names (source-down, its seconds), not a cut; SIGTERM marks the last one ended early.
    func testSegmentsAreCutOnTheClockJoinToTheBytesSentAndNameAnOutage() throws {
        let directory = try TemporaryDirectory(self)
        let file = directory.file("source.mp3")
        try LiveSource.makeFile(file, seconds: 12)
        let station = try LiveSource(self, file: file, logDirectory: directory.file("sent"))
        let recorder = try RecordHarness(self, url: station.url, extra: ["--archive", "\(Int(period))s"])
        try recorder.start()
        let archived = { recorder.finishedEvents().filter { $0["status"] == "archive" } }
        XCTAssertTrue(poll(timeout: max(60, period * 3)) { !archived().isEmpty }, "a first boundary: \(recorder.stderr)")
        station.goDown(seconds: 5)
        let before = archived().count
        // The outage, the reconnects after it, then two more boundaries.
        XCTAssertTrue(poll(timeout: max(90, period * 4)) { archived().count >= before + 2 }, "\(archived()) \(recorder.stderr)")
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)

        let archive = try ArchiveSegments(recorder.out)
        let segments = archive.segments
        XCTAssertGreaterThanOrEqual(segments.count, 4, "\(segments.map(\.path))")
        let connections = try station.connections()
        XCTAssertGreaterThanOrEqual(connections.count, 2, "the station was connected to again after the outage")
        let sent = connections.reduce(into: [UInt8]()) { $0 += $1.bytes }

        // Gapless and exact: the segments join to what the station sent, in order, every connection whole
        // but the last (cut by SIGTERM: what was in flight then was sent but never received).
        let joined = archive.joined
        XCTAssertGreaterThan(joined.count, sent.count - connections.last!.bytes.count, "all of the first connection and some of the next")
        XCTAssertTrue(
            joined.count <= sent.count && Array(sent.prefix(joined.count)) == joined,
            "the segments joined are the bytes sent (\(joined.count) of \(sent.count) bytes)")

        let frame = connections[0].frameSeconds
        var offset = 0
        var offsets: [Int] = []
        for segment in segments {
            offsets.append(offset)
            offset += segment.bytes.count
        }
        var misses: [Double] = []
        for (index, segment) in segments.enumerated() {
            let name = (segment.path as NSString).lastPathComponent
            let summary = try XCTUnwrap(segment.summary, "\(name) has its summary line")
            XCTAssertEqual(summary["bytes"] as? Int, segment.bytes.count, name)
            XCTAssertEqual(summary["codec"] as? String, "mp3", name)
            XCTAssertEqual(summary["bitrate_kbps"] as? Int, 128, name)
            let seconds = try XCTUnwrap(summary["seconds"] as? Double)
            XCTAssertEqual(Double(summary["frames"] as? Int ?? 0) * frame, seconds, accuracy: 0.002, name)
            if summary["frames"] as? Int ?? 0 >= 3 {  // GStreamer's typefinder needs 3 frames; SIGTERM just after a boundary leaves fewer
                let decoded = try Discovered.run(segment.path)
                XCTAssertTrue(decoded.ok, "\(name) decodes on its own: \(decoded.text)")
                XCTAssertEqual(decoded.seconds, seconds, accuracy: 0.03, "\(name): decoded length and ledger agree")
            }
            XCTAssertEqual(Array(segment.bytes.prefix(2)), [0xFF, 0xFB], "\(name) starts on a frame")
            let last = index == segments.count - 1
            XCTAssertEqual(summary["status"] as? String, last ? "ended-early" : "complete", name)
            if last { XCTAssertEqual(summary["why"] as? String, "stopped") }
            guard segment.fromBoundary else {
                XCTAssertTrue(index == 0 || !segments[index].gaps.isEmpty, "only the first and the one after the outage begin off a boundary: \(name)")
                continue
            }
            // Cut at the frame nearest the boundary, by the ledger …
            let boundary = (segment.startUnix / period).rounded() * period
            XCTAssertLessThanOrEqual(abs(segment.startUnix - boundary), frame / 2 + 0.001, "\(name) starts within half a frame of \(boundary)")
            // … and by the station's own clock: the air time of the segment's first byte.
            if let airTime = airTime(ofByte: offsets[index], in: connections) {
                misses.append(airTime - boundary)
                XCTAssertLessThanOrEqual(abs(airTime - boundary), 0.1, "\(name): its first frame was on the air at \(airTime)")
            }
        }
        XCTAssertFalse(misses.isEmpty)
        print("archive cuts against the station's air time (s): \(misses.map { String(format: "%+.3f", $0) }.joined(separator: " "))")

        // The outage is a gap, named, in the ledger of the segments it fell in.
        let gaps = segments.flatMap(\.gaps)
        let missing = gaps.reduce(0.0) { $0 + ($1["seconds"] as? Double ?? 0) }
        XCTAssertFalse(gaps.isEmpty, "\(segments.map(\.ledger))")
        XCTAssertTrue(gaps.allSatisfy { $0["reason"] as? String == "source-down" }, "\(gaps)")
        XCTAssertGreaterThanOrEqual(missing, 4, "\(gaps)")
        XCTAssertLessThanOrEqual(missing, 20, "\(gaps)")
        print("archive outage of 5 s: \(String(format: "%.3f", missing)) s missing in the ledger")
    }

    /// `kill -9` leaves a .part and a ledger without its end; the next recorder into the folder names
    /// the segment and marks its ledger interrupted, and deletes nothing.
    func testTheNextStartFinishesTheSegmentAKilledRecorderLeft() throws {
        let directory = try TemporaryDirectory(self)
        let file = directory.file("source.mp3")
        try LiveSource.makeFile(file, seconds: 6)
        let station = try LiveSource(self, file: file, logDirectory: directory.file("sent"))
        let out = directory.file("out")
        let first = try RecordHarness(self, url: station.url, extra: ["--archive", "1h"], out: out)
        try first.start()
        let parts = { ((FileManager.default.enumerator(atPath: out)?.allObjects as? [String]) ?? []).filter { $0.hasSuffix(".mp3.part") } }
        var size: UInt64 = 0
        XCTAssertTrue(
            poll(timeout: 60) {
                size = parts().first.flatMap { try? FileManager.default.attributesOfItem(atPath: out + "/" + $0)[.size] as? UInt64 } ?? 0
                return size > 50_000
            }, first.stderr)
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        let part = try XCTUnwrap(parts().first)
        let killedBytes = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: out + "/" + part)[.size] as? Int)

        let second = try RecordHarness(self, url: station.url, extra: ["--archive", "1h"], out: out)
        try second.start()
        let ledgerPath = out + "/" + (String(part.dropLast(".part".count)) as NSString).deletingPathExtension + ".jsonl"
        let interrupted = { ((try? String(contentsOfFile: ledgerPath, encoding: .utf8)) ?? "").contains("\"interrupted\"") }
        XCTAssertTrue(poll(timeout: 60) { interrupted() }, second.stderr)
        XCTAssertEqual(second.stop(), 0, second.stderr)
        let renamed = out + "/" + String(part.dropLast(".part".count))
        XCTAssertEqual((try? FileManager.default.attributesOfItem(atPath: renamed)[.size] as? Int) ?? -1, killedBytes, "kept whole, under its own name")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/" + part))
        XCTAssertTrue(second.stderr.contains("left unfinished"), second.stderr)
        let lines = try String(contentsOfFile: ledgerPath, encoding: .utf8).split(separator: "\n")
        let end = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: Any])
        XCTAssertEqual(end["status"] as? String, "interrupted")
        XCTAssertEqual(end["bytes"] as? Int, killedBytes)
        let decoded = try Discovered.run(renamed)
        XCTAssertTrue(decoded.ok, decoded.text)
    }

    /// The air time (station clock, s) of the frame that starts at `offset` of all the bytes sent, joined.
    private func airTime(ofByte offset: Int, in connections: [LiveSource.Connection]) -> Double? {
        var rest = offset
        for connection in connections {
            if rest < connection.bytes.count {
                var position = 0
                var frames = 0
                let bytes = connection.bytes
                while position < rest, position + 3 < bytes.count {
                    guard bytes[position] == 0xFF else { return nil }
                    position += 417 + Int((bytes[position + 2] >> 1) & 1)  // 128 kbit/s at 44.1 kHz, padded or not
                    frames += 1
                }
                return position == rest ? connection.firstFrameAirTime + Double(frames) * connection.frameSeconds : nil
            }
            rest -= connection.bytes.count
        }
        return nil
    }

    private func poll(timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(200_000)
        }
        return condition()
    }
}
