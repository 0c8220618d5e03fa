import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// The now-playing plugin as the desktop's media player, on a private session bus: sleep held off
/// while playing (the Inhibit portal, else the screensaver; Tests/Fixtures/inhibit_service.py speaks
/// each one's documented protocol) and released on pause and stop; Raise reaching the real window.
final class MprisDesktopTests: XCTestCase {
    static func plugins(station url: String, config: String = #"{"notifications": false}"#) -> String {
        """
        {"stations": [{"name": "Test FM", "url": "\(url)"}],
         "plugins": [{"id": "org.oton.now-playing", "path": "\(TestPaths.pluginLibrary("OtonNowPlaying"))", "enabled": true,
                      "config": \(config)}]}
        """
    }

    /// `oton play` of a live MP3 with the now-playing plugin on `bus`.
    private func play(_ bus: PrivateSessionBus, instance: String) async throws -> (OtonProcess, IcecastServer) {
        let server = try await IcecastServer.start()
        addTeardownBlock { server.stop() }
        _ = try await server.startSource(mount: "/awake.mp3", format: .mp3)
        let oton = try OtonProcess(
            self, arguments: ["play", "Test FM", "--headless"], plugins: Self.plugins(station: server.url(mount: "/awake.mp3").absoluteString),
            instance: instance, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        _ = try oton.connect(timeout: 30)
        return (oton, server)
    }

    /// The portal is asked first: flag 4 (suspend) with a reason while playing; its request closed on
    /// pause; a new one when playing again; closed on stop. One per stretch of playing.
    func testThePortalHoldsOffSleepWhilePlayingAndIsReleasedOnPauseAndStop() async throws {
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let portal = try ScriptServer(self, script: "inhibit_service.py", arguments: ["--address", bus.address, "--kind", "portal"], readyPrefix: "READY ")
        let (oton, _) = try await play(bus, instance: "awake")
        func lines(_ word: String) -> [[String]] {
            portal.printed.filter { $0.hasPrefix(word + " ") }.map { $0.split(separator: " ", maxSplits: 3).map(String.init) }
        }
        try await pollUntilTrue(timeout: 60, "an inhibitor while playing; the portal saw \(portal.printed); \(oton.directory.read("stderr.log"))") {
            lines("INHIBIT").count == 1
        }
        let first = lines("INHIBIT")[0]
        XCTAssertEqual(first[1], "4", "the portal's Suspend flag")
        XCTAssertEqual(first.count > 3 ? first[3] : "", "Playing internet radio", "the reason the desktop shows")

        XCTAssertEqual(try oton.ctl(["pause"]).status, 0)
        try await pollUntilTrue(timeout: 30, "released on pause: \(portal.printed)") { lines("RELEASE").map { $0[1] } == [first[2]] }

        XCTAssertEqual(try oton.ctl(["play"]).status, 0)
        try await pollUntilTrue(timeout: 60, "held again when playing: \(portal.printed)") { lines("INHIBIT").count == 2 }
        let second = lines("INHIBIT")[1][2]
        XCTAssertNotEqual(second, first[2], "a new request")

        XCTAssertEqual(try oton.ctl(["stop"]).status, 0)
        try await pollUntilTrue(timeout: 30, "released on stop: \(portal.printed)") { lines("RELEASE").map { $0[1] } == [first[2], second] }
        XCTAssertEqual(lines("INHIBIT").count, 2, "one inhibitor per stretch of playing, not one per state event: \(portal.printed)")
    }

    /// Without a portal, the freedesktop screensaver's Inhibit (KDE, XFCE): its cookie handed back on pause.
    func testWithoutAPortalTheScreensaverIsAskedAndItsCookieReturnedOnPause() async throws {
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let screensaver = try ScriptServer(
            self, script: "inhibit_service.py", arguments: ["--address", bus.address, "--kind", "screensaver"], readyPrefix: "READY ")
        let (oton, _) = try await play(bus, instance: "awake-ss")
        try await pollUntilTrue(timeout: 60, "a screensaver inhibitor while playing: \(screensaver.printed); \(oton.directory.read("stderr.log"))") {
            screensaver.printed.contains { $0.hasPrefix("INHIBIT 0 1 ") }
        }
        XCTAssertEqual(try oton.ctl(["pause"]).status, 0)
        try await pollUntilTrue(timeout: 30, "the cookie returned on pause: \(screensaver.printed)") { screensaver.printed.contains("RELEASE 1") }
    }

    /// CanRaise follows the window (`oton window`, owning OTON_DESKTOP_APP_ID on the bus), and Raise
    /// calls the window's org.freedesktop.Application.Activate, which presents it.
    func testRaiseActivatesTheRunningWindow() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/raise.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let desktop = try await DesktopSession.start(width: 1024, height: 768)
        defer { desktop.stop() }
        let directory = try TemporaryDirectory(self)
        let monitor = try BusMonitor(
            self, bus: desktop.bus, rule: "type='method_call',interface='org.freedesktop.Application',member='Activate'", in: directory,
            name: "activate.log")
        try await monitor.waitUntilListening(desktop.bus)
        let driver = try WindowDriver(
            self, desktop: desktop,
            plugins: Self.plugins(station: server.url(mount: "/raise.mp3").absoluteString).replacingOccurrences(
                of: "\"stations\"", with: "\"default_station\": \"Test FM\", \"stations\""))
        let window = try driver.open(["--instance", "raise", "--size", "800x600"])
        func root(_ name: String) throws -> String {
            try desktop.bus.run(
                "/usr/bin/gdbus",
                [
                    "call", "--session", "--dest", "org.mpris.MediaPlayer2.oton", "--object-path", "/org/mpris/MediaPlayer2",
                    "--method", "org.freedesktop.DBus.Properties.Get", "org.mpris.MediaPlayer2", name,
                ]
            ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        try await pollUntilTrue(timeout: 60, "CanRaise true once the window's player runs; \(driver.log)") { try root("CanRaise") == "(<true>,)" }
        XCTAssertEqual(try root("DesktopEntry"), "(<'\(OTON_DESKTOP_APP_ID)'>,)", "the installed desktop file's id")
        XCTAssertFalse(monitor.text.contains("member=Activate"), "nothing activated the window yet")

        let raise = try desktop.bus.run(
            "/usr/bin/gdbus",
            [
                "call", "--session", "--dest", "org.mpris.MediaPlayer2.oton", "--object-path", "/org/mpris/MediaPlayer2", "--method",
                "org.mpris.MediaPlayer2.Raise",
            ])
        XCTAssertEqual(raise.status, 0, raise.stderr)
        try await pollUntilTrue(timeout: 30, "Activate sent to the window: \(monitor.text)") {
            monitor.text.contains("path=/org/oton/Oton; interface=org.freedesktop.Application; member=Activate")
        }
        XCTAssertTrue(window.isRunning, "the window stays (one per session): \(driver.log)")
        XCTAssertEqual(driver.status(instance: "raise")?["state"]?.stringValue.map { ["playing", "buffering", "connecting"].contains($0) }, true)
    }
}
