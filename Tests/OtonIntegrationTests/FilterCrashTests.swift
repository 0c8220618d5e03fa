import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Issue 53: a plugin's filter that crashes on its 100th call, in a real `oton play` of a real
/// Icecast mount. oton ends by the signal and the line names the plugin and its filter; the next
/// start goes without it and says so; `oton plugins enable` turns it back on.
final class FilterCrashTests: XCTestCase {
    private var server: IcecastServer!

    override func setUp() async throws {
        server = try await IcecastServer.start()
    }

    override func tearDown() async throws {
        server?.stop()
    }

    private let id = "org.oton.test.misbehaving-filter"

    /// Waits for the process to end (its termination is the event); false after `timeout`.
    private func waitForExit(_ process: Process, timeout: TimeInterval) -> Bool {
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        if !process.isRunning { return true }
        return ended.wait(timeout: .now() + timeout) == .success
    }

    func testAFilterThatCrashesIsNamedAndTheNextStartGoesWithoutItUntilItIsEnabled() async throws {
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let built = try TemporaryDirectory(self)
        let library = try CPluginBuilder.build(
            TestPaths.root + "/Tests/Fixtures/misbehaving_filter_plugin.c", into: built, name: "filtercrash", defines: ["FILTER_CRASH_AT=100"])
        let plugins = """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
             "plugins": [{"id": "\(id)", "path": "\(library)"}]}
            """
        // Swift's backtracer after the line is slow on a loaded machine; the test is about the line and the signal.
        let first = try OtonProcess(
            self, arguments: ["play", "Test FM", "--headless", "--no-control"], plugins: plugins, environment: ["SWIFT_BACKTRACE": "enable=no"])
        guard waitForExit(first.process, timeout: 90) else {
            kill(first.process.processIdentifier, SIGKILL)
            return XCTFail("oton still runs; stderr: \(first.directory.read("stderr.log"))")
        }
        let stderr = first.directory.read("stderr.log")
        XCTAssertEqual(first.process.terminationReason, .uncaughtSignal, stderr)
        XCTAssertEqual(first.process.terminationStatus, SIGSEGV, stderr)
        let line =
            "oton: plugin \(id) (libfiltercrash.so) crashed in filter: SIGSEGV; the next start of oton goes without it until `oton plugins enable \(id)`; report it to its author (a filter cannot run isolated)"
        XCTAssertEqual(stderr.split(separator: "\n").filter { $0 == line }.count, 1, stderr)

        // The next start, with the same state folder: it plays without the plugin and says why.
        let state = ["XDG_STATE_HOME": first.directory.file("state")]
        let second = try OtonProcess(self, arguments: ["play", "Test FM", "--headless"], plugins: plugins, environment: state)
        _ = try second.connect(timeout: 30)
        let lines = waitForLines(second.directory.file("stderr.log"), timeout: 30) { $0.contains { $0.contains("is off: it crashed oton before") } }
        XCTAssertTrue(
            lines.contains {
                $0.contains("plugin \(id) is off: it crashed oton before (oton: plugin \(id) (libfiltercrash.so) crashed in filter: SIGSEGV)")
                    && $0.contains("`oton plugins enable \(id)` turns it back on")
            }, lines.joined(separator: "\n"))
        let deadline = Date().addingTimeInterval(30)
        var status = try second.ctl(["status"]).stdout
        while !status.hasPrefix("playing"), Date() < deadline {
            usleep(200_000)
            status = try second.ctl(["status"]).stdout
        }
        XCTAssertTrue(status.hasPrefix("playing"), "it plays: \(status)")
        let effects = try second.ctl(["effect"])
        XCTAssertFalse(effects.stdout.contains(id), "without the filter: \(effects.stdout)")
        let listed = try runProcess(TestPaths.oton, ["plugins", "list", "--config", second.directory.file("plugins.json")], environment: second.environment)
        XCTAssertTrue(listed.stdout.contains("- \(id)  off: it crashed oton; oton plugins enable \(id) turns it back on"), listed.stdout + listed.stderr)

        // Turned back on: the record forgets it, and the list shows it loadable again.
        let enabled = try runProcess(TestPaths.oton, ["plugins", "enable", id], environment: second.environment)
        XCTAssertEqual(enabled.status, 0, enabled.stderr)
        XCTAssertTrue(enabled.stdout.contains("\(id) is on again"), enabled.stdout)
        let again = try runProcess(TestPaths.oton, ["plugins", "list", "--config", second.directory.file("plugins.json")], environment: second.environment)
        XCTAssertTrue(again.stdout.contains("✓ \(id)  ok "), again.stdout + again.stderr)
        let twice = try runProcess(TestPaths.oton, ["plugins", "enable", id], environment: second.environment)
        XCTAssertNotEqual(twice.status, 0, "nothing left to turn on")
        XCTAssertTrue(twice.stderr.contains("is not off for a crash"), twice.stderr)
    }
}
