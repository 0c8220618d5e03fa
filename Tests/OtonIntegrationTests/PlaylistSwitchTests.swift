import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Switching to playlist URLs in a running `oton play`: a station of plugins.json whose URL is a
/// PLS (with a dead first entry) and an M3U URL given to `oton ctl station`. Each switch fetches the
/// playlist again from a local HTTP server and plays its live entry from a real Icecast.
final class PlaylistSwitchTests: XCTestCase {
    private var server: IcecastServer!
    private var http: LocalHTTPServer!

    override func setUp() async throws {
        server = try await IcecastServer.start()
        http = try LocalHTTPServer.start()
    }

    override func tearDown() async throws {
        http?.stop()
        server?.stop()
    }

    func testSwitchesToPlaylistURLsResolveThemEveryTime() async throws {
        _ = try await server.startSource(mount: "/a.mp3", format: .mp3, initialTitle: "Artist A - Song A", stationName: "Alpha FM")
        _ = try await server.startSource(mount: "/b.mp3", format: .mp3, initialTitle: "Artist B - Song B", stationName: "Beta FM")
        let (alpha, beta) = (server.url(mount: "/a.mp3").absoluteString, server.url(mount: "/b.mp3").absoluteString)
        let dead = "http://127.0.0.1:\(try FreePort.allocate())/gone.mp3"
        http.setRoute(
            "/beta.pls",
            CannedResponse(
                headers: ["Content-Type": "audio/x-scpls"],
                body: Data(
                    "[playlist]\nNumberOfEntries=2\nFile1=\(dead)\nFile2=\(beta)\nVersion=2\n".utf8)))
        http.setRoute("/alpha.m3u", CannedResponse(headers: ["Content-Type": "audio/x-mpegurl"], body: Data("#EXTM3U\n\(alpha)\n".utf8)))
        let oton = try OtonProcess(
            self, arguments: ["play", "Alpha", "--headless"],
            plugins: """
                {"stations": [{"name": "Alpha", "url": "\(alpha)"}, {"name": "Beta list", "url": "\(http.url("/beta.pls"))"}], "plugins": []}
                """)
        let events = try oton.connect()
        try events.write(["subscribe"])
        XCTAssertEqual(try events.nextObject()["ok"]?.boolValue, true)
        XCTAssertNotNil(events.waitForEvent("track") { $0["title"] == "Song A" }, oton.directory.read("stderr.log"))

        // A listed station whose URL is a playlist: next resolves it past its dead first entry.
        XCTAssertEqual(try oton.ctl(["next"]).stdout, "switching to Beta list\n")
        let first = events.waitForEvent("track") { $0["title"] == "Song B" }
        XCTAssertEqual(first?["stream_url"], beta, "the pipeline opened the playlist's live entry: \(oton.directory.read("stderr.log"))")
        XCTAssertEqual(http.requests(path: "/beta.pls").count, 1)

        // An M3U URL that plugins.json does not list: played from its entry, placed after Beta list.
        let m3u = http.url("/alpha.m3u").absoluteString
        XCTAssertEqual(try oton.ctl(["station", m3u]).stdout, "switching to 127.0.0.1\n")
        let second = events.waitForEvent("track") { $0["title"] == "Song A" }
        XCTAssertEqual(second?["stream_url"], alpha)
        XCTAssertEqual(http.requests(path: "/alpha.m3u").count, 1)
        let list = try oton.ctl(["stations"]).stdout
        XCTAssertEqual(list, "  1  Alpha  \(alpha)\n  2  Beta list  \(http.url("/beta.pls"))\n▶ 3  127.0.0.1  \(m3u)\n")

        // Back to the playlist station: its playlist is fetched again, not remembered from before.
        XCTAssertEqual(try oton.ctl(["prev"]).stdout, "switching to Beta list\n")
        XCTAssertNotNil(events.waitForEvent("track") { $0["title"] == "Song B" && $0["stream_url"] == beta })
        XCTAssertEqual(http.requests(path: "/beta.pls").count, 2, "every switch resolves the playlist again")
        XCTAssertTrue(try oton.ctl(["status"]).stdout.hasPrefix("playing · Beta list"))
    }
}
