import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// ABI 1.3's run_command, from a C plugin (Tests/Fixtures/command_runner_plugin.c) loaded by a
/// real `oton play` of a real Icecast mount: host commands and plugin commands answer as they
/// answer `oton ctl`, bad calls get their status at once, 16 waiting replies are the limit,
/// and a plugin may run its own command from inside on_command without a deadlock.
final class PluginRunCommandTests: XCTestCase {
    private var server: IcecastServer!

    override func setUp() async throws {
        server = try await IcecastServer.start()
    }

    override func tearDown() async throws {
        server?.stop()
    }

    /// The log's lines once `done` holds (the plugin writes from the oton process).
    private func waitForLines(_ path: String, timeout: TimeInterval = 15, until done: ([String]) -> Bool) -> [String] {
        OtonTestSupport.waitForLines(path, timeout: timeout, until: done)
    }

    private func reply(_ line: String, after prefix: String) throws -> [String: Any] {
        let json = try XCTUnwrap(line.components(separatedBy: " ").dropFirst(2).joined(separator: " ").data(using: .utf8), line)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: json) as? [String: Any], "\(prefix): \(line)")
    }

    func testAPluginRunsHostAndPluginCommandsAsOtonCtlDoes() async throws {
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let library = try CPluginBuilder.build(TestPaths.root + "/Tests/Fixtures/command_runner_plugin.c", into: directory, name: "runner")
        let log = directory.file("runner.log")
        let plugins = """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
             "plugins": [{"id": "org.oton.test.command-runner", "path": "\(library)", "config": {"log": "\(log)"}}]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--headless"], plugins: plugins)
        _ = try oton.connect()

        let lines = waitForLines(log) { lines in
            lines.filter { $0.hasPrefix("done-status ") }.count == 16 && lines.contains { $0.hasPrefix("done-unknown ") }
        }
        XCTAssertTrue(lines.contains("null-name -1"), "\(lines)")
        XCTAssertTrue(lines.contains("bad-args -1"), "\(lines)")
        XCTAssertTrue(lines.contains("subscribe -2"), "\(lines)")
        XCTAssertTrue(lines.contains("queued 16"), "replies wait for the plugin's mailbox, which runs after create(): \(lines)")
        XCTAssertTrue(lines.contains("busy -3"), "\(lines)")
        XCTAssertTrue(lines.contains("unknown-queued 0"), "\(lines)")

        let statuses = lines.filter { $0.hasPrefix("done-status ") }
        XCTAssertEqual(statuses.count, 16, "\(lines)")
        for line in statuses {
            XCTAssertTrue(line.hasPrefix("done-status 0 "), line)
            let status = try reply(line, after: "status")
            XCTAssertEqual(status["ok"] as? Bool, true, line)
            XCTAssertTrue(status.keys.contains("id"), "the reply object of the control protocol: \(line)")
            let data = try XCTUnwrap(status["data"] as? [String: Any], line)
            XCTAssertEqual(data["station"] as? String, "Test FM", line)
        }
        let unknown = try XCTUnwrap(lines.first { $0.hasPrefix("done-unknown ") })
        XCTAssertTrue(unknown.hasPrefix("done-unknown -4 "), unknown)
        let failure = try reply(unknown, after: "unknown")
        XCTAssertEqual(failure["ok"] as? Bool, false)
        XCTAssertTrue((failure["error"] as? String ?? "").contains("unknown command \"no-such-command\""), unknown)

        // Its own command, run from inside its on_command: queued there, answered after it returned.
        let run = try oton.ctl(["runner-run", #"x"y"#, "Я"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("queued runner-echo"), run.stdout)
        let echoed = waitForLines(log) { $0.contains { $0.hasPrefix("done-run ") } }
        let echo = try XCTUnwrap(echoed.first { $0.hasPrefix("done-run ") }, "\(echoed)")
        XCTAssertTrue(echo.hasPrefix("done-run 0 "), echo)
        XCTAssertEqual(try reply(echo, after: "run")["text"] as? String, #"echo ["x\"y","Я"]"#, echo)
        XCTAssertEqual(try oton.ctl(["status"]).status, 0, "oton still answers")
    }
}
