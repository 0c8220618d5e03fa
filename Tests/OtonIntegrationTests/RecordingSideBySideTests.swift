import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// Two `oton record` processes, two stations, one output folder: neither disturbs the other.
final class RecordingSideBySideTests: XCTestCase {
    func testTwoProcessesRecordTwoStationsIntoOneFolderWithoutInterfering() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/north.mp3", format: .mp3, initialTitle: "North A - One", stationName: "North FM")
        _ = try await server.startSource(mount: "/south.ogg", format: .ogg, initialTitle: "South A - One", stationName: "South FM")
        let shared = try TemporaryDirectory(self).file("recordings")
        let north = try RecordHarness(self, url: server.url(mount: "/north.mp3").absoluteString, out: shared)
        let south = try RecordHarness(self, url: server.url(mount: "/south.ogg").absoluteString, out: shared)
        try north.start()
        try south.start()
        XCTAssertNotNil(north.waitForEvent("org.oton.recording.started"), north.stderr)
        XCTAssertNotNil(south.waitForEvent("org.oton.recording.started"), south.stderr)
        // Both change title at the same moments, so their index updates race.
        for round in ["Two", "Three"] {
            try await Task.sleep(nanoseconds: 3_000_000_000)
            try await server.setTitle(mount: "/north.mp3", title: "North B - \(round)")
            try await server.setTitle(mount: "/south.ogg", title: "South B - \(round)")
            XCTAssertNotNil(north.waitForEvent("track", timeout: 10) { $0["title"] == round }, north.stderr)
            XCTAssertNotNil(south.waitForEvent("track", timeout: 10) { $0["title"] == round }, south.stderr)
        }
        try await Task.sleep(nanoseconds: 1_500_000_000)
        XCTAssertEqual(north.stop(), 0, north.stderr)
        XCTAssertEqual(south.stop(), 0, south.stderr)

        let files = north.files()
        XCTAssertTrue(files.contains("North FM/North B - Two.mp3"), "\(files)")
        XCTAssertTrue(files.contains("South FM/incomplete/South A - One.ogg") || files.contains("South FM/South A - One.ogg"), "\(files)")
        XCTAssertTrue(files.contains("South FM/South B - Two.ogg"), "\(files)")
        XCTAssertFalse(files.contains { $0.hasSuffix(".part") || $0.contains(".tmp-") }, "\(files)")
        for file in files where file.hasSuffix(".mp3") || file.hasSuffix(".ogg") {
            let found = try Discovered.run(shared + "/" + file)
            XCTAssertTrue(found.ok, "\(file): \(found.text)")
            // Nothing of one station in the other's files.
            XCTAssertEqual(file.hasPrefix("North"), file.hasSuffix(".mp3"), file)
        }
        // One index for both: every track of both sessions, none lost to the other's rewrite.
        let tracks = try XCTUnwrap(north.index()["tracks"] as? [[String: Any]])
        let byStream = Dictionary(grouping: tracks) { $0["stream_url"] as? String ?? "?" }
        XCTAssertEqual(Set(byStream.keys), [server.url(mount: "/north.mp3").absoluteString, server.url(mount: "/south.ogg").absoluteString])
        for (stream, entries) in byStream {
            XCTAssertEqual(entries.map { $0["title"] as? String }, ["One", "Two", "Three"], stream)
            XCTAssertEqual(Set(entries.compactMap { $0["session"] as? String }).count, 1, stream)
            XCTAssertFalse(entries.contains { $0["status"] as? String == "recording" }, "every track was finished: \(stream)")
        }
        let indexed = Set(tracks.compactMap { $0["file"] as? String })
        XCTAssertEqual(indexed, Set(files.filter { $0 != "index.json" }), "the index lists exactly the files on disk")
    }
}
