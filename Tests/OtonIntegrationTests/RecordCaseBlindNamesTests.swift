import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `--names portable` (the default): FAT, exFAT and SMB ignore case, so two songs whose names differ
/// only in case get two names there too ("… (2)"); `--names posix` keeps the names as they are.
final class RecordCaseBlindNamesTests: XCTestCase {
    func testPortableNamesKeepSongsThatDifferOnlyInCaseApart() async throws {
        let files = try await record(titles: ["Artist - Song", "ARTIST - song"], extra: [])
        XCTAssertEqual(
            files.filter { $0.hasPrefix("Oton Test FM/") && !$0.contains("/incomplete/") },
            ["Oton Test FM/ARTIST - song (2).mp3", "Oton Test FM/Artist - Song.mp3"])
    }

    func testPosixNamesKeepTheCaseAsItIs() async throws {
        let files = try await record(titles: ["Artist - Song", "ARTIST - song"], extra: ["--names", "posix"])
        XCTAssertEqual(
            files.filter { $0.hasPrefix("Oton Test FM/") && !$0.contains("/incomplete/") },
            ["Oton Test FM/ARTIST - song.mp3", "Oton Test FM/Artist - Song.mp3"])
    }

    /// Records the first title (cut in the middle, so it goes to incomplete/), then each of `titles`
    /// whole, then a last one that the stop cuts. Returns the files, after checking they are all inside
    /// the output folder and oton exited with 0.
    private func record(titles: [String], extra: [String]) async throws -> [String] {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/case.mp3", format: .mp3, initialTitle: "Someone - First", stationName: "Oton Test FM")
        let harness = try RecordHarness(self, url: server.url(mount: "/case.mp3").absoluteString, extra: extra)
        try harness.start()
        XCTAssertNotNil(harness.waitForEvent("org.oton.recording.started"), harness.stderr)
        for (index, title) in (titles + ["Someone - Last"]).enumerated() {
            try await Task.sleep(nanoseconds: 2_000_000_000)  // what each file holds
            try await server.setTitle(mount: "/case.mp3", title: title)
            let song = String(title.split(separator: "-").last!).trimmingCharacters(in: .whitespaces)
            XCTAssertNotNil(harness.waitForEvent("track", timeout: 30) { $0["title"] == song }, "track \(index): \(harness.stderr)")
        }
        try await Task.sleep(nanoseconds: 2_000_000_000)
        XCTAssertEqual(harness.stop(), 0, harness.stderr)
        let files = harness.files()
        XCTAssertTrue(files.allSatisfy { !$0.hasPrefix("/") && !$0.contains("..") }, "\(files)")
        XCTAssertEqual(harness.finishedEvents().count, titles.count + 2, "\(harness.finishedEvents())\n\(harness.stderr)")
        return files
    }
}
