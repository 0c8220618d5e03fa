import Foundation
import IcecastFixture
import OtonTestSupport
import XCTest

/// A real mosquitto broker on loopback, answering once mosquitto_pub can publish to it. Killed when
/// the test ends (SIGKILL: the broker inherits the test runner's signal mask, in which SIGTERM may be
/// blocked).
final class MosquittoBroker {
    let port: UInt16
    private let process = Process()

    /// On `port`, or a free one.
    init(_ testCase: XCTestCase, in directory: TemporaryDirectory, port given: UInt16? = nil) throws {
        port = try given ?? FreePort.allocate()
        let config = try directory.write("mosquitto.conf", "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\n")
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        process.arguments = ["-c", config]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: try directory.write("mosquitto.log", "")) ?? FileHandle.nullDevice
        try process.run()
        let process = self.process
        testCase.addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let probe = try? runProcess("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(port)", "-t", "probe", "-m", "x"]), probe.status == 0 {
                return
            }
            usleep(50_000)
        }
        throw NSError(domain: "mosquitto", code: 1, userInfo: [NSLocalizedDescriptionKey: directory.read("mosquitto.log")])
    }

    /// The retained message of `topic`, or nil when there is none within a few seconds.
    func retained(_ topic: String) -> String? {
        guard
            let result = try? runProcess("/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-C", "1", "-W", "3", "--retained-only"]),
            result.status == 0
        else { return nil }
        return result.stdout.hasSuffix("\n") ? String(result.stdout.dropLast()) : result.stdout
    }

    /// The retained message of `topic` once `accept` takes it, or the last one seen in 60 s.
    func waitForRetained(_ topic: String, until accept: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(60)
        var last: String?
        while Date() < deadline {
            last = retained(topic)
            if let last, accept(last) { return last }
            usleep(100_000)
        }
        return last
    }
}
