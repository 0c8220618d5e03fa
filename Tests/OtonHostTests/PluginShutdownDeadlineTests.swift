import Foundation
import OtonHost
import PluginAPI
import OtonTestSupport
import XCTest

/// PluginManager.shutdown with real C plugins compiled from Tests/Fixtures/blocking_plugin.c.
final class PluginShutdownDeadlineTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private let bus = PluginBus()

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(self)
    }

    private func blocking(_ name: String, defines: [String]) throws -> PluginEntry {
        let id = "org.oton.test.\(name)"
        let path = try CPluginBuilder.build(TestPaths.root + "/Tests/Fixtures/blocking_plugin.c", into: directory, name: name,
                                            defines: [#"BLOCK_ID="\#(id)""#] + defines)
        return PluginEntry(id: id, path: path, enabled: true, config: .object(["log": .string(directory.file("\(name).log"))]), location: name)
    }

    private func manager(timeout: Double) -> PluginManager {
        PluginManager(bus: bus, requests: RecordingRequests(),
                      directories: .init(dataHome: directory.file("data"), cacheHome: directory.file("cache")),
                      shutdownTimeout: timeout)
    }

    func testFinalStoppedStateArrivesBeforeDestroy() throws {
        let manager = manager(timeout: 3)
        manager.start([try blocking("polite", defines: [])])
        bus.publish(.state(StateInfo(.playing)))
        manager.drain()
        XCTAssertEqual(manager.shutdown(finalState: StateInfo(.stopped)), [])
        XCTAssertEqual(directory.lines("polite.log"),
                       ["create", "event state=\(OTON_STATE_PLAYING)", "event state=\(OTON_STATE_STOPPED)", "destroy begins", "destroy ends"])
    }

    func testPendingEventsAreDroppedNotDrained() throws {
        let manager = manager(timeout: 3)
        manager.start([try blocking("slow", defines: ["BLOCK_IN_EVENT", "BLOCK_SECONDS=1"])])
        bus.publish(.state(StateInfo(.connecting)))
        // The plugin writes its line before it blocks: wait until it is inside on_event.
        let deadline = Date().addingTimeInterval(5)
        while !directory.read("slow.log").contains("event state=") && Date() < deadline { usleep(5_000) }
        for _ in 0 ..< 100 { bus.publish(.volume(0.5)) } // 100 s of work at 1 s each
        let started = Date()
        XCTAssertEqual(manager.shutdown(finalState: StateInfo(.stopped)), [])
        let took = Date().timeIntervalSince(started)
        // The call in progress (≤ 1 s), then the final event (1 s), then destroy.
        XCTAssertLessThan(took, 2.9)
        XCTAssertEqual(directory.lines("slow.log"),
                       ["create", "event state=\(OTON_STATE_CONNECTING)", "event state=\(OTON_STATE_STOPPED)", "destroy begins", "destroy ends"])
    }

    func testPluginThatOverrunsIsAbandonedAndTheNextIsStillDestroyed() throws {
        let manager = manager(timeout: 0.5)
        manager.start([try blocking("stuck", defines: ["BLOCK_IN_DESTROY", "BLOCK_SECONDS=30"]),
                       try blocking("after", defines: [])])
        let started = Date()
        XCTAssertEqual(manager.shutdown(), ["org.oton.test.stuck"])
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        XCTAssertEqual(directory.lines("stuck.log"), ["create", "destroy begins"])
        XCTAssertEqual(directory.lines("after.log"), ["create", "destroy begins", "destroy ends"])
        XCTAssertNil(manager.pluginHoldingShutdown)
    }

    func testShutdownTimeoutIsReadFromPluginsJSON() throws {
        XCTAssertEqual(try ConfigLoader.parse(Data(#"{"shutdown_timeout_ms": 250}"#.utf8), file: "/x/plugins.json").shutdownTimeout, 0.25)
        XCTAssertEqual(try ConfigLoader.parse(Data("{}".utf8), file: "/x/plugins.json").shutdownTimeout, PluginManager.defaultShutdownTimeout)
        XCTAssertThrowsError(try ConfigLoader.parse(Data(#"{"shutdown_timeout_ms": "3s"}"#.utf8), file: "/x/plugins.json")) { error in
            XCTAssertTrue("\(error)".contains("shutdown_timeout_ms"), "\(error)")
            XCTAssertTrue("\(error)".contains("milliseconds from 0 to 600000"), "\(error)")
        }
    }
}
