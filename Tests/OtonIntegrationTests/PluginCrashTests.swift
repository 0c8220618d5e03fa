import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// A C plugin that writes through NULL on its third event, loaded by a real `oton play`
/// of a real Icecast mount: in-process it ends oton, which names it first.
final class PluginCrashTests: XCTestCase {
    private var server: IcecastServer!

    override func setUp() async throws {
        server = try await IcecastServer.start()
    }

    override func tearDown() async throws {
        server?.stop()
    }

    private func crashingProbe(in directory: TemporaryDirectory) throws -> String {
        try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "crashprobe", defines: ["PROBE_CRASH_ON_EVENT=3"])
    }

    private func plugins(probe: String, config: String, isolation: String? = nil) -> String {
        let isolationKey = isolation.map { #", "isolation": "\#($0)""# } ?? ""
        return """
        {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
         "plugins": [{"id": "org.oton.test.probe", "path": "\(probe)"\(isolationKey), "config": \(config)}]}
        """
    }

    /// Waits for the process to end (its termination is the event); false after `timeout`.
    private func waitForExit(_ process: Process, timeout: TimeInterval) -> Bool {
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        if !process.isRunning { return true }
        return ended.wait(timeout: .now() + timeout) == .success
    }

    func testInProcessCrashInOnEventEndsOtonWithTheCulpritLine() async throws {
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let directory = try TemporaryDirectory(self)
        let probe = try crashingProbe(in: directory)
        let log = directory.file("probe.log")
        // Swift's backtracer, which runs after the line, stalled for minutes on this loaded machine
        // (after printing "Registers:"); the test is about the line and the signal, so it is off here.
        setenv("SWIFT_BACKTRACE", "enable=no", 1)
        defer { unsetenv("SWIFT_BACKTRACE") }
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--headless", "--no-control"],
                                   plugins: plugins(probe: probe, config: #"{"log": "\#(log)"}"#))
        guard waitForExit(oton.process, timeout: 60) else {
            kill(oton.process.processIdentifier, SIGKILL)
            return XCTFail("oton still runs; probe log: \(directory.read("probe.log")); stderr: \(oton.directory.read("stderr.log"))")
        }
        let stderr = oton.directory.read("stderr.log")
        XCTAssertEqual(oton.process.terminationReason, .uncaughtSignal, stderr)
        XCTAssertEqual(oton.process.terminationStatus, SIGSEGV, stderr)
        XCTAssertTrue(directory.read("probe.log").contains("crashing on event 3"), directory.read("probe.log"))
        let line = #"oton: plugin org.oton.test.probe (libcrashprobe.so) crashed in on_event: SIGSEGV; run it with "isolation": "process" or report it to its author"#
        let lines = stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0 == line }.count, 1, stderr)
    }
}
