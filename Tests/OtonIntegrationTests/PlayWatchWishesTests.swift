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
        let oton = try OtonProcess(self, arguments: ["play", "A", "--headless"], plugins: plugins,
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
}
