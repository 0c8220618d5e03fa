import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// The sleep timer on the terminal status line (`oton play` in a real 80×24 tmux, a real Icecast
/// mount): setting it keeps station and title on the line and shows the countdown once; while the
/// fade plays the line says it fades, and only once playback has stopped does it say so.
final class TerminalSleepLineTests: XCTestCase {
    func testTheSleepTimerKeepsTheLineAndSaysStoppedOnlyAfterTheFade() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let config = try directory.write(
            "plugins.json",
            """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
             "plugins": [{"id": "org.oton.sleep-timer", "path": "\(TestPaths.pluginLibrary("OtonSleepTimer"))",
                          "config": {"fade_seconds": 4, "action": "stop"}}]}
            """)
        let run = directory.file("run")
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let command = """
            env -u DISPLAY -u WAYLAND_DISPLAY -u LC_ALL -u LC_MESSAGES -u LANGUAGE LANG=C.UTF-8 XDG_RUNTIME_DIR='\(run)' XDG_DATA_HOME='\(directory.file("data"))' \
            XDG_CACHE_HOME='\(directory.file("cache"))' PULSE_SERVER=unix:/nonexistent \
            '\(TestPaths.oton)' play 'Test FM' --config '\(config)' --instance sleepline 2>&1
            """
        let terminal = try TmuxTerminal(self, command: command)
        let status = { (rows: [String]) in rows.last { !$0.isEmpty } ?? "" }
        try terminal.waitForScreen("playing the first track") { status($0).contains("▶ playing") && status($0).contains("Song One") }

        // s: the first preset. The countdown shows once, and station and title keep their place.
        try terminal.type("s")
        let sleepPattern = #"sleep \d+:\d\d"#
        let countdown = { (rows: [String]) in status(rows).range(of: sleepPattern, options: .regularExpression).map { String(status(rows)[$0]) } }
        let first = try XCTUnwrap(countdown(try terminal.waitForScreen("the sleep countdown") { countdown($0) != nil }))
        // A second later the plugin's reply to the key (which comes after its event) has long arrived.
        let rows = try terminal.waitForScreen("the countdown to move on from \(first)") { countdown($0).map { $0 != first } ?? false }
        let line = status(rows)
        XCTAssertTrue(line.contains("Test FM"), "the station stays on the line: \(line)")
        XCTAssertTrue(line.contains("Artist A – Song One"), "the title stays on the line: \(line)")
        let countdowns = line.matches(of: #/\d+:\d\d/#).count
        XCTAssertEqual(countdowns, 2, "the track time and one sleep countdown, no second one: \(line)")
        XCTAssertFalse(line.localizedCaseInsensitiveContains("sleep timer:"), "no repeat of the timer in words: \(line)")

        // The timer fires with a 4 s fade: while it plays the line says it fades, never "stopped".
        let ctl = try runProcess(TestPaths.oton, ["ctl", "--instance", "sleepline", "sleep", "1s"], environment: ["XDG_RUNTIME_DIR": run])
        XCTAssertEqual(ctl.status, 0, ctl.stderr)
        let fading = try terminal.waitForScreen("the fade") { status($0).contains("fading") }
        XCTAssertTrue(status(fading).contains("▶ playing"), "the fade plays: \(status(fading))")
        let deadline = Date().addingTimeInterval(30)
        var stopped = "", last = ""
        while Date() < deadline {
            let now = status(try terminal.screen())
            last = now
            if now.contains("stopped playback") {
                stopped = now
                break
            }
            XCTAssertFalse(now.contains("fading") && now.contains("stopped"), "fading and stopped at once: \(now)")
            usleep(50_000)
        }
        XCTAssertFalse(stopped.isEmpty, "the line says the timer stopped playback: \(last)")
        XCTAssertFalse(stopped.contains("playing ·"), "stopped playback while the state says playing: \(stopped)")
        XCTAssertFalse(stopped.contains("fading"), stopped)
        try terminal.type("q")
    }
}
