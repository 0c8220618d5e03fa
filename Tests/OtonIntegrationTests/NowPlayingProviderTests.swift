import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Titles for stations whose stream has none, found without configuration (docs/titles.md): a real
/// Icecast behind a relay that never asks for ICY metadata, a SHOUTcast v1 `7.html`, an AzuraCast-shaped
/// API, and hostile providers, on real pipelines.
final class NowPlayingProviderTests: XCTestCase {
    private var saved: [String: String?] = [:]

    /// A 1 s quiet spell instead of 60 s, and a state folder of the test's own.
    private func environment(_ directory: TemporaryDirectory) {
        for (key, value) in ["OTON_NOW_PLAYING_QUIET_SECONDS": "1", "XDG_STATE_HOME": directory.file("state")] {
            saved[key] = ProcessInfo.processInfo.environment[key]
            setenv(key, value, 1)
        }
    }

    override func tearDown() {
        for (key, value) in saved {
            if let value { setenv(key, value, 1) } else { unsetenv(key) }
        }
        saved = [:]
        super.tearDown()
    }

    /// An MP3 without tags, about 46 s long.
    private func untaggedMP3(_ directory: TemporaryDirectory) throws -> Data {
        let path = directory.file("untagged.mp3")
        let result = try runProcess(
            "/usr/bin/env",
            ["gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=2000", "!", "audioconvert", "!", "lamemp3enc", "!", "filesink", "location=\(path)"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    private func found(_ directory: TemporaryDirectory) -> String {
        (try? String(contentsOfFile: directory.file("state/oton/now-playing-found.json"), encoding: .utf8)) ?? ""
    }

    func testIcecastStatusPageTitlesAStreamWithoutICYMetadata() async throws {
        let directory = try TemporaryDirectory(self)
        environment(directory)
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Relay FM")
        let relay = try ScriptServer(self, script: "icy_stripping_relay.py", arguments: [String(server.port)])
        let harness = PlayerHarness(url: relay.url("/live.mp3"))
        harness.start()
        defer { harness.stop() }
        let first = try XCTUnwrap(harness.waitForTrack(title: "Song One", artist: "Artist A", timeout: 30), "\(harness.trackEvents)")
        XCTAssertEqual(first.field("title_source"), "provider:icecast")
        XCTAssertTrue(relay.printed.contains { $0.hasPrefix("GET /status-json.xsl") }, "\(relay.printed)")
        XCTAssertTrue(found(directory).contains("icecast"), "kept for the station: \(found(directory))")
        // The source changes its title through Icecast's admin API: it shows within one poll interval (15 s).
        try await server.setTitle(mount: "/live.mp3", artist: "Artist B", title: "Song Two")
        let second = try XCTUnwrap(harness.waitForTrack(title: "Song Two", artist: "Artist B", timeout: 40), "\(harness.trackEvents)")
        XCTAssertEqual(second.field("title_source"), "provider:icecast")
        XCTAssertEqual(harness.player.state, .playing)
    }

    func testAStreamThatNamesItsSongsIsNotAskedAbout() async throws {
        let directory = try TemporaryDirectory(self)
        environment(directory)
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Relay FM")
        let relay = try ScriptServer(self, script: "icy_stripping_relay.py", arguments: [String(server.port), "--keep-icy"])
        let harness = PlayerHarness(url: relay.url("/live.mp3"))
        harness.start()
        defer { harness.stop() }
        let first = try XCTUnwrap(harness.waitForTrack(title: "Song One", artist: "Artist A", timeout: 30), "\(harness.trackEvents)")
        XCTAssertEqual(first.field("title_source"), "stream")
        // Five quiet spells of the test (1 s each) pass: the stream has a title, so no provider is asked.
        try await Task.sleep(for: .seconds(5))
        XCTAssertFalse(relay.printed.contains { $0.hasPrefix("GET /status-json.xsl") }, "\(relay.printed)")
        let titled = harness.trackEvents.filter { $0.field("title") != nil }
        XCTAssertTrue(titled.allSatisfy { $0.field("title_source") == "stream" }, "\(titled.map { $0.field("title_source") ?? "-" })")
    }

    func testShoutcastV1SevenHTMLTitlesTheStream() throws {
        let directory = try TemporaryDirectory(self)
        environment(directory)
        let audio = try untaggedMP3(directory)
        let http = try LocalHTTPServer.start(routes: [
            "/stream": CannedResponse(headers: ["Content-Type": "audio/mpeg"], body: audio),
            "/7.html": .html("<HTML><meta http-equiv=\"Pragma\" content=\"no-cache\"></head><body>1,1,4,100,1,128,Kyunney - Saham sire</body></html>"),
        ])
        defer { http.stop() }
        let harness = PlayerHarness(url: http.url("/stream").absoluteString)
        harness.start()
        defer { harness.stop() }
        let track = try XCTUnwrap(harness.waitForTrack(title: "Saham sire", artist: "Kyunney", timeout: 30), "\(harness.trackEvents)")
        XCTAssertEqual(track.field("title_source"), "provider:shoutcast1")
        // Tried once each, in order: Icecast's and SHOUTcast 2's pages do not exist here.
        XCTAssertEqual(http.requests(path: "/status-json.xsl").count, 1)
        XCTAssertEqual(http.requests(path: "/stats").count, 1)
    }

    func testAzuraCastAPIChangesAreFollowed() throws {
        let directory = try TemporaryDirectory(self)
        environment(directory)
        let audio = try untaggedMP3(directory)
        let song = LockedValue(("First Artist", "First Song"))
        let http = try LocalHTTPServer.start(routes: ["/listen/oton_test/radio.mp3": CannedResponse(headers: ["Content-Type": "audio/mpeg"], body: audio)])
        defer { http.stop() }
        http.setHandler { request in
            guard request.path == "/api/nowplaying/oton_test" else { return nil }
            let (artist, title) = song.get()
            return .json(
                #"{"station":{"name":"Oton Azura"},"now_playing":{"played_at":1732873200,"duration":200,"song":{"artist":"\#(artist)","title":"\#(title)","text":"\#(artist) - \#(title)","art":"https://img.example.com/a.jpg"}}}"#
            )
        }
        let harness = PlayerHarness(url: http.url("/listen/oton_test/radio.mp3").absoluteString)
        harness.start()
        defer { harness.stop() }
        let first = try XCTUnwrap(harness.waitForTrack(title: "First Song", artist: "First Artist", timeout: 30), "\(harness.trackEvents)")
        XCTAssertEqual(first.field("title_source"), "provider:azuracast")
        XCTAssertEqual(first.field("artwork_url"), "https://img.example.com/a.jpg")
        song.set(("Second Artist", "Second Song"))
        XCTAssertNotNil(harness.waitForTrack(title: "Second Song", artist: "Second Artist", timeout: 40), "\(harness.trackEvents)")
        // Never more than one request per poll interval (15 s): the first try, then one poll.
        XCTAssertLessThanOrEqual(http.requests(path: "/api/nowplaying/oton_test").count, 3)
    }

    /// A status page that never answers: its rule's bound (5 s) ends the wait, playback goes on and the
    /// next rule is asked.
    func testAProviderThatNeverAnswersBlocksNeitherPlaybackNorTheNextRule() throws {
        let directory = try TemporaryDirectory(self)
        environment(directory)
        let audio = try untaggedMP3(directory)
        let release = DispatchSemaphore(value: 0)
        let http = try LocalHTTPServer.start(
            routes: [
                "/stream": CannedResponse(headers: ["Content-Type": "audio/mpeg"], body: audio),
                "/7.html": .html("<html><body>1,1,4,100,1,128,Kyunney - Saham sire</body></html>"),
            ],
            handler: { request in
                // Icecast's page hangs until the test ends (a server that accepted and never answers).
                if request.path == "/status-json.xsl" { _ = release.wait(timeout: .now() + 120) }
                return nil
            })
        defer {
            for _ in 0..<4 { release.signal() }
            http.stop()
        }
        let harness = PlayerHarness(url: http.url("/stream").absoluteString)
        harness.start()
        defer { harness.stop() }
        XCTAssertNotNil(harness.waitForState("playing"))
        let track = try XCTUnwrap(harness.waitForTrack(title: "Saham sire", artist: "Kyunney", timeout: 45), "\(harness.trackEvents)")
        XCTAssertEqual(track.field("title_source"), "provider:shoutcast1")
        XCTAssertEqual(http.requests(path: "/status-json.xsl").count, 1, "the hanging page was asked once")
        XCTAssertEqual(harness.player.state, .playing, "the hanging provider never held playback up")
    }

    func testHostileProvidersNeverShowAForeignTitleNorStopPlayback() throws {
        let directory = try TemporaryDirectory(self)
        environment(directory)
        let audio = try untaggedMP3(directory)
        let http = try LocalHTTPServer.start(routes: [
            "/stream": CannedResponse(headers: ["Content-Type": "audio/mpeg"], body: audio),
            // Another mount's title only: never shown as this station's.
            "/status-json.xsl": .json(#"{"icestats":{"source":{"listenurl":"http://127.0.0.1/other","title":"Foreign - Title"}}}"#),
            // Markup instead of SHOUTcast 2's XML.
            "/stats?sid=1": .html("<html><script>alert(1)</script><SONGTITLE>Injected</html>"),
        ])
        defer { http.stop() }
        // SHOUTcast 1's page is huge: cut at the cap, never read whole.
        let huge = Data("<html><body>1,1,1,1,1,128,".utf8) + Data(repeating: UInt8(ascii: "x"), count: 8 << 20)
        http.setRoute("/7.html", CannedResponse(headers: ["Content-Type": "text/html"], body: huge))
        let harness = PlayerHarness(url: http.url("/stream").absoluteString)
        harness.start()
        defer { harness.stop() }
        XCTAssertNotNil(harness.waitForState("playing"))
        let deadline = Date().addingTimeInterval(30)
        while http.requests(path: "/7.html").isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        XCTAssertFalse(http.requests(path: "/7.html").isEmpty, "every matching rule was tried")
        Thread.sleep(forTimeInterval: 2)
        XCTAssertTrue(harness.trackEvents.allSatisfy { $0.field("title") == nil }, "\(harness.trackEvents.map { $0.field("title") ?? "-" })")
        XCTAssertEqual(harness.player.state, .playing)
        XCTAssertEqual(found(directory), "", "nothing kept for a station no rule titled")
    }

    /// Waits for a line the script printed.
    private func waitForLine(_ server: ScriptServer, _ prefix: String, timeout: TimeInterval = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if server.printed.contains(where: { $0.hasPrefix(prefix) }) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// A push reaches the track event this fast (the poll interval is 15 s: a title this fast came by push).
    private static let pushBound: TimeInterval = 3

    func testAzuraCastPushesShowAtOnce() throws {
        let directory = try TemporaryDirectory(self)
        environment(directory)
        let file = directory.file("audio.mp3")
        try untaggedMP3(directory).write(to: URL(fileURLWithPath: file))
        let server = try ScriptServer(self, script: "now_playing_push_server.py", arguments: [file])
        let harness = PlayerHarness(url: server.url("/listen/oton_test/radio.mp3"))
        harness.start()
        defer { harness.stop() }
        let first = try XCTUnwrap(harness.waitForTrack(title: "First Song", artist: "First Artist", timeout: 30), "\(harness.trackEvents)")
        XCTAssertEqual(first.field("title_source"), "provider:azuracast")
        XCTAssertTrue(waitForLine(server, "SSE /api/live/nowplaying/sse"), "the SSE channel is followed: \(server.printed)")
        let pushedAt = Date()
        server.send("azura Pushed Artist|Pushed Song")
        let pushed = try XCTUnwrap(harness.waitForTrack(title: "Pushed Song", artist: "Pushed Artist", timeout: 20), "\(harness.trackEvents)")
        print(String(format: "[measure] AzuraCast SSE push to track event: %.3f s", Date().timeIntervalSince(pushedAt)))
        XCTAssertLessThan(Date().timeIntervalSince(pushedAt), Self.pushBound)
        XCTAssertEqual(pushed.field("title_source"), "provider:azuracast")
    }

    func testZenoPushOnlyChannelIsFoundAndFollowed() throws {
        let directory = try TemporaryDirectory(self)
        environment(directory)
        let file = directory.file("audio.mp3")
        try untaggedMP3(directory).write(to: URL(fileURLWithPath: file))
        let server = try ScriptServer(self, script: "now_playing_push_server.py", arguments: [file])
        // The user's rule of the same name replaces oton's Zeno rule, pointed at loopback (tests touch nothing else).
        let config = directory.file("config/oton")
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        let push = "http://127.0.0.1:\(server.port)/mounts/metadata/subscribe/{mount}"
        try
            #"{"rules":[{"name":"zeno","match":"^http://127\\.0\\.0\\.1:\\d+/zeno/(?<mount>[a-z0-9]+)","url":"\#(push)","push":"\#(push)","fields":{"text":"streamTitle"}}]}"#
            .write(toFile: config + "/now-playing.json", atomically: true, encoding: .utf8)
        saved["XDG_CONFIG_HOME"] = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"]
        setenv("XDG_CONFIG_HOME", directory.file("config"), 1)
        let harness = PlayerHarness(url: server.url("/zeno/zmount"))
        harness.start()
        defer { harness.stop() }
        let first = try XCTUnwrap(harness.waitForTrack(title: "Z Song", artist: "Z Artist", timeout: 30), "\(harness.trackEvents)")
        XCTAssertEqual(first.field("title_source"), "provider:zeno")
        let pushedAt = Date()
        server.send("zeno Next Artist - Next Song")
        XCTAssertNotNil(harness.waitForTrack(title: "Next Song", artist: "Next Artist", timeout: 20), "\(harness.trackEvents)")
        print(String(format: "[measure] Zeno SSE push to track event: %.3f s", Date().timeIntervalSince(pushedAt)))
        XCTAssertLessThan(Date().timeIntervalSince(pushedAt), Self.pushBound)
    }
}
