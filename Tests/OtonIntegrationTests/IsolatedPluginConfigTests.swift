import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// An isolated plugin's config reaches its process over the socket (issue 53): any local user reads
/// a process's command line, and its environment too when it is theirs, so a password in the config
/// must be in neither, for oton and every process under it (the keeper, the worker, anything they
/// start). The plugin still gets its config, and gets it again when it is restarted after a crash.
final class IsolatedPluginConfigTests: XCTestCase {
    func testAnIsolatedPluginsConfigIsOnNoCommandLineAndInNoEnvironment() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let probe = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "secretprobe")
        let secret = "hunter2-" + UUID().uuidString
        let copies = directory.file("configs"), pids = directory.file("pids")
        let config = #"{"password": "\#(secret)", "config_copy": "\#(copies)", "pid_file": "\#(pids)"}"#
        let plugins = """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
             "plugins": [{"id": "org.oton.test.probe", "path": "\(probe)", "isolation": "process", "config": \(config)}]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--headless"], plugins: plugins)
        _ = try oton.connect()
        let stderr = oton.directory.file("stderr.log")

        // create() ran in the worker: the keeper and the worker are both up.
        let first = waitForLines(pids, timeout: 60) { !$0.isEmpty }
        XCTAssertEqual(first.count, 1, "the plugin started: \(oton.directory.read("stderr.log"))")
        let worker = try XCTUnwrap(pid_t(first.first ?? ""))
        ProcessTree.assertNowhereVisible(secret, under: oton.process.processIdentifier, atLeast: 2, runningWith: "plugin-host", "first start")

        // A crash: oton starts the plugin again, and hands it its config again.
        kill(worker, SIGKILL)
        let again = waitForLines(pids, timeout: 60) { $0.count >= 2 }
        XCTAssertEqual(again.count, 2, "restarted after the crash: \(oton.directory.read("stderr.log"))")
        let restarted = waitForLines(stderr, timeout: 30) { $0.contains { $0.contains("plugin org.oton.test.probe restarted in a new process") } }
        XCTAssertTrue(restarted.contains { $0.contains("restarted in a new process") }, restarted.joined(separator: "\n"))
        ProcessTree.assertNowhereVisible(secret, under: oton.process.processIdentifier, atLeast: 2, runningWith: "plugin-host", "after the restart")

        let configs = directory.read("configs").split(separator: "\n")
        XCTAssertEqual(configs.count, 2, "create() ran twice: \(configs)")
        XCTAssertTrue(configs.allSatisfy { $0.contains(#""password":"\#(secret)""#) }, "both got the whole config: \(configs)")
    }
}
