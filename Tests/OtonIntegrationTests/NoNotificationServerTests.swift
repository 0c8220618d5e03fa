import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// A desktop (or a server) with a session bus but no notification daemon: the now-playing plugin
/// says so in words, once for the session, never as a raw GDBus error, and MPRIS keeps working; the
/// same for a desktop without an Inhibit portal or screensaver service.
final class NoNotificationServerTests: XCTestCase {
    func testAMissingNotificationServerIsSaidInWordsOnce() async throws {
        let directory = try TemporaryDirectory(self)
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let icecast = try await IcecastServer.start()
        defer { icecast.stop() }
        _ = try await icecast.startSource(mount: "/quiet.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let config = try directory.write(
            "plugins.json",
            """
            {"stations": [{"name": "Quiet FM", "url": "\(icecast.url(mount: "/quiet.mp3").absoluteString)"}],
             "plugins": [{"id": "org.oton.now-playing", "path": "\(TestPaths.pluginLibrary("OtonNowPlaying"))", "enabled": true}]}
            """)
        let (oton, log) = try bus.startOton(["play", "Quiet FM", "--headless", "--no-tui", "--config", config], in: directory)
        defer { oton.stop() }

        func title(_ expected: String) async throws {
            _ = try await pollUntil(timeout: 30, interval: 0.1, "playerctl shows \(expected)") {
                let result = try bus.run("/usr/bin/playerctl", ["-p", "oton", "metadata", "title"])
                return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == expected ? true : nil
            }
        }
        try await title("Song One")
        _ = try await pollUntil(timeout: 20, interval: 0.1, "the first notification's failure is logged") {
            directory.read("oton.log").contains("no notification server is running") ? true : nil
        }
        // A second track tries again and fails the same way: still one line.
        try await icecast.setTitle(mount: "/quiet.mp3", title: "Artist B - Song Two")
        try await title("Song Two")
        oton.stop()  // the plugin's queue is delivered before it is destroyed: every attempt is in the log
        let text = directory.read("oton.log")
        let said = text.components(separatedBy: "no notification server is running").count - 1
        XCTAssertEqual(said, 1, text)
        XCTAssertTrue(text.contains(#"set "notifications": false"#), text)
        // Nor a portal or screensaver to keep the computer awake: said in words, once, across the title change.
        XCTAssertEqual(text.components(separatedBy: "neither the Inhibit portal nor a screensaver service runs").count - 1, 1, text)
        XCTAssertFalse(text.contains("GDBus.Error"), text)
        XCTAssertFalse(text.contains("ServiceUnknown"), text)
    }
}
