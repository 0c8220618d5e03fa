import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// `oton play` with `"watch_wishes": true`: the other favourites are watched with the light engine in
/// the same process; a wish on one of them reaches the playing session's bus, `oton ctl status`, and
/// `oton ctl switch-to-wish` switches there.
final class PlayWatchWishesTests: XCTestCase {
    func testAWishOnAnotherFavouriteIsAnnouncedAndSwitchedTo() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/a.mp3", format: .mp3, initialTitle: "Artist A - One", stationName: "A FM")
        _ = try await server.startSource(mount: "/b.mp3", format: .mp3, initialTitle: "Artist B - One", stationName: "B FM")
        let plugins = """
            {"watch_wishes": true, "stations": [
              {"name": "A", "url": "\(server.url(mount: "/a.mp3").absoluteString)"},
              {"name": "B", "url": "\(server.url(mount: "/b.mp3").absoluteString)"}
            ], "plugins": []}
            """
        let oton = try OtonProcess(
            self, arguments: ["play", "A", "--headless"], plugins: plugins,
            files: ["wishlist.json": #"{"wishes": [{"pattern": "queen - *", "field": "track"}]}"#])
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(events.waitForEvent("state") { $0["state"] == "playing" }, "playing A")
        // (Whether B's watcher connects before or after the title changes, the wish is heard: listening
        // announces a wish heard from its middle too.)
        let watching = Date().addingTimeInterval(30)
        while Date() < watching, !oton.directory.read("stderr.log").contains("watching 1 favourite") { usleep(100_000) }
        XCTAssertTrue(oton.directory.read("stderr.log").contains("watching 1 favourite"), oton.directory.read("stderr.log"))

        try await server.setTitle(mount: "/b.mp3", title: "QUEEN - Bohemian Rhapsody")
        let heard = try XCTUnwrap(events.waitForEvent("org.oton.wish.heard", timeout: 30), oton.directory.read("stderr.log"))
        XCTAssertEqual(heard["station"], "B")
        XCTAssertEqual(heard["artist"], "QUEEN")
        XCTAssertEqual(heard["title"], "Bohemian Rhapsody")
        XCTAssertNil(heard["keep"], "listening keeps nothing")

        let status = try oton.ctl(["--json", "status"])
        let data = try XCTUnwrap((try JSONValue.parse(Data(status.stdout.utf8)))["data"], status.stdout + status.stderr)
        XCTAssertEqual(data["station"]?.stringValue, "A", "still playing A")
        XCTAssertEqual(data["wish"]?["station"]?.stringValue, "B", status.stdout)
        XCTAssertEqual(data["wish"]?["title"]?.stringValue, "Bohemian Rhapsody")
        XCTAssertTrue(try oton.ctl(["status"]).stdout.contains("wish: QUEEN – Bohemian Rhapsody on B"))

        let switched = try oton.ctl(["switch-to-wish"])
        XCTAssertEqual(switched.status, 0, switched.stderr)
        XCTAssertNotNil(events.waitForEvent("track", timeout: 30) { $0["title"] == "Bohemian Rhapsody" }, "now playing B's wish")
        let after = try JSONValue.parse(Data(try oton.ctl(["--json", "status"]).stdout.utf8))
        XCTAssertEqual(after["data"]?["station"]?.stringValue, "B")
    }

    /// With the now-playing plugin: the wish is a desktop notification whose action switches there.
    /// Issue 39 §4: an unreachable favourite printed a warning at every reconnect, forever (7 in 80 s).
    func testAnUnreachableFavouriteWarnsOnceAndThenOnlyAtInfo() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/a.mp3", format: .mp3, initialTitle: "Artist A - One", stationName: "A FM")
        let plugins = """
            {"watch_wishes": true, "stations": [
              {"name": "A", "url": "\(server.url(mount: "/a.mp3").absoluteString)"},
              {"name": "Gone", "url": "http://127.0.0.1:\(try FreePort.allocate())/gone.mp3"}
            ], "plugins": []}
            """
        let oton = try OtonProcess(
            self, arguments: ["play", "A", "--headless", "--log-level", "info"], plugins: plugins,
            files: ["wishlist.json": #"{"wishes": [{"pattern": "queen - *", "field": "track"}]}"#])
        let lines = { oton.directory.read("stderr.log").split(separator: "\n").filter { $0.contains("oton.wishlist[Gone]") } }
        // Wait for three of its problems: the first said as a warning, the repeats at info.
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, lines().count < 3 { usleep(200_000) }
        let found = lines()
        XCTAssertGreaterThanOrEqual(found.count, 3, oton.directory.read("stderr.log"))
        let warnings = found.filter { $0.contains("warning") || $0.contains("error") }
        XCTAssertEqual(warnings.count, 1, "one warning for the favourite:\n" + found.joined(separator: "\n"))
        XCTAssertTrue(warnings.first?.contains("what follows for it is logged at --log-level info") == true, "\(warnings)")
        let playing = Date().addingTimeInterval(30)
        while Date() < playing, (try? oton.ctl(["status"]).stdout.hasPrefix("playing")) != true { usleep(200_000) }
        XCTAssertTrue(try oton.ctl(["status"]).stdout.hasPrefix("playing"), "A plays on")
    }

    func testTheWishNotificationsActionSwitchesToTheWish() async throws {
        let bus = try await PrivateSessionBus.start()
        defer { bus.stop() }
        let notifications = try await NotificationServer.start(on: bus)
        defer { notifications.stop() }
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/a.mp3", format: .mp3, initialTitle: "Artist A - One", stationName: "A FM")
        _ = try await server.startSource(mount: "/b.mp3", format: .mp3, initialTitle: "Artist B - One", stationName: "B FM")
        let directory = try TemporaryDirectory(self)
        let config = try directory.write(
            "plugins.json",
            """
            {"watch_wishes": true, "stations": [
              {"name": "A", "url": "\(server.url(mount: "/a.mp3").absoluteString)"},
              {"name": "B", "url": "\(server.url(mount: "/b.mp3").absoluteString)"}
            ], "plugins": [{"id": "org.oton.now-playing", "path": "\(TestPaths.pluginLibrary("OtonNowPlaying"))", "enabled": true,
                            "config": {"mpris": false}}]}
            """)
        try directory.write("wishlist.json", #"{"wishes": [{"pattern": "Bohemian Rhapsody", "field": "title"}]}"#)
        var environment = bus.environment
        environment["XDG_CACHE_HOME"] = directory.file("cache")
        environment["XDG_DATA_HOME"] = directory.file("data")
        environment["XDG_RUNTIME_DIR"] = directory.file("run")
        try FileManager.default.createDirectory(atPath: directory.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let log = directory.file("oton.log")
        FileManager.default.createFile(atPath: log, contents: nil)
        let oton = ManagedProcess(
            name: "oton", executable: TestPaths.oton,
            arguments: ["play", "A", "--headless", "--no-tui", "--config", config, "--instance", "wish"],
            environment: environment, stderr: try FileHandle(forWritingTo: URL(fileURLWithPath: log)))
        try oton.start()
        defer { oton.stop() }
        let ctl = { (words: [String]) throws -> ProcessResult in
            try runProcess(TestPaths.oton, ["ctl", "--instance", "wish"] + words, environment: environment)
        }
        _ = try await notifications.waitForCall(timeout: 30) { $0.summary == "One" }
        try await server.setTitle(mount: "/b.mp3", title: "Queen - Bohemian Rhapsody")
        let note = try await notifications.waitForCall(timeout: 30) { $0.summary == "Wish on B" }
        XCTAssertEqual(note.body, "Queen – Bohemian Rhapsody")
        XCTAssertEqual(note.hints["category"], "x-oton.wish")
        // The user clicks "Switch": the server emits ActionInvoked (for every id it gave; only the wish's is taken).
        for id in 1...4 {
            _ = try bus.run(
                "/usr/bin/gdbus",
                [
                    "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path",
                    "/org/freedesktop/Notifications", "--method", "org.freedesktop.DBus.Mock.EmitSignal",
                    "org.freedesktop.Notifications", "ActionInvoked", "us", "[<uint32 \(id)>, <'switch-to-wish'>]",
                ])
        }
        let deadline = Date().addingTimeInterval(30)
        var station = ""
        while Date() < deadline {
            let status = try ctl(["--json", "status"])
            station = (try? JSONValue.parse(Data(status.stdout.utf8)))?["data"]?["station"]?.stringValue ?? ""
            if station == "B" { break }
            usleep(200_000)
        }
        XCTAssertEqual(station, "B", directory.read("oton.log"))
    }
}
