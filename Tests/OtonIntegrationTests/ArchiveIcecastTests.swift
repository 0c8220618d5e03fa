import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `oton record --all --archive` against a real Icecast fed by gst-launch-1.0: two stations (Ogg
/// Vorbis and MP3) in one process on the light engine, archive segments and track files together,
/// a source killed for 5 s, and a size retention that removes the oldest segments as new ones end.
final class ArchiveIcecastTests: XCTestCase {
    func testManyStationsArchiveOggAndMP3WithTracksAnOutageAndARetention() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        let ogg = try await server.startSource(mount: "/a.ogg", format: .ogg, initialTitle: "Artist A - One", stationName: "Ogg FM")
        _ = try await server.startSource(mount: "/b.mp3", format: .mp3, initialTitle: "Artist B - One", stationName: "MP3 FM")
        let config =
            #"{"stations": [{"name": "Ogg FM", "url": "\#(server.url(mount: "/a.ogg"))"}, {"name": "MP3 FM", "url": "\#(server.url(mount: "/b.mp3"))"}], "plugins": []}"#
        let recorder = try RecordHarness(self, url: "--all", extra: ["--archive", "10s", "--tracks", "--keep-size", "420K"], config: config)
        try recorder.start()
        let archived = { (station: String) in
            recorder.finishedEvents().filter { $0["status"] == "archive" && ($0["path"] ?? "").contains("/\(station)/") }
        }
        let started = await poll(timeout: 60) { !archived("Ogg FM").isEmpty && !archived("MP3 FM").isEmpty }
        XCTAssertTrue(started, recorder.stderr)
        try await server.setTitle(mount: "/b.mp3", title: "Artist B - Two")
        ogg.kill()
        try await server.waitForMountGone("/a.ogg")
        try await Task.sleep(nanoseconds: 5_000_000_000)  // the outage itself: the source stays away for 5 s
        try await ogg.restart()
        let before = archived("Ogg FM").count
        let crossed = await poll(timeout: 90) { archived("Ogg FM").count >= before + 2 && archived("MP3 FM").count >= 4 }
        XCTAssertTrue(crossed, recorder.stderr)
        XCTAssertEqual(recorder.stop(), 0, recorder.stderr)

        // Ogg: every segment decodes on its own and opens with its stream's header pages; the outage is in a ledger.
        let oggSegments = try ArchiveSegments(recorder.out + "/Ogg FM").segments
        XCTAssertGreaterThanOrEqual(oggSegments.count, 2)
        for segment in oggSegments {
            let name = (segment.path as NSString).lastPathComponent
            XCTAssertTrue(segment.path.hasSuffix(".ogg"), name)
            XCTAssertEqual(Array(segment.bytes.prefix(4)), Array("OggS".utf8), name)
            XCTAssertEqual(segment.bytes.count > 5 ? segment.bytes[5] & 2 : 0, 2, "\(name) begins with a BOS page (the headers)")
            if (segment.summary?["frames"] as? Int ?? 0) >= 3 || !segment.fromBoundary {  // a page or two after a boundary, then SIGTERM: too short to type
                let decoded = try Discovered.run(segment.path)
                XCTAssertTrue(decoded.ok, "\(name): \(decoded.text)")
            }
            XCTAssertEqual(segment.summary?["codec"] as? String, "vorbis", name)
            if segment.fromBoundary {
                XCTAssertGreaterThan(segment.summary?["header_bytes"] as? Int ?? 0, 0, "\(name) repeats the headers")
                let boundary = (segment.startUnix / 10).rounded() * 10
                XCTAssertLessThanOrEqual(abs(segment.startUnix - boundary), 0.2, "\(name) starts at the page nearest \(boundary)")
            }
        }
        let oggGaps = oggSegments.flatMap(\.gaps)
        XCTAssertFalse(oggGaps.isEmpty, "\(oggSegments.map(\.ledger))")
        XCTAssertTrue(oggGaps.allSatisfy { ["source-down", "reconnect"].contains($0["reason"] as? String ?? "") }, "\(oggGaps)")
        XCTAssertGreaterThanOrEqual(oggGaps.reduce(0.0) { $0 + ($1["seconds"] as? Double ?? 0) }, 4, "\(oggGaps)")

        // MP3: the retention kept the newest within 420 KiB (the segment being written included) and removed the rest, ledgers too.
        let mp3Segments = try ArchiveSegments(recorder.out + "/MP3 FM").segments
        XCTAssertLessThan(mp3Segments.count, archived("MP3 FM").count + 1, "older segments were removed: \(mp3Segments.map(\.path))")
        let kept = mp3Segments.reduce(0) { $0 + $1.bytes.count }
        XCTAssertLessThanOrEqual(kept, 420 * 1024 + 200_000, "at most the limit plus the last segment, written after the last check")
        XCTAssertTrue(recorder.stderr.contains("retention: removed"), recorder.stderr)
        for segment in mp3Segments {
            // GStreamer's typefinder needs 3 frames: the last segment, cut by SIGTERM just after a boundary, may have fewer.
            if (segment.summary?["frames"] as? Int ?? 0) >= 3 { XCTAssertTrue(try Discovered.run(segment.path).ok, segment.path) }
            XCTAssertEqual(Array(segment.bytes.prefix(2)), [0xFF, 0xFB], "\(segment.path) starts on a frame")
            XCTAssertNotNil(segment.summary, "every kept segment has its ledger")
        }
        let titles = mp3Segments.flatMap { $0.ledger.filter { $0["type"] as? String == "title" }.compactMap { $0["title"] as? String } }
        XCTAssertTrue(titles.contains("Two"), "the ledger's cue sheet: \(titles)")
        // Track files run beside the archive, with their index.
        XCTAssertTrue(FileManager.default.fileExists(atPath: recorder.out + "/MP3 FM/index.json"))
        XCTAssertTrue(recorder.files().contains { $0.hasPrefix("MP3 FM/") && $0.contains("Artist B - ") && $0.hasSuffix(".mp3") }, "\(recorder.files())")
    }

    private func poll(timeout: TimeInterval, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 200_000_000)
        }
        return condition()
    }
}
