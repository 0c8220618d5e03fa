import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Switching stations in a running `oton play` (issue 14.1), against two real Icecast mounts:
/// `oton ctl station/next/prev/play NAME`, a dead URL that leaves the player on its error,
/// and the history plugin closing one row per station.
final class StationSwitchTests: XCTestCase {
    private var server: IcecastServer!

    override func setUp() async throws {
        server = try await IcecastServer.start()
    }

    override func tearDown() async throws {
        server?.stop()
    }

    func testCtlSwitchesBetweenStationsAndEachSwitchIsANewConnection() async throws {
        _ = try await server.startSource(mount: "/a.mp3", format: .mp3, initialTitle: "Artist A - Song A", stationName: "Alpha FM")
        _ = try await server.startSource(mount: "/b.mp3", format: .mp3, initialTitle: "Artist B - Song B", stationName: "Beta FM")
        let directory = try TemporaryDirectory(self)
        let probe = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "probe")
        let plugins = """
            {"stations": [{"name": "Alpha", "url": "\(server.url(mount: "/a.mp3"))"}, {"name": "Beta", "url": "\(server.url(mount: "/b.mp3"))"}],
             "plugins": [{"id": "org.oton.history", "path": "libOtonHistory.so", "config": {"database": "\(directory.file("history.sqlite"))"}},
                         {"id": "org.oton.test.probe", "path": "\(probe)"},
                         {"id": "org.oton.file-sink", "path": "libOtonFileSink.so", "config": {"directory": "\(directory.file("rec"))", "min_seconds": 0}}]}
            """
        let oton = try OtonProcess(self, arguments: ["play", "Alpha", "--headless", "--retries", "1"], plugins: plugins)
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(events.waitForEvent("track") { $0["title"] == "Song A" }, "Alpha plays")

        let switched = Date()
        let reply = try oton.ctl(["station", "beta"])
        XCTAssertEqual(reply.status, 0, reply.stderr)
        XCTAssertTrue(reply.stdout.contains("switching to Beta"), reply.stdout)
        XCTAssertNotNil(events.waitForEvent("state") { $0["state"] == "stopped" }, "the old connection ends: its track ends with it")
        let beta = try XCTUnwrap(events.waitForEvent("track") { $0["title"] == "Song B" }, "Beta's title arrives")
        XCTAssertEqual(beta["stream_url"], server.url(mount: "/b.mp3").absoluteString)
        print("measured: switch request → Beta's track event \(Int(Date().timeIntervalSince(switched) * 1000)) ms")
        let status = try oton.ctl(["status"])
        XCTAssertTrue(status.stdout.contains("· Beta ·"), status.stdout)

        XCTAssertEqual(try oton.ctl(["next"]).status, 0, "next wraps from the last station to the first")
        XCTAssertNotNil(events.waitForEvent("track") { $0["title"] == "Song A" })
        XCTAssertEqual(try oton.ctl(["prev"]).status, 0)
        XCTAssertNotNil(events.waitForEvent("track") { $0["title"] == "Song B" })
        XCTAssertEqual(try oton.ctl(["play", "1"]).status, 0, "play with a station switches instead of ignoring it")
        XCTAssertNotNil(events.waitForEvent("track") { $0["title"] == "Song A" })
        // A plugin's request (ABI 1.2), by name and then the next station.
        let byPlugin = try oton.ctl(["probe-switch", "Beta"])
        XCTAssertTrue(byPlugin.stdout.contains("status=0"), byPlugin.stdout + byPlugin.stderr)
        XCTAssertNotNil(events.waitForEvent("track") { $0["title"] == "Song B" }, "OTON_REQUEST_SWITCH_STATION")
        XCTAssertTrue(try oton.ctl(["probe-switch"]).stdout.contains("status=0"))
        XCTAssertNotNil(events.waitForEvent("track") { $0["title"] == "Song A" }, "OTON_REQUEST_NEXT_STATION wraps")

        let list = try oton.ctl(["stations"])
        XCTAssertTrue(list.stdout.contains("▶ 1  Alpha"), list.stdout)
        XCTAssertTrue(list.stdout.contains("  2  Beta"), list.stdout)
        let unknown = try oton.ctl(["station", "Gamma"])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(
            unknown.stderr.contains("no station named \"Gamma\"") || unknown.stdout.contains("no station named \"Gamma\""),
            unknown.stdout + unknown.stderr)

        // A dead URL: the error is reported and oton keeps running there, the old station one `prev` away.
        let dead = "http://127.0.0.1:\(try FreePort.allocate())/gone.mp3"
        XCTAssertEqual(try oton.ctl(["station", dead]).status, 0)
        XCTAssertNotNil(
            events.waitForEvent("state", timeout: 60) { $0["state"] == "error" && $0["retry_attempt"] == nil },
            "the dead station is given up on")
        XCTAssertTrue(oton.process.isRunning, "giving up after a switch does not end oton")
        let placed = try oton.ctl(["stations"]).stdout
        XCTAssertTrue(
            placed.contains("  1  Alpha") && placed.contains("▶ 2  127.0.0.1") && placed.contains("  3  Beta"),
            "the URL stands after the station it was left from: \(placed)")
        XCTAssertEqual(try oton.ctl(["prev"]).status, 0)
        XCTAssertNotNil(events.waitForEvent("track") { $0["title"] == "Song A" }, "prev from the dead URL goes back to Alpha, where the listener was")

        XCTAssertEqual(try oton.ctl(["quit"]).status, 0)
        oton.process.waitUntilExit()
        XCTAssertEqual(oton.process.terminationStatus, 0, String(oton.directory.read("stderr.log").suffix(3000)))
        let rows = try runProcess(
            "/usr/bin/sqlite3",
            [
                directory.file("history.sqlite"),
                "SELECT station, title, ended_at IS NOT NULL FROM plays ORDER BY id",
            ])
        let closed = rows.stdout.split(separator: "\n").map(String.init)
        // The recorder ended its file at every switch: one file per station played, never both in one.
        let recorded = (FileManager.default.enumerator(atPath: directory.file("rec"))?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".mp3") }
        XCTAssertGreaterThanOrEqual(recorded.filter { $0.hasPrefix("Alpha FM/incomplete/Artist A - Song A") }.count, 5, "\(recorded)")
        XCTAssertGreaterThanOrEqual(recorded.filter { $0.hasPrefix("Beta FM/incomplete/Artist B - Song B") }.count, 3, "\(recorded)")
        XCTAssertEqual(recorded.filter { !$0.contains("Song A") && !$0.contains("Song B") }, [], "no file outside a station's own")
        XCTAssertEqual(
            closed.map { $0.split(separator: "|").dropFirst().joined(separator: "|") },
            ["Song A|1", "Song B|1", "Song A|1", "Song B|1", "Song A|1", "Song B|1", "Song A|1", "Song A|1"],
            "one closed row per station played: \(rows.stdout)")
    }
}
