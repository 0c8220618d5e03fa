import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `oton record` on the URLs stations publish: a live HLS playlist (per-track ADTS AAC
/// files cut at the timed ID3 titles) and a PLS playlist in front of an Icecast stream.
final class HLSRecordTests: XCTestCase {
    func testRecordingHLSWritesAPlayableAACFilePerTrack() async throws {
        let station = try HLSStation(self)
        let harness = try RecordHarness(self, url: station.url("/live.m3u8"))
        try harness.start()
        XCTAssertNotNil(harness.waitForEvent("track", timeout: 20) { $0["title"] == "Song One" }, harness.stderr)
        try station.setTitle(artist: "Artist B", title: "Song Two")
        XCTAssertNotNil(harness.waitForEvent("track", timeout: 20) { $0["title"] == "Song Two" }, harness.stderr)
        // Song Two is recorded from its first segment; a third title completes it.
        try await Task.sleep(nanoseconds: 3_000_000_000)
        try station.setTitle(artist: "Artist C", title: "Song Three")
        XCTAssertNotNil(harness.waitForEvent("org.oton.recording.finished", timeout: 20) { $0["path"]?.hasSuffix("Artist B - Song Two.aac") == true },
                        "\(harness.finishedEvents())\n\(harness.stdout)")
        XCTAssertEqual(harness.stop(), 0, harness.stderr)

        let files = harness.files()
        let complete = try XCTUnwrap(files.first { $0.hasSuffix("Artist B - Song Two.aac") && !$0.contains("/incomplete/") },
                                     "Song Two is a complete file: \(files)\n\(harness.stdout)")
        let discovered = try Discovered.run(harness.out + "/" + complete)
        XCTAssertTrue(discovered.ok, discovered.text)
        XCTAssertTrue(discovered.text.contains("MPEG-4 AAC"), discovered.text)
        XCTAssertGreaterThan(discovered.seconds, 2, discovered.text)
        let head = try XCTUnwrap(FileHandle(forReadingAtPath: harness.out + "/" + complete)?.readData(ofLength: 2))
        XCTAssertEqual(Array(head), [0xFF, 0xF1], "the file starts on an ADTS frame, not on ID3 or MPEG-TS")
        XCTAssertTrue(files.contains { $0.hasSuffix("Artist A - Song One.aac") }, "the first track, begun before the recording: \(files)")
    }

    func testRecordingAPlaylistURLRecordsItsStream() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/pls.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let http = try LocalHTTPServer.start()
        defer { http.stop() }
        let dead = "http://127.0.0.1:\(try FreePort.allocate())/stream"
        let body = "[playlist]\nFile1=\(dead)\nFile2=\(server.url(mount: "/pls.mp3").absoluteString)\n"
        http.setRoute("/listen.pls", CannedResponse(headers: ["Content-Type": "audio/x-scpls"], body: Data(body.utf8)))
        let harness = try RecordHarness(self, url: http.url("/listen.pls").absoluteString, extra: ["--duration", "3s"])
        try harness.start()
        XCTAssertEqual(harness.waitForExit(timeout: 30), 0, harness.stderr)
        let files = harness.files()
        let recorded = try XCTUnwrap(files.first { $0.hasSuffix("Artist A - Song One.mp3") }, "\(files)\n\(harness.stderr)")
        XCTAssertTrue(try Discovered.run(harness.out + "/" + recorded).ok)
    }
}
