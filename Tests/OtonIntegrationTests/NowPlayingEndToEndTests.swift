import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `oton play` of a real Icecast mount with both plugins enabled: playerctl
/// shows the title, mpris:artUrl points at the cached cover, and the track's
/// notification carries it.
final class NowPlayingEndToEndTests: XCTestCase {
    func testOtonPlayShowsTheTitleTheCachedCoverAndANotification() async throws {
        let directory = try TemporaryDirectory(self)
        let images = try ArtworkTests.makeImages(directory)
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let notifications = try await NotificationServer.start(on: bus)
        defer { notifications.stop() }
        let icecast = try await IcecastServer.start()
        defer { icecast.stop() }
        _ = try await icecast.startSource(mount: "/e2e.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let http = try LocalHTTPServer.start(routes: ["/covers/a.png": ArtworkTests.image(images.png, "image/png")])
        defer { http.stop() }
        http.setRoute(
            "/stations/e2e/status",
            ArtworkTests.status(
                title: "Artist A - Song One", artwork: http.url("/covers/a.png").absoluteString,
                logo: http.url("/station_logos/e2e.png").absoluteString))

        let config = try directory.write(
            "plugins.json",
            """
            {"default_station": "E2E FM",
             "stations": [{"name": "E2E FM", "url": "\(icecast.url(mount: "/e2e.mp3").absoluteString)",
                           "status_url": "\(http.url("/stations/e2e/status").absoluteString)"}],
             "plugins": [
              {"id": "org.oton.artwork", "path": "\(TestPaths.pluginLibrary("OtonArtwork"))", "enabled": true,
               "config": {"status_retry_seconds": [0.5, 1, 1.5], "timeout_seconds": 5}},
              {"id": "org.oton.now-playing", "path": "\(TestPaths.pluginLibrary("OtonNowPlaying"))", "enabled": true}]}
            """)
        let (oton, log) = try bus.startOton(["play", "--headless", "--no-tui", "--config", config], in: directory)
        defer { oton.stop() }

        func metadata(_ key: String, until expected: @escaping @Sendable (String) -> Bool) async throws -> String {
            do {
                return try await pollUntil(timeout: 20, interval: 0.1, "playerctl metadata \(key)") {
                    let result = try bus.run("/usr/bin/playerctl", ["-p", "oton", "metadata", key])
                    let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    return result.status == 0 && expected(text) ? text : nil
                }
            } catch {
                XCTFail("oton's log:\n\(directory.read("oton.log"))")
                throw error
            }
        }
        let title = try await metadata("title") { $0 == "Song One" }
        XCTAssertEqual(title, "Song One")
        let artist = try await metadata("artist") { !$0.isEmpty }
        XCTAssertEqual(artist, "Artist A")
        let artURL = try await metadata("mpris:artUrl") { $0.hasPrefix("file://") }
        let cacheDirectory = directory.file("cache") + "/oton/artwork/"
        XCTAssertTrue(artURL.hasPrefix("file://" + cacheDirectory) && artURL.hasSuffix(".png"), artURL)
        let cached = String(artURL.dropFirst("file://".count))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: cached)), images.png)

        let note = try await notifications.waitForCall(timeout: 20) { $0.summary == "Song One" && $0.hints["image-path"] != nil }
        XCTAssertEqual(note.hints["image-path"], cached)
        XCTAssertTrue(note.body.hasPrefix("Artist A"), note.body)
        let status = try bus.run("/usr/bin/playerctl", ["-p", "oton", "status"])
        XCTAssertEqual(status.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "Playing")
        XCTAssertFalse(directory.read("oton.log").contains(" error "), directory.read("oton.log"))
    }
}
