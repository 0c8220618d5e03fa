import Foundation
import XCTest

@testable import IcecastFixture

final class IcecastFixtureTests: XCTestCase {
    /// Everything a test started; stopped in tearDown whatever happened.
    private var servers: [IcecastServer] = []
    private var listeners: [StreamListener] = []
    private var httpServers: [LocalHTTPServer] = []

    override func tearDown() async throws {
        listeners.forEach { $0.stop() }
        servers.forEach { $0.stop() }
        httpServers.forEach { $0.stop() }
        listeners = []; servers = []; httpServers = []
        try await super.tearDown()
    }

    private func startServer(_ configuration: IcecastServer.Configuration = .init()) async throws -> IcecastServer {
        let t0 = Date()
        let server = try await IcecastServer.start(configuration)
        servers.append(server)
        print("[timing] icecast ready after \(ms(since: t0)) ms on port \(server.port)")
        return server
    }

    private func listen(_ url: URL) throws -> StreamListener {
        let listener = try StreamListener.start(url: url)
        listeners.append(listener)
        return listener
    }

    private func ms(since date: Date) -> Int { Int(Date().timeIntervalSince(date) * 1000) }

    // MARK: Server

    func testServerStartsStatusIsEmptyAndUnknownMountIs404() async throws {
        let server = try await startServer()
        let status = try await server.status()
        XCTAssertEqual(status.serverID?.hasPrefix("Icecast 2"), true)
        XCTAssertTrue(status.mounts.isEmpty)

        let missing = try await server.get("/missing.mp3")
        XCTAssertEqual(missing.status, 404)

        let listener = try listen(server.url(mount: "/missing.mp3"))
        let error = try await listener.waitForError(timeout: 5)
        XCTAssertTrue(error.contains("404") || error.lowercased().contains("not found"), error)

        server.stop()
        XCTAssertFalse(server.isRunning)
        await XCTAssertThrowsErrorAsync(try await SimpleHTTPClient.get(port: server.port, path: "/status-json.xsl"))
    }

    // MARK: MP3

    func testMP3InitialTitleOnConnectAndLiveTitleChange() async throws {
        let server = try await startServer()
        let t0 = Date()
        _ = try await server.startSource(
            mount: "/test.mp3", format: .mp3, initialTitle: "Artist A - Song One",
            stationName: "Oton Test FM", genre: "Test")
        print("[timing] mp3 mount live after \(ms(since: t0)) ms")

        let status = try await server.status()
        XCTAssertEqual(status.mounts.count, 1)
        XCTAssertEqual(status.mount("/test.mp3")?.title, "Artist A - Song One")
        XCTAssertEqual(status.mount("/test.mp3")?.serverName, "Oton Test FM")
        XCTAssertEqual(status.mount("/test.mp3")?.serverType, "audio/mpeg")

        let listener = try listen(server.url(mount: "/test.mp3"))
        let first = try await listener.waitForTitle("Artist A - Song One", timeout: 5)
        print("[timing] mp3 initial title seen \(Int(first.scriptTime * 1000)) ms after listener start")
        try await listener.waitForEvent(timeout: 2, "station tags") {
            $0.tags["organization"] == "Oton Test FM" && $0.tags["genre"] == "Test"
        }

        for (i, title) in ["Artist B - Song Two", "Artist C - Song Three"].enumerated() {
            let sent = Date()
            try await server.setTitle(mount: "/test.mp3", title: title)
            let seen = try await listener.waitForTitle(title, timeout: 2, since: sent)
            print("[timing] mp3 title change \(i + 1) seen after \(Int(seen.receivedAt.timeIntervalSince(sent) * 1000)) ms")
        }
        XCTAssertEqual(listener.titles.suffix(3), ["Artist A - Song One", "Artist B - Song Two", "Artist C - Song Three"])

        // artist/title given separately: icecast joins them into the ICY title.
        try await server.setTitle(mount: "/test.mp3", artist: "Artist D", title: "Song Four")
        try await listener.waitForTitle("Artist D - Song Four", timeout: 2)
        try await server.waitForMount("/test.mp3", timeout: 2) { $0.title == "Artist D - Song Four" }
    }

    // MARK: Ogg Vorbis

