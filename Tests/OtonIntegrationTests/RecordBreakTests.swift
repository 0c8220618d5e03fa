import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `oton record` (a parse-only pipeline) through an ad break: the empty ICY title ends the song's
/// file, the break is a file of its own, and the next song gets a whole file.
final class RecordBreakTests: XCTestCase {
    func testABreakEndsTheSongsFileAndIsRecordedApart() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/ads.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Oton Test FM")
        let harness = try RecordHarness(self, url: server.url(mount: "/ads.mp3").absoluteString)
        try harness.start()
        XCTAssertNotNil(harness.waitForEvent("org.oton.recording.started"), harness.stderr)
        try await Task.sleep(nanoseconds: 2_000_000_000)  // what the test records of each part
        try await server.setTitle(mount: "/ads.mp3", title: "")
        XCTAssertNotNil(harness.waitForEvent("track") { $0["break"] == "1" }, "the recorder's host sees the break: \(harness.stderr)")
        try await Task.sleep(nanoseconds: 3_000_000_000)
        try await server.setTitle(mount: "/ads.mp3", title: "Artist B - Song Two")
        XCTAssertNotNil(harness.waitForEvent("track") { $0["title"] == "Song Two" })
        try await Task.sleep(nanoseconds: 3_000_000_000)
        try await server.setTitle(mount: "/ads.mp3", title: "Artist C - Song Three")
        XCTAssertNotNil(harness.waitForEvent("track") { $0["title"] == "Song Three" })
        try await Task.sleep(nanoseconds: 3_000_000_000)
        XCTAssertEqual(harness.stop(), 0, harness.stderr)

        XCTAssertEqual(
            harness.files(),
            [
                "Oton Test FM/Artist B - Song Two.mp3", "Oton Test FM/Oton Test FM - Break.mp3",
                "Oton Test FM/incomplete/Artist A - Song One.mp3", "Oton Test FM/incomplete/Artist C - Song Three.mp3",
                "index.json",
            ], harness.stderr)
        // The break lasts from its track event to Song Two's (what the recorder cuts at).
        let tracks = harness.events.filter { $0["kind"] as? String == "track" }
        let startOf = { (match: ([String: String]) -> Bool) in tracks.first { match(harness.fields($0)) }?["mono_ns"] as? Double }
        let breakStart = try XCTUnwrap(startOf { $0["break"] == "1" })
        let songTwoStart = try XCTUnwrap(startOf { $0["title"] == "Song Two" })
        let breakFile = try Discovered.run(harness.out + "/Oton Test FM/Oton Test FM - Break.mp3")
        XCTAssertTrue(breakFile.ok, breakFile.text)
        XCTAssertEqual(breakFile.seconds, (songTwoStart - breakStart) / 1e9, accuracy: 1.0, breakFile.text)
        XCTAssertTrue(breakFile.text.contains("title: Break"), breakFile.text)
        print("[measure] break file \(breakFile.seconds) s, break events \((songTwoStart - breakStart) / 1e9) s apart")
    }
}
