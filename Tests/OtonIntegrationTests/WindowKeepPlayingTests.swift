import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// "Keep playing when the window closes" (the tray plugin's keep_playing): `oton window` under Xvfb,
/// driven through AT-SPI, its player heard at a PulseAudio null sink. Closed with the preference on,
/// the window leaves its player playing, and a new `oton window` attaches to it; the preference's
/// switch writes plugins.json; closed with it off, the window's player stops as it always did.
final class WindowKeepPlayingTests: XCTestCase {
    private static let preference = "Keep playing when the window closes"

    func testClosingKeepsThePlayerWhenAskedAWindowAttachesAgainAndOffItStops() async throws {
        try XCTSkipUnless(PulseAudioServer.isInstalled, "pulseaudio and pulseaudio-utils (scripts/bootstrap installs them)")
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/lab.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Lab FM")
        let desktop = try await DesktopSession.start(width: 1280, height: 844)
        defer { desktop.stop() }
        let scratch = try TemporaryDirectory(self)
        let pulse = try PulseAudioServer(directory: scratch.file("pulse"))
        defer { pulse.stop() }
        let sink = scratch.file("sink.raw")
        try pulse.record(into: sink)
        let plugins = """
            {"default_station": "Lab FM", "stations": [{"name": "Lab FM", "url": "\(server.url(mount: "/lab.mp3").absoluteString)"}],
             "plugins": [{"id": "org.oton.tray", "path": "\(TestPaths.pluginLibrary("OtonTray"))", "enabled": true, "config": {"keep_playing": true}}]}
            """
        let driver = try WindowDriver(self, desktop: desktop, plugins: plugins, extra: ["PULSE_SERVER": try XCTUnwrap(pulse.environment["PULSE_SERVER"])])
        let instance = "keep"
        defer { _ = try? runProcess(TestPaths.oton, ["ctl", "--instance", instance, "quit"], environment: driver.environment) }
        func state() -> String? { driver.status(instance: instance)?["state"]?.stringValue }
        func step(_ what: String) { FileHandle.standardError.write(Data("[step] \(what)\n".utf8)) }

        step("open the first window")
        let first = try driver.open(["--instance", instance, "--size", "800x700"])
        XCTAssertTrue(driver.waitForText("Title") { $0 == "Song One" }.matched, "the window plays: \(driver.log)")
        try await pollUntilTrue(timeout: 60, "the window's player playing") { state() == "playing" }
        let player = DesktopSession.descendants(of: first.pid)
        XCTAssertFalse(player.isEmpty, "the window started its own player")

        step("close it")
        // Ctrl+W closes the window; its player goes on, and is heard.
        XCTAssertNotNil(driver.drive(["keys", "Control_L+w"]))
        XCTAssertTrue(first.waitForExit(timeout: 60), "Ctrl+W closes the (only) window: \(driver.log)")
        XCTAssertEqual(state(), "playing", "the player outlives its window: \(driver.log)")
        let heard = try SinkRecording(file: sink).recorded(from: HeardSound.count(in: sink), seconds: 2)
        XCTAssertGreaterThan(heard.rms(0..<heard.samples.count), 0.01, "the station is heard with the window closed")
        XCTAssertTrue(player.allSatisfy { kill($0, 0) == 0 }, "the same player")
        XCTAssertTrue(driver.log.contains("playing on"), "the player says it goes on: \(driver.log)")

        step("open the second window")
        // `oton window` again attaches to it: the title shows, and no player of its own runs below it.
        let second = try driver.open(["--instance", instance, "--size", "800x700"], log: "second.log")
        XCTAssertTrue(driver.waitForText("Title") { $0 == "Song One" }.matched, driver.directory.read("second.log"))
        XCTAssertTrue(DesktopSession.descendants(of: second.pid).isEmpty, "it attached to the running player")

        step("the preference")
        // The preference: on, as plugins.json says; switched off, plugins.json and the player say off.
        // By its button: with no window manager, the keyboard's focus left with the first window.
        XCTAssertTrue(driver.press("Preferences"), driver.tree())
        // The switch (GTK 4.8 gives it AT-SPI's check-box role), not its row of the same name.
        func switchStates() -> [String] { driver.states(Self.preference, role: "check box") ?? [] }
        do {
            try await pollUntilTrue(timeout: 60, "the preference shown on") { switchStates().contains("checked") && switchStates().contains("sensitive") }
        } catch {
            XCTFail("\(switchStates()) \(driver.tree()); running: \(second.isRunning); \(driver.directory.read("second.log"))")
            throw error
        }
        XCTAssertTrue(driver.press(Self.preference), driver.tree())
        try await pollUntilTrue(timeout: 60, "plugins.json with keep_playing false") {
            driver.directory.read("plugins.json").contains("\"keep_playing\": false")
        }
        let told = try runProcess(TestPaths.oton, ["ctl", "--instance", instance, "background", "--format", "json"], environment: driver.environment)
        XCTAssertEqual(told.stdout.trimmingCharacters(in: .whitespacesAndNewlines), #"{"keep_playing":false}"#, told.stderr)

        step("off")
        // Off: a window that starts its own player stops it when it closes, as it always did.
        XCTAssertEqual(try runProcess(TestPaths.oton, ["ctl", "--instance", instance, "quit"], environment: driver.environment).status, 0)
        try await pollUntilTrue(timeout: 60, "the player quit") { player.allSatisfy { kill($0, 0) != 0 } }
        second.stop()
        let third = try driver.open(["--instance", instance, "--size", "800x700"], log: "third.log")
        XCTAssertTrue(driver.waitForText("Title") { $0 == "Song One" }.matched, driver.directory.read("third.log"))
        let ownPlayer = DesktopSession.descendants(of: third.pid)
        XCTAssertFalse(ownPlayer.isEmpty, "a player of its own again")
        XCTAssertTrue(driver.press("Close"), driver.tree())  // the header bar's close button
        XCTAssertTrue(third.waitForExit(timeout: 60))
        try await pollUntilTrue(timeout: 60, "the window's player stopped with it") { ownPlayer.allSatisfy { kill($0, 0) != 0 } }
        XCTAssertNil(driver.status(instance: instance), "no player is left behind")
    }
}
