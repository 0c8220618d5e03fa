import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// MPRIS over timeshift (docs/timeshift.md), driven by playerctl on a private session bus: CanSeek,
/// Position (how far into the ring), Seek and SetPosition move what a real `oton play` plays.
final class MprisTimeshiftTests: XCTestCase {
    func testPlayerctlSeeksBackAndSetsThePositionInTheRing() async throws {
        let directory = try TemporaryDirectory(self)
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let station = try await TimeshiftStation.start(self)
        let config = try directory.write(
            "plugins.json",
            """
            {"stations": [{"name": "Steps", "url": "\(station.url)"}],
             "plugins": [{"id": "org.oton.now-playing", "path": "\(TestPaths.pluginLibrary("OtonNowPlaying"))", "enabled": true,
                          "config": {"notifications": false}}]}
            """)
        let (oton, log) = try bus.startOton(
            ["play", "Steps", "--headless", "--no-tui", "--no-control", "--timeshift", "10m", "--config", config], in: directory)
        defer { oton.stop() }
        func playerctl(_ words: [String]) throws -> String {
            try bus.run("/usr/bin/playerctl", ["-p", "oton"] + words).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func position() throws -> Double { Double(try playerctl(["position"])) ?? -1 }

        _ = try await pollUntil(timeout: 60, interval: 0.2, "playing Song One") {
            try playerctl(["metadata", "title"]) == "Song One" ? true : nil
        }
        try await Task.sleep(for: .seconds(20))
        let canSeek = try bus.run(
            "/usr/bin/gdbus",
            [
                "call", "--session", "--dest", "org.mpris.MediaPlayer2.oton",
                "--object-path", "/org/mpris/MediaPlayer2", "--method",
                "org.freedesktop.DBus.Properties.Get", "org.mpris.MediaPlayer2.Player", "CanSeek",
            ])
        XCTAssertTrue(canSeek.stdout.contains("true"), canSeek.stdout + canSeek.stderr + directory.read("oton.log"))
        let live = try position()
        XCTAssertGreaterThan(live, 15, "at live, the position is what the ring holds")

        XCTAssertEqual(try bus.run("/usr/bin/playerctl", ["-p", "oton", "position", "10-"]).status, 0)
        let back = try await pollUntil(timeout: 10, interval: 0.2, "the position moved back") {
            let now = try position()
            return now >= 0 && now < live - 5 ? now : nil
        }
        XCTAssertEqual(back, live - 10, accuracy: 3, "Seek(-10 s): 10 s back")

        XCTAssertEqual(try bus.run("/usr/bin/playerctl", ["-p", "oton", "position", "3"]).status, 0)
        let set = try await pollUntil(timeout: 10, interval: 0.2, "the position set") {
            let now = try position()
            return now >= 0 && now < 8 ? now : nil
        }
        XCTAssertEqual(set, 3, accuracy: 3, "SetPosition(3 s)")
        XCTAssertEqual(try playerctl(["status"]), "Playing", directory.read("oton.log"))
    }
}
