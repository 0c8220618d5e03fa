import Foundation
import OtonHost
import OtonTestSupport
import Synchronization
import XCTest

/// PluginManager is shared by threads: control clients and the status line's keys run commands
/// and read reports while the main thread shuts down. Run under scripts/test-tsan too.
final class PluginManagerConcurrencyTests: XCTestCase {
    func testCommandsFromOtherThreadsDuringShutdownGetAReplyOrNoneAndNeverCrash() throws {
        let directory = try TemporaryDirectory(self)
        let library = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "probe")
        let manager = PluginManager(
            bus: PluginBus(), requests: RecordingRequests(),
            directories: .init(dataHome: directory.file("d"), cacheHome: directory.file("c")))
        manager.start([PluginEntry(id: "org.oton.test.probe", path: library, enabled: true, config: .object([:]), location: "plugins[0]")])
        XCTAssertEqual(manager.run(command: "probe-echo", arguments: ["warm"])?.ok, true)

        let callers = 4
        let started = DispatchSemaphore(value: 0)
        let outcomes = Outcomes()
        let group = DispatchGroup()
        for caller in 0..<callers {
            group.enter()
            Thread {
                defer { group.leave() }
                started.signal()
                // Until the manager has no plugin left: each call is answered or finds no command.
                while true {
                    _ = manager.reports.count
                    _ = manager.dropCounts(of: "org.oton.test.probe")
                    guard let reply = manager.run(command: "probe-echo", arguments: ["\(caller)"], timeout: 5) else {
                        outcomes.update { $0.gone += 1 }
                        return
                    }
                    outcomes.update {
                        if reply.ok && reply.text.contains("\"\(caller)\"") { $0.answered += 1 } else { $0.wrong.append(reply.text) }
                    }
                }
            }.start()
        }
        // The status line reads the manager whenever it redraws, before, during and after shutdown.
        let shutDown = Atomic<Bool>(false)
        let watcherDone = DispatchSemaphore(value: 0)
        Thread {
            while !shutDown.load(ordering: .relaxed) {
                _ = manager.dropCounts(of: "org.oton.test.probe")
                _ = manager.reports.count
            }
            watcherDone.signal()
        }.start()
        for _ in 0..<callers { started.wait() }
        XCTAssertEqual(manager.shutdown(), [], "nothing abandoned")
        shutDown.store(true, ordering: .relaxed)
        XCTAssertEqual(watcherDone.wait(timeout: .now() + 10), .success)
        XCTAssertNil(manager.dropCounts(of: "org.oton.test.probe"), "no instance is left after shutdown")
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success, "every caller saw the plugin go")
        let result = outcomes.update { $0 }
        XCTAssertEqual(result.gone, callers)
        XCTAssertGreaterThan(result.answered, 0)
        XCTAssertTrue(result.wrong.allSatisfy { $0.hasSuffix("is shutting down; \"probe-echo\" was not run") }, "\(result.wrong)")
        XCTAssertNil(manager.run(command: "probe-echo", arguments: []))
        XCTAssertEqual(manager.reports.count, 1, "reports stay readable after shutdown")
    }
}

/// What the calling threads saw. An NSLock, not a Mutex: ThreadSanitizer does not see the futex
/// under Synchronization.Mutex and would report the test's own bookkeeping.
private final class Outcomes: @unchecked Sendable {
    struct Counts { var answered = 0, gone = 0, wrong: [String] = [] }
    private let lock = NSLock()
    private var counts = Counts()

    func update<T>(_ body: (inout Counts) -> T) -> T {
        lock.lock(); defer { lock.unlock() }
        return body(&counts)
    }
}
