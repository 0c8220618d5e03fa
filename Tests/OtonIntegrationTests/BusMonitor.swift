import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// `dbus-monitor` on a private bus for one match rule, its output in a file: what really went over
/// the bus (a signal emitted, a method called on another program). Stopped when the test ends.
final class BusMonitor: @unchecked Sendable {
    private let process: ManagedProcess
    private let output: String

    init(_ testCase: XCTestCase, bus: PrivateSessionBus, rule: String, in directory: TemporaryDirectory, name: String) throws {
        output = directory.file(name)
        FileManager.default.createFile(atPath: output, contents: nil)
        process = ManagedProcess(
            name: "dbus-monitor", executable: "/usr/bin/dbus-monitor",
            arguments: ["--address", bus.address, rule, "type='method_call',interface='org.freedesktop.DBus.Peer',member='Ping'"],
            environment: bus.environment, stdout: FileHandle(forWritingAtPath: output))
        try process.start()
        let process = self.process
        testCase.addTeardownBlock { process.stop() }
    }

    /// Everything seen so far.
    var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

    /// Waits until dbus-monitor sees the bus: a Peer.Ping (its second rule) sent until it shows.
    func waitUntilListening(_ bus: PrivateSessionBus) async throws {
        try await pollUntilTrue(timeout: 30, interval: 0.2, "dbus-monitor listening") {
            _ = try bus.run(
                "/usr/bin/dbus-send", ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Peer.Ping"])
            return self.text.contains("member=Ping")
        }
    }
}
