import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// `oton play` in a real 80×24 terminal (tmux) against a real Icecast mount, as a new user meets it.
final class TerminalStatusLineTests: XCTestCase {
    func testTheStatusLineKeepsItsRowItsFieldsAndItsKeys() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        let source = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let config = try directory.write(
            "plugins.json",
            """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
             "plugins": [{"id": "org.oton.sleep-timer", "path": "\(TestPaths.pluginLibrary("OtonSleepTimer"))"},
                         {"id": "org.oton.share", "path": "\(TestPaths.pluginLibrary("OtonShare"))"}]}
            """)
        try FileManager.default.createDirectory(atPath: directory.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let exitFile = directory.file("exit-status")
        // --log-level info so that log lines (reconnecting, the server ending the stream) come while the line shows;
        // English whatever the developer's locale (RussianLanguageTests checks Russian).
        let command = """
            env -u DISPLAY -u WAYLAND_DISPLAY -u LC_ALL -u LC_MESSAGES -u LANGUAGE LANG=C.UTF-8 XDG_RUNTIME_DIR='\(directory.file("run"))' XDG_DATA_HOME='\(directory.file("data"))' XDG_STATE_HOME='\(directory.file("state"))' \
            XDG_CACHE_HOME='\(directory.file("cache"))' PULSE_SERVER=unix:/nonexistent \
            '\(TestPaths.oton)' play 'Test FM' --config '\(config)' --instance terminal --log-level info 2>&1; echo $? > '\(exitFile)'
            """
        let terminal = try TmuxTerminal(self, command: command)

        let status = { (rows: [String]) in rows.last { !$0.isEmpty } ?? "" }
        var rows = try terminal.waitForScreen("playing the first track, with the key hint") {
            status($0).contains("▶ playing") && status($0).contains("? keys") && status($0).contains("Artist A – Song One")
        }
        XCTAssertTrue(status(rows).contains("vol 100%"), status(rows))

        // A 300-character title (Cyrillic, two bytes each) is cut; time and volume stay on the line.
        let longTitle = String(repeating: "Очень длинное название ", count: 13).prefix(300)
        try await server.setTitle(mount: "/live.mp3", artist: "Artist B", title: String(longTitle))
        rows = try terminal.waitForScreen("the long title") { status($0).contains("Artist B – Очень") }
        XCTAssertTrue(status(rows).contains("vol 100%"), "volume visible: \(status(rows))")
        XCTAssertNotNil(status(rows).range(of: #"\d+:\d\d · vol"#, options: .regularExpression), "time visible: \(status(rows))")
        XCTAssertTrue(status(rows).contains("…"), "the title is cut with …: \(status(rows))")
        XCTAssertLessThanOrEqual(TerminalText.width(status(rows)), 80)

        // The sleep timer counts down; the first key ends the hint.
        try terminal.type("s")
        let sleepPattern = #"sleep \d+:\d\d"#
        rows = try terminal.waitForScreen("the sleep timer") { status($0).range(of: sleepPattern, options: .regularExpression) != nil }
        let first = try XCTUnwrap(status(rows).range(of: sleepPattern, options: .regularExpression).map { String(status(rows)[$0]) })
        XCTAssertFalse(status(rows).contains("? keys"), status(rows))
        try terminal.waitForScreen("the countdown to move on from \(first)", timeout: 5) {
            guard let range = status($0).range(of: sleepPattern, options: .regularExpression) else { return false }
            return String(status($0)[range]) != first
        }

        // ? lists the keys above the status line; h shows share's text and says where the text went.
        try terminal.type("?")
        rows = try terminal.waitForScreen("the key list") { $0.contains { $0.contains("keys:") } && $0.contains { $0.contains("q    quit") } }
        XCTAssertTrue(status(rows).contains("vol 100%"), "the status line is drawn again below: \(status(rows))")
        try terminal.type("h")
        try terminal.waitForScreen("the share text") { $0.contains { $0.contains("no clipboard tool found") || $0.contains("copied to the clipboard") } }

        // + is 5 % louder, and above 100 says so.
        try terminal.type("+")
        try terminal.waitForScreen("the amplified volume") { status($0).contains("vol 105% amplified") }

        // The source goes away: the player waits for it (no --retries: it never gives up), the line counts
        // down to the next try, and the log lines go above it.
        source.stop()
        rows = try terminal.waitForScreen("the reconnect countdown") { status($0).contains("waiting for the station (next try in") }
        XCTAssertTrue(status(rows).contains("vol 105% amplified"), "the reason gives way to the volume: \(status(rows))")
        // A log line starts a row of its own (its level in the first column) and never shares the status row.
        rows = try terminal.waitForScreen("a log line") { $0.joined().contains("oton.player:") }
        let logRows = rows.filter { $0.contains("oton.player:") }
        XCTAssertFalse(logRows.isEmpty, "a log line on a row of its own:\n" + rows.joined(separator: "\n"))
        for row in logRows {
            XCTAssertTrue(row.hasPrefix("warning oton.") || row.hasPrefix("info oton."), "a log line starts mid-row: \(row)")
        }
        for row in rows where row.contains("vol ") {
            XCTAssertFalse(row.contains("oton."), "a log line shares the status row: \(row)")
        }

        try terminal.type("q")
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: exitFile) && Date() < deadline { usleep(100_000) }
        let screen = try terminal.screen().joined(separator: "\n")
        XCTAssertEqual(directory.read("exit-status").trimmingCharacters(in: .whitespacesAndNewlines), "0", screen)
    }
}
