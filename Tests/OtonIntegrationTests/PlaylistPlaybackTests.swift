import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Playlist URLs against real peers: a local HTTP server serves the playlist
/// (with and without the right Content-Type), Icecast serves the stream.
final class PlaylistPlaybackTests: XCTestCase {
    private var server: IcecastServer!
    private var http: LocalHTTPServer!
    private var harnesses: [PlayerHarness] = []
    private let mount = "/test.mp3"

    override func setUp() async throws {
        server = try await IcecastServer.start()
        http = try LocalHTTPServer.start()
    }

    override func tearDown() async throws {
        harnesses.forEach { $0.stop() }
        harnesses = []
        http?.stop()
        server?.stop()
    }

    private var streamURL: String { server.url(mount: mount).absoluteString }

    /// A loopback URL nobody listens on.
    private func deadURL() throws -> String { "http://127.0.0.1:\(try FreePort.allocate())/stream" }

    private func play(_ url: String, retries: Int? = nil) -> PlayerHarness {
        let harness = PlayerHarness(url: url, retries: retries)
        harnesses.append(harness)
        harness.start()
        return harness
    }

    /// Serves `body` at `path`, starts the player on it and checks the whole shape:
    /// playing, the initial title, the station name, the stream URL used, and a title change.
    private func checkPlays(path: String, contentType: String, body: String) async throws {
        _ = try await server.startSource(mount: mount, format: .mp3, initialTitle: "Artist A - Song One", stationName: "Oton Test FM")
        http.setRoute(path, CannedResponse(headers: ["Content-Type": contentType], body: Data(body.utf8)))
        let harness = play(http.url(path).absoluteString)
        let first = try XCTUnwrap(
            harness.waitForTrack(title: "Song One", artist: "Artist A", timeout: 15),
            "the playlist's live entry plays: \(harness.events.events.map(\.fields))")
        XCTAssertEqual(first.field("stream_url"), streamURL, "the pipeline opened the entry, not the playlist")
        XCTAssertNotNil(harness.waitForState("playing"))
        XCTAssertNotNil(harness.events.wait(for: "track") { $0.field("station") == "Oton Test FM" })
        let sent = Clock.monotonicNanoseconds()
        try await server.setTitle(mount: mount, title: "Artist B - Song Two")
        XCTAssertNotNil(harness.waitForTrack(title: "Song Two", artist: "Artist B", timeout: 5, after: sent), "audio and titles keep flowing")
        XCTAssertFalse(http.requests(path: path).isEmpty)
    }

    func testPLSFallsThroughADeadFirstEntry() async throws {
        let body = "[playlist]\nNumberOfEntries=2\nFile1=\(try deadURL())\nTitle1=Dead\nFile2=\(streamURL)\nTitle2=Live\nVersion=2\n"
        try await checkPlays(path: "/station.pls", contentType: "audio/x-scpls", body: body)
    }

    func testPLSServedAsHTMLIsSniffed() async throws {
        try await checkPlays(path: "/listen", contentType: "text/html", body: "[playlist]\r\nFile1=\(streamURL)\r\n")
    }

    func testExtendedM3UServedAsHTMLIsSniffed() async throws {
        let body = "#EXTM3U\n#EXTINF:-1,Dead\n\(try deadURL())\n#EXTINF:-1,Oton Test\n\(streamURL)\n"
        try await checkPlays(path: "/listen.php", contentType: "text/html", body: body)
    }

    func testPlainM3UServedAsHTMLIsSniffed() async throws {
        try await checkPlays(path: "/tune-in", contentType: "text/html", body: "\(try deadURL())\n\(streamURL)\n")
    }

    func testXSPFServedAsHTMLIsSniffed() async throws {
        let body = """
            <?xml version="1.0" encoding="UTF-8"?>
            <playlist version="1" xmlns="http://xspf.org/ns/0/"><title>Oton XSPF</title><trackList>
            <track><location>\(try deadURL())</location></track><track><location>\(streamURL)</location></track>
            </trackList></playlist>
            """
        try await checkPlays(path: "/playlist", contentType: "text/html", body: body)
    }

    func testASXServedAsHTMLIsSniffed() async throws {
        let body = "<ASX version=\"3.0\"><ENTRY><REF HREF=\"\(try deadURL())\"/><REF HREF=\"\(streamURL)\"/></ENTRY></ASX>"
        try await checkPlays(path: "/asx", contentType: "text/html", body: body)
    }

    func testRelativeEntryInANestedPlaylist() async throws {
        // outer.m3u → inner.pls (relative) → the stream; the inner playlist is found by its extension.
        http.setRoute("/lists/inner.pls", CannedResponse(headers: ["Content-Type": "audio/x-scpls"], body: Data("[playlist]\nFile1=\(streamURL)\n".utf8)))
        try await checkPlays(path: "/lists/outer.m3u", contentType: "audio/x-mpegurl", body: "inner.pls\n")
    }

    func testEveryEntryDeadEndsInAPlaylistError() async throws {
        http.setRoute(
            "/dead.pls",
            CannedResponse(
                headers: ["Content-Type": "audio/x-scpls"],
                body: Data("[playlist]\nFile1=\(try deadURL())\nFile2=\(try deadURL())\n".utf8)))
        let harness = play(http.url("/dead.pls").absoluteString, retries: 0)
        let error = try XCTUnwrap(harness.waitForState("error"))
        XCTAssertTrue(error.field("error_message")?.contains("None of the 2 streams") == true, "\(error.fields)")
    }

    func testPlaylistThatIncludesItselfStops() async throws {
        http.setRoute("/loop.m3u", CannedResponse(headers: ["Content-Type": "audio/x-mpegurl"], body: Data("loop.m3u\n".utf8)))
        let harness = play(http.url("/loop.m3u").absoluteString, retries: 0)
        let error = try XCTUnwrap(harness.waitForState("error"))
        XCTAssertTrue(error.field("error_message")?.contains("levels deep") == true, "\(error.fields)")
    }

    func testLocalM3UFile() async throws {
        _ = try await server.startSource(mount: mount, format: .mp3, initialTitle: "Artist A - Song One", stationName: "Oton Test FM")
        let file = try TemporaryDirectory(self).write("station.m3u", "#EXTM3U\n\(streamURL)\n")
        let harness = play(file)
        let first = try XCTUnwrap(harness.waitForTrack(title: "Song One", timeout: 15))
        XCTAssertEqual(first.field("stream_url"), streamURL)
    }
}
