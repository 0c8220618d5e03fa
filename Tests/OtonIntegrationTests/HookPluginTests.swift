import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// The hook plugin (issue 38 §5) in a real `oton play` of a real Icecast mount: a command of the
/// user's runs on each track change with the track in its environment, and one that runs too long
/// is ended at its timeout, with a line that says so, while playback goes on.
final class HookPluginTests: XCTestCase {
    private func play(_ server: IcecastServer, config: String, environment: [String: String?] = [:]) throws -> OtonProcess {
        let oton = try OtonProcess(
            self, arguments: ["play", "Test FM", "--headless"],
            plugins: """
                {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
                 "plugins": [{"id": "org.oton.hook", "path": "\(TestPaths.pluginLibrary("OtonHook"))", "config": \(config)}]}
                """, environment: environment)
        _ = try oton.connect(timeout: 60)
        return oton
    }

    private func wait(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while !condition(), Date() < deadline { usleep(50_000) }
        return condition()
    }

    func testTheCommandRunsOnEachTrackWithTheTrackInItsEnvironment() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let log = directory.file("hook.log")
        let script = #"printf '%s|%s|%s\n' "$OTON_ARTIST" "$OTON_TITLE" "$OTON_EVENT" >> "$0""#
        let oton = try play(server, config: #"{"command": ["/bin/sh", "-c", \#(JSONValue.string(script).jsonText), "\#(log)"]}"#)
        XCTAssertTrue(wait { directory.read("hook.log").contains("Artist A|Song One|track\n") }, directory.read("hook.log") + oton.directory.read("stderr.log"))
        try await server.setTitle(mount: "/live.mp3", title: "Artist B - Song; $(touch /tmp/oton-hook-injected) Two")
        XCTAssertTrue(wait { directory.read("hook.log").contains("Artist B|Song; $(touch /tmp/oton-hook-injected) Two|track\n") }, directory.read("hook.log"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/oton-hook-injected"), "a title is data in the environment, never shell text")
    }

    /// docs/configuration.md's notify-send example, as written there, with a stand-in for notify-send
    /// that parses its words as GLib's option parser does (before `--`, a word that starts with "-"
    /// is an option; an unknown one ends it with status 1, as notify-send ends). A title "-rf --help"
    /// arrives as the body, data; and the session bus oton has reaches the command (notify-send
    /// cannot notify without it).
    func testTheDocumentedNotifySendExampleGetsADashTitleAsDataAndTheSessionBus() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - -rf --help", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let log = directory.file("notify.log")
        let notifier = try directory.write(
            "notify-send",
            """
            #!/bin/sh
            data=0
            for word in "$@"; do
                if [ $data = 0 ] && [ "$word" = "--" ]; then data=1; continue; fi
                case "$data$word" in 0-*) printf 'option: %s\n' "$word" >> '\(log)'; exit 1 ;; esac
                printf 'word: %s\n' "$word" >> '\(log)'
            done
            printf 'title: %s\nbus: %s\ndone\n' "$OTON_TITLE" "$DBUS_SESSION_BUS_ADDRESS" >> '\(log)'

            """)
        chmod(notifier, 0o755)
        let guide = try String(contentsOfFile: TestPaths.root + "/docs/configuration.md", encoding: .utf8)
        let section = try XCTUnwrap(guide.components(separatedBy: "### org.oton.hook").dropFirst().first)
        let example = try XCTUnwrap(section.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "```").first)
        let command = try XCTUnwrap(try JSONValue.parse(Data(example.utf8))["config"]?["command"]?.arrayValue?.compactMap(\.stringValue))
        XCTAssertTrue(command.joined(separator: " ").contains("notify-send "), "the example runs notify-send: \(command)")
        let ours = command.map { $0.replacingOccurrences(of: "notify-send ", with: notifier + " ") }
        let bus = "unix:path=/nonexistent/oton-hook-bus-\(UUID().uuidString)"
        let oton = try play(
            server, config: #"{"command": \#(JSONValue.array(ours.map(JSONValue.string)).jsonText)}"#, environment: ["DBUS_SESSION_BUS_ADDRESS": bus])
        let lines = waitForLines(log, timeout: 60) { $0.contains("done") || $0.contains { $0.hasPrefix("option: ") } }
        let said = lines.joined(separator: "\n") + "\n" + oton.directory.read("stderr.log")
        XCTAssertFalse(lines.contains { $0.hasPrefix("option: ") }, "the title was taken as an option: \(said)")
        XCTAssertEqual(lines.filter { $0.hasPrefix("word: ") }, ["word: Artist A", "word: -rf --help"], said)
        XCTAssertTrue(lines.contains("title: -rf --help"), said)
        XCTAssertTrue(lines.contains("bus: \(bus)"), "oton's session bus reaches the command: \(said)")
    }

    func testARunPastItsTimeoutIsEndedAndSaidSo() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let oton = try play(server, config: #"{"command": ["/bin/sleep", "600"], "timeout_seconds": 1}"#)
        XCTAssertTrue(
            wait { oton.directory.read("stderr.log").contains("hook still running after 1 s: ended (SIGKILL to its process group)") },
            oton.directory.read("stderr.log"))
        let sleepers = try runProcess("/usr/bin/pgrep", ["-f", "^/bin/sleep 600$", "-P", String(oton.process.processIdentifier)])
        XCTAssertEqual(sleepers.stdout, "", "no run outlives its timeout")
        XCTAssertEqual(try oton.ctl(["status"]).status, 0, "playback goes on")
    }

    func testARelativeCommandIsRefusedBeforeAnythingRuns() throws {
        let directory = try TemporaryDirectory(self)
        let config = try directory.write(
            "plugins.json",
            """
            {"stations": [], "plugins": [{"id": "org.oton.hook", "path": "\(TestPaths.pluginLibrary("OtonHook"))", "config": {"command": ["np"], "timeout_secs": 5}}]}
            """)
        let list = try runProcess(TestPaths.oton, ["plugins", "list", "--config", config])
        XCTAssertTrue(list.stdout.contains(#"config.timeout_secs is not a setting; did you mean "timeout_seconds"?"#), list.stdout)
    }
}
