import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// The sleep timer with `"action": "quit"`: when it fires, oton ends as on Ctrl-C, with status 0.
final class SleepQuitTests: XCTestCase {
    func testTheSleepTimerEndsOtonWithStatusZero() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let oton = try OtonProcess(
            self, arguments: ["play", "Test FM", "--headless"],
            plugins: """
                {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
                 "plugins": [{"id": "org.oton.sleep-timer", "path": "libOtonSleepTimer.so", "config": {"fade_seconds": 0.5, "action": "quit"}}]}
                """)
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(events.waitForEvent("state") { $0["state"] == "playing" }, "playing")
        XCTAssertEqual(try oton.ctl(["sleep", "2s"]).status, 0)
        XCTAssertNotNil(events.waitForEvent("org.oton.sleep.fired", timeout: 10))
        let deadline = Date().addingTimeInterval(10)
        while oton.process.isRunning && Date() < deadline { usleep(50_000) }
        XCTAssertFalse(oton.process.isRunning, "oton ended after the fade")
        XCTAssertEqual(oton.process.terminationStatus, 0, oton.directory.read("stderr.log"))
    }
}