    func testOggInitialTitleOnConnectAndLiveTitleChange() async throws {
        let server = try await startServer()
        let t0 = Date()
        _ = try await server.startSource(
            mount: "/test.ogg", format: .ogg, initialTitle: "Artist A - Song One",
            stationName: "Oton Test FM", genre: "Test")
        print("[timing] ogg mount live after \(ms(since: t0)) ms")
        let oggStatus = try await server.status()
        let mount = try XCTUnwrap(oggStatus.mount("/test.ogg"))
        XCTAssertEqual(mount.artist, "Artist A")
        XCTAssertEqual(mount.title, "Song One")
        XCTAssertEqual(mount.serverType, "application/ogg")

        let listener = try listen(server.url(mount: "/test.ogg"))
        let first = try await listener.waitForTitle("Artist A - Song One", timeout: 5)
        print("[timing] ogg initial title seen \(Int(first.scriptTime * 1000)) ms after listener start")
        XCTAssertEqual(first.tags["artist"], "Artist A")
        XCTAssertEqual(first.tags["title"], "Song One")

        for (i, title) in ["Artist B - Song Two", "Artist C - Song Three"].enumerated() {
            let sent = Date()
            try await server.setTitle(mount: "/test.ogg", title: title)
            let seen = try await listener.waitForTitle(title, timeout: 2, since: sent)
            print("[timing] ogg title change \(i + 1) seen after \(Int(seen.receivedAt.timeIntervalSince(sent) * 1000)) ms: \(seen.tags)")
            // the rebuilt comment header carries separate ARTIST/TITLE comments
            XCTAssertEqual(seen.tags["artist"], IcecastServer.splitArtistTitle(title)?.0)
        }
        // Status is updated once icecast has rebuilt the stream headers.
        try await server.waitForMount("/test.ogg", timeout: 2) { $0.title == "Song Three" && $0.artist == "Artist C" }
        XCTAssertEqual(listener.titles.suffix(3), ["Artist A - Song One", "Artist B - Song Two", "Artist C - Song Three"])

        // A listener connecting now gets the current title last (with burst-on-connect
        // it may first see older chains contained in the burst).
        let late = try listen(server.url(mount: "/test.ogg"))
        try await late.waitForTitle("Artist C - Song Three", timeout: 5)
        print("[info] late ogg listener titles: \(late.titles)")
    }

    func testTitlesWithQuotesCommasAndUnicode() async throws {
        let server = try await startServer()
        let initial = #"Sigur Rós - "Hoppípolla", live"#
        let changed = #"Motörhead - Ace of Spades (It's "live")"#
        for (mount, format) in [("/odd.mp3", StreamFormat.mp3), ("/odd.ogg", .ogg)] {
            _ = try await server.startSource(mount: mount, format: format, initialTitle: initial)
            let listener = try listen(server.url(mount: mount))
            try await listener.waitForTitle(initial, timeout: 5)
            let sent = Date()
            try await server.setTitle(mount: mount, title: changed)
            try await listener.waitForTitle(changed, timeout: 3, since: sent)
        }
    }

    // MARK: Crash and restart

    func testKillingAndRestartingTheSource() async throws {
        let server = try await startServer()
        for (mount, format) in [("/test.mp3", StreamFormat.mp3), ("/test.ogg", .ogg)] {
            let source = try await server.startSource(mount: mount, format: format, initialTitle: "Artist A - Song One")
            let listener = try listen(server.url(mount: mount))
            try await listener.waitForTitle("Artist A - Song One", timeout: 5)

            let killedAt = Date()
            source.kill()
            XCTAssertFalse(source.isRunning)
            let end = try await listener.waitForEvent(timeout: 5, "eos or error after source kill") {
                $0.kind == .eos || $0.kind == .error
            }
            print("[timing] \(format) listener saw \(end.kind) \(ms(since: killedAt)) ms after SIGKILL")
            try await server.waitForMountGone(mount, timeout: 5)
            print("[timing] \(format) mount gone \(ms(since: killedAt)) ms after SIGKILL")

            let restartAt = Date()
            try await source.restart(initialTitle: "Artist R - Restarted")
            print("[timing] \(format) source restarted in \(ms(since: restartAt)) ms")
            XCTAssertTrue(source.isRunning)
            let again = try listen(server.url(mount: mount))
            try await again.waitForTitle("Artist R - Restarted", timeout: 5)
            try await server.setTitle(mount: mount, title: "Artist S - After Restart")
            try await again.waitForTitle("Artist S - After Restart", timeout: 2)
        }
    }

