import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// The hook plugin (issue 38 §5) in a real `oton play` of a real Icecast mount: a command of the
/// user's runs on each track change with the track in its environment, and one that runs too long
/// is ended at its timeout, with a line that says so, while playback goes on.
final class HookPluginTests: XCTestCase {
    private func play(_ server: IcecastServer, config: String) throws -> OtonProcess {
        let oton = try OtonProcess(
            self, arguments: ["play", "Test FM", "--headless"],
            plugins: """
                {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
                 "plugins": [{"id": "org.oton.hook", "path": "\(TestPaths.pluginLibrary("OtonHook"))", "config": \(config)}]}
                """)
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
