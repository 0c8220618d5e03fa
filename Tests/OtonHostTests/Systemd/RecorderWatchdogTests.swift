import Foundation
import OtonHost
import OtonTestSupport
import Synchronization
import XCTest

/// The sd_notify protocol spoken to a real datagram socket, and the watchdog that stops pinging
/// while its probe of the recording (each player's queue) does not come back.
final class RecorderWatchdogTests: XCTestCase {
    func testReadyStatusAndPingsReachTheSocketAndStopWhileTheProbeIsStuck() throws {
        let directory = try TemporaryDirectory(self)
        let socket = try NotifySocket(path: directory.file("notify"))
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "200000"])
        XCTAssertEqual(notifier.watchdogInterval, .milliseconds(200))
        let stuck = Mutex(false)
        let release = DispatchSemaphore(value: 0)
        let watchdog = RecorderWatchdog(notifier: notifier) {
            if stuck.withLock({ $0 }) { release.wait() }
            return "3 of 4 stations recording"
        }
        watchdog.ready()
        let first = try XCTUnwrap(socket.receive(timeout: 10))
        XCTAssertTrue(first.contains("READY=1\n") && first.contains("STATUS=3 of 4 stations recording\n"), first)
        let pings = socket.receive(until: { $0.contains("WATCHDOG=1") }, timeout: 10)
        XCTAssertTrue(pings.last?.contains("WATCHDOG=1\nSTATUS=3 of 4 stations recording\n") ?? false, "\(pings)")

        stuck.withLock { $0 = true }
        // Drain what was on its way, then five intervals in which a stuck probe must not ping.
        _ = socket.receive(until: { _ in false }, timeout: 0.3)
        XCTAssertNil(socket.receive(timeout: 0.5), "a probe that does not come back: no ping")
        stuck.withLock { $0 = false }
        release.signal()
        let resumed = socket.receive(until: { $0.contains("WATCHDOG=1") }, timeout: 10)
        XCTAssertTrue(resumed.last?.contains("WATCHDOG=1") ?? false, "pings again once the probe answers: \(resumed)")
        watchdog.stopping()
        let last = socket.receive(until: { $0.contains("STOPPING=1") }, timeout: 10)
        XCTAssertTrue(last.last?.contains("STOPPING=1") ?? false, "\(last)")
    }

    func testWithoutNotifySocketNothingIsSentAndAWatchdogForAnotherProcessIsNotOurs() {
        XCTAssertFalse(SystemdNotifier(environment: [:]).isActive)
        XCTAssertFalse(SystemdNotifier(environment: [:]).notify(["READY=1"]))
        XCTAssertNil(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"]).watchdogInterval)
        XCTAssertEqual(
            SystemdNotifier(environment: ["NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "\(getpid())"]).watchdogInterval,
            .seconds(1))
    }
}
