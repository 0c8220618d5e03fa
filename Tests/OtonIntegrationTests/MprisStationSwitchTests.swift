import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// MPRIS Next / Previous / OpenUri switch stations in a real `oton play`, driven by playerctl on a
/// private session bus (issue 14.1); CanGoNext is true with more than one station.
final class MprisStationSwitchTests: XCTestCase {
    func testPlayerctlNextPreviousAndOpenSwitchStations() async throws {
        let directory = try TemporaryDirectory(self)
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let icecast = try await IcecastServer.start()
        defer { icecast.stop() }
        _ = try await icecast.startSource(mount: "/one.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        _ = try await icecast.startSource(mount: "/two.mp3", format: .mp3, initialTitle: "Artist B - Song Two")
        _ = try await icecast.startSource(mount: "/three.mp3", format: .mp3, initialTitle: "Artist C - Song Three")
        let config = try directory.write(
            "plugins.json",
            """
            {"default_station": "One",
             "stations": [{"name": "One", "url": "\(icecast.url(mount: "/one.mp3").absoluteString)"},
                          {"name": "Two", "url": "\(icecast.url(mount: "/two.mp3").absoluteString)"}],
             "plugins": [{"id": "org.oton.now-playing", "path": "\(TestPaths.pluginLibrary("OtonNowPlaying"))", "enabled": true,
                          "config": {"notifications": false}}]}
            """)
        let (oton, log) = try bus.startOton(["play", "--headless", "--no-tui", "--no-control", "--config", config], in: directory)
        defer { oton.stop() }

        func title(_ expected: String) async throws {
            do {
                _ = try await pollUntil(timeout: 20, interval: 0.1, "playerctl title \(expected)") {
                    let result = try bus.run("/usr/bin/playerctl", ["-p", "oton", "metadata", "title"])
                    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == expected ? true : nil
                }
            } catch {
                XCTFail("oton's log:\n\(directory.read("oton.log"))")
                throw error
            }
        }
        try await title("Song One")
        let canGoNext = try bus.run(
            "/usr/bin/gdbus",
            [
                "call", "--session", "--dest", "org.mpris.MediaPlayer2.oton",
                "--object-path", "/org/mpris/MediaPlayer2", "--method",
                "org.freedesktop.DBus.Properties.Get", "org.mpris.MediaPlayer2.Player", "CanGoNext",
            ])
        XCTAssertTrue(canGoNext.stdout.contains("true"), canGoNext.stdout + canGoNext.stderr)
        XCTAssertEqual(try bus.run("/usr/bin/playerctl", ["-p", "oton", "next"]).status, 0)
        try await title("Song Two")
        XCTAssertEqual(try bus.run("/usr/bin/playerctl", ["-p", "oton", "previous"]).status, 0)
        try await title("Song One")
        let open = try bus.run("/usr/bin/playerctl", ["-p", "oton", "open", icecast.url(mount: "/three.mp3").absoluteString])
        XCTAssertEqual(open.status, 0, open.stderr)
        try await title("Song Three")
        let refused = try bus.run(
            "/usr/bin/gdbus",
            [
                "call", "--session", "--dest", "org.mpris.MediaPlayer2.oton",
                "--object-path", "/org/mpris/MediaPlayer2", "--method",
                "org.mpris.MediaPlayer2.Player.OpenUri", "file:///etc/passwd",
            ])
        XCTAssertNotEqual(refused.status, 0, "only http(s) URLs are opened")
        XCTAssertTrue(refused.stderr.contains("InvalidArgs"), refused.stderr)
    }
}
