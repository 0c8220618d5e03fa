import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Issue 12: `oton ctl volume +9223372036854775807` and `history --since 1e30d` killed a
/// running player (SIGILL). Against a real `oton play` of a real Icecast mount, each hostile
/// number gets an error reply naming the value and the range, and playback goes on.
final class HostileControlNumbersTests: XCTestCase {
    private var server: IcecastServer!

    override func setUp() async throws {
        server = try await IcecastServer.start()
    }

    override func tearDown() async throws {
        server?.stop()
    }

    func testHostileVolumesAreRefusedAndPlaybackContinues() async throws {
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Test FM")
        let plugins = """
            {"stations": [{"name": "Test FM", "url": "\(server.url(mount: "/live.mp3"))"}],
             "plugins": [{"id": "org.oton.sleep-timer", "path": "libOtonSleepTimer.so"}]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Test FM", "--headless"], plugins: plugins)
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(events.waitForEvent("state") { $0["state"] == "playing" }, "playing")

        for value in ["+9223372036854775807", "-9223372036854775808", "99999999999999999999", "1e3", "151"] {
            let result = try oton.ctl(["volume", value])
            XCTAssertNotEqual(result.status, 0, value)
            let output = result.stdout + result.stderr
            XCTAssertTrue(output.contains("\"\(value)\""), "names the value: \(output)")
            XCTAssertTrue(output.contains("150"), "names the range: \(output)")
        }
        for (value, expected) in [("99999999999999999999", "24 hours"), ("1441", "24 hours"), ("1e30", "not a duration")] {
            let result = try oton.ctl(["sleep", value])
            XCTAssertNotEqual(result.status, 0, value)
            XCTAssertTrue((result.stdout + result.stderr).contains(expected), result.stdout + result.stderr)
        }
        // Still alive and playing, and a sane request still works.
        XCTAssertEqual(try oton.ctl(["volume", "+0"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "volume 100%")
        // Playing on (a loaded machine may starve the test's encoder into a moment of buffering).
        var status = ""
        try await pollUntilTrue(timeout: 30, interval: 0.5, "playing on: \(status)") {
            status = try oton.ctl(["status"]).stdout
            return status.hasPrefix("playing · Test FM")
        }
    }
}