    // MARK: status-json.xsl

    func testStatusJSONListsSeveralMountsAsArray() async throws {
        let server = try await startServer()
        _ = try await server.startSource(
            mount: "/one.mp3", format: .mp3, initialTitle: "One - Mp3",
            stationName: "Station One", genre: "Jazz")
        // One mount: icestats.source is an object.
        let single = try await server.get("/status-json.xsl")
        let singleRoot = try XCTUnwrap(try JSONSerialization.jsonObject(with: single.body) as? [String: Any])
        XCTAssertTrue((singleRoot["icestats"] as? [String: Any])?["source"] is [String: Any])

        _ = try await server.startSource(
            mount: "/two.ogg", format: .ogg, initialTitle: "Two - Ogg",
            stationName: "Station Two", genre: "Rock")
        let several = try await server.get("/status-json.xsl")
        let severalRoot = try XCTUnwrap(try JSONSerialization.jsonObject(with: several.body) as? [String: Any])
        XCTAssertTrue((severalRoot["icestats"] as? [String: Any])?["source"] is [[String: Any]])

        let status = try IcecastStatus.parse(several.body)
        XCTAssertEqual(Set(status.mounts.map(\.mount)), ["/one.mp3", "/two.ogg"])
        XCTAssertEqual(status.mount("/one.mp3")?.serverName, "Station One")
        XCTAssertEqual(status.mount("/one.mp3")?.genre, "Jazz")
        XCTAssertEqual(status.mount("/two.ogg")?.serverName, "Station Two")
        XCTAssertEqual(status.mount("/two.ogg")?.title, "Ogg")
        XCTAssertEqual(status.mount("/two.ogg")?.listenURL, "http://127.0.0.1:\(server.port)/two.ogg")
    }

    // MARK: Local HTTP server

    func testLocalHTTPServerServesCannedResponsesAndRecordsRequests() async throws {
        let http = try LocalHTTPServer.start(routes: ["/": .html("<html><body>Not a stream</body></html>")])
        httpServers.append(http)
        http.setRoute("/api/v2/status", .json(#"{"status":"online","current_track":{"title":"A - B"}}"#))
        http.setHandler { request in
            request.path == "/protected" && request.headers["authorization"] == nil ? .text("no", status: 401) : nil
        }

        let json = try await SimpleHTTPClient.get(port: http.port, path: "/api/v2/status?station=s123")
        XCTAssertEqual(json.status, 200)
        XCTAssertEqual(json.headers["content-type"], "application/json")
        XCTAssertTrue(json.text.contains("online"))
        let recorded = try await http.waitForRequest(path: "/api/v2/status")
        XCTAssertEqual(recorded.query["station"], "s123")
        XCTAssertEqual(recorded.method, "GET")

        let missing = try await SimpleHTTPClient.get(port: http.port, path: "/nothing")
        XCTAssertEqual(missing.status, 404)
        let denied = try await SimpleHTTPClient.get(port: http.port, path: "/protected")
        XCTAssertEqual(denied.status, 401)

        let post = try await SimpleHTTPClient.request(
            method: "POST", port: http.port, path: "/submit",
            headers: ["Content-Type": "application/json"], body: Data(#"{"listens":[]}"#.utf8))
        XCTAssertEqual(post.status, 404)
        XCTAssertEqual(http.requests(path: "/submit").first?.body, Data(#"{"listens":[]}"#.utf8))

        // GStreamer pointed at an HTML page fails instead of playing.
        let listener = try listen(http.url("/"))
        let error = try await listener.waitForError(timeout: 5)
        print("[info] listener error on HTML endpoint: \(error.prefix(160))")
        let hit = try await http.waitForRequest(path: "/")
        XCTAssertEqual(hit.headers["user-agent"], "OtonTestListener/1.0")
        XCTAssertEqual(hit.headers["icy-metadata"], "1")

        http.stop()
        await XCTAssertThrowsErrorAsync(try await SimpleHTTPClient.get(port: http.port, path: "/"))
    }
}

func XCTAssertThrowsErrorAsync<T>(
    _ expression: @autoclosure () async throws -> T, file: StaticString = #filePath, line: UInt = #line
) async {
    do {
        _ = try await expression()
        XCTFail("expected an error", file: file, line: line)
    } catch {}
}
