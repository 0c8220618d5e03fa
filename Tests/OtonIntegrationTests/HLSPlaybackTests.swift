import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Live HLS as broadcasters publish it, on loopback (Tests/Fixtures/hls_server.py):
/// packed audio with timed ID3 titles, MPEG-TS segments, a master playlist, a server
/// that sends the playlist as text/html, HLS behind a PLS, and a station that goes off the air.
final class HLSPlaybackTests: XCTestCase {
    private var harnesses: [PlayerHarness] = []

    override func tearDown() async throws {
        harnesses.forEach { $0.stop() }
        harnesses = []
    }

    private func play(_ url: String, name: String = "HLS Test FM", retries: Int? = nil, userAgent: String? = nil) -> PlayerHarness {
        let harness = PlayerHarness(url: url, name: name, retries: retries, userAgent: userAgent)
        harnesses.append(harness)
        harness.start()
        return harness
    }

    /// Issue 39 §3: MPEG-TS segments without ID3 titles are titled by their `#EXTINF:1.0,Artist - Title`
    /// lines, cleaned as every stream title is (an escape sequence from the playlist loses its ESC),
    /// and a new title in the playlist follows. Before, such a station showed no title at all.
    func testEXTINFTitlesNameAStationWithoutID3Titles() throws {
        let station = try HLSStation(self, shape: .ts)
        let harness = play(station.url("/live.m3u8"))
        XCTAssertNotNil(
            harness.waitForTrack(title: "Song One", artist: "Artist A", timeout: 30),
            "the #EXTINF title names the track: \(harness.trackEvents.map(\.fields))")
        let sent = Clock.monotonicNanoseconds()
        try station.setTitle(artist: "Band B", title: "Tune\u{1B}[31mRed")
        let second = try XCTUnwrap(
            harness.waitForTrack(title: "Tune[31mRed", artist: "Band B", timeout: 30, after: sent),
            "the new #EXTINF title, its ESC removed: \(harness.trackEvents.map(\.fields))")
        XCTAssertFalse(second.fields.contains { $0.value.contains("\u{1B}") })
    }

    /// Issue 39 §3: `#EXTINF:1.0,title="…",artist="…"` attributes (as some HLS radio packagers write) name the track.
    func testEXTINFTitleAttributesNameTheTrack() throws {
        let station = try HLSStation(self, shape: .ts, options: ["--extinf-attributes"])
        let harness = play(station.url("/live.m3u8"))
        XCTAssertNotNil(
            harness.waitForTrack(title: "Song One", artist: "Artist A", timeout: 30),
            "the title=\"…\" and artist=\"…\" attributes name the track: \(harness.trackEvents.map(\.fields))")
    }

    /// Issue 39 §3 (first sound ≤ mpv's on HLS): the resolver reads the playlist to tell HLS from a list
    /// of stations; the pipeline's source delivers that body instead of fetching it again, so the first
    /// segment is asked for after one playlist request, not two (a round trip less before sound).
    func testThePlaylistTheResolverReadIsNotFetchedAgainBeforeTheFirstSegment() throws {
        let station = try HLSStation(self)
        let harness = play(station.url("/live.m3u8"))
        XCTAssertNotNil(harness.waitForState("playing", timeout: 20), "the station plays from the preloaded playlist")
        let requests = station.requests
        let beforeFirstSegment = requests.prefix { !$0.contains("/seg/") }
        XCTAssertLessThan(beforeFirstSegment.count, requests.count, "a segment was fetched: \(requests)")
        XCTAssertEqual(
            beforeFirstSegment.filter { $0.hasPrefix("/live.m3u8") }.count, 1,
            "one request of the playlist before the first segment: \(requests)")
        XCTAssertTrue(
            station.waitForSegments(moreThan: station.segmentRequests + 1, timeout: 30),
            "later reloads of the playlist bring the next segments: \(station.requests)")
    }

    func testPackedAudioPlaysWithItsTimedID3TitlesAndFollowsAChange() throws {
        let station = try HLSStation(self)
        let harness = play(station.url("/live.m3u8"))
        let first = try XCTUnwrap(
            harness.waitForTrack(title: "Song One", artist: "Artist A", timeout: 20),
            "the title comes from the segments' ID3 tags: \(harness.events.events.map(\.fields))")
        XCTAssertEqual(first.field("station"), "HLS Test FM", "the configured name names an HLS station (HLS has no icy-name)")
        XCTAssertEqual(first.field("stream_url"), station.url("/live.m3u8"))
        XCTAssertNotNil(harness.waitForState("playing"))
        let sent = Clock.monotonicNanoseconds()
        try station.setTitle(artist: "Artist B", title: "Песня Два")
        let second = try XCTUnwrap(
            harness.waitForTrack(title: "Песня Два", artist: "Artist B", timeout: 15, after: sent),
            "new segments bring the new title: \(harness.trackEvents.map(\.fields))")
        XCTAssertNotEqual(second.field("sequence"), first.field("sequence"))
        let fetched = station.segmentRequests
        XCTAssertTrue(station.waitForSegments(moreThan: fetched + 2), "segments keep being fetched while playing")
        XCTAssertNil(harness.events.events.first { $0.name == "state" && $0.field("state") == "error" }, "no error along the way")
    }

    /// Issue 27.11: one User-Agent. The playlist, its reloads (which GStreamer's demuxer makes with a
    /// downloader of its own, outside the pipeline) and every segment go out as oton's, not as
    /// "GStreamer souphttpsrc …": a CDN sees one client.
    func testEveryPlaylistReloadAndSegmentRequestCarriesOtonsUserAgent() throws {
        let station = try HLSStation(self)
        let harness = play(station.url("/live.m3u8"))
        let agents = try waitForReloads(of: station, harness)
        for request in agents {
            XCTAssertEqual(request.userAgent, OtonVersion.userAgent, "\(request.path)")
        }
    }

    /// A station's own `user_agent` goes out on every request made for it, reloads included.
    func testAStationsOwnUserAgentGoesOutOnEveryRequest() throws {
        let station = try HLSStation(self)
        let harness = play(station.url("/live.m3u8"), userAgent: "WinampMPEG/5.66")
        let agents = try waitForReloads(of: station, harness)
        for request in agents {
            XCTAssertEqual(request.userAgent, "WinampMPEG/5.66", "\(request.path)")
        }
    }

    /// Plays until the playlist has been reloaded three times (the first two requests are the
    /// resolver's and the pipeline's), then returns every request's User-Agent.
    private func waitForReloads(of station: HLSStation, _ harness: PlayerHarness) throws -> [(path: String, userAgent: String)] {
        XCTAssertNotNil(harness.waitForState("playing", timeout: 20), "\(harness.events.events.map(\.fields))")
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, station.agents.filter({ $0.path == "/live.m3u8" }).count < 5 { usleep(100_000) }
        let agents = station.agents
        XCTAssertGreaterThanOrEqual(agents.filter { $0.path == "/live.m3u8" }.count, 5, "the playlist and its reloads: \(agents)")
        XCTAssertTrue(agents.contains { $0.path.contains("/seg/") }, "\(agents)")
        return agents
    }

    func testMPEGTSSegmentsPlay() throws {
        let station = try HLSStation(self, shape: .ts)
        let harness = play(station.url("/live.m3u8"))
        XCTAssertNotNil(harness.waitForState("playing", timeout: 20), "\(harness.events.events.map(\.fields))")
        let fetched = station.segmentRequests
        XCTAssertTrue(station.waitForSegments(moreThan: fetched + 2), "segments keep being fetched while playing")
        XCTAssertTrue(station.requests.contains { $0.hasSuffix(".ts") })
        XCTAssertNil(harness.events.events.first { $0.name == "state" && $0.field("state") == "error" })
    }

    /// The master playlist names two variants; GStreamer's demuxer starts on the first listed
    /// (the HLS spec's starting variant) and switches as the measured bandwidth allows.
    func testMasterPlaylistPlaysAVariant() throws {
        let station = try HLSStation(self)
        let harness = play(station.url("/master.m3u8"))
        XCTAssertNotNil(harness.waitForTrack(title: "Song One", timeout: 20), "\(station.requests)")
        XCTAssertNotNil(harness.waitForState("playing"))
        let variants = Set(station.requests.filter { $0.hasSuffix("/live.m3u8") })
        XCTAssertFalse(variants.isEmpty, "a variant playlist was fetched: \(station.requests)")
        XCTAssertTrue(variants.isSubset(of: ["/high/live.m3u8", "/low/live.m3u8"]), "\(variants)")
        XCTAssertTrue(station.requests.contains { $0.hasPrefix("/high/seg/") || $0.hasPrefix("/low/seg/") }, "\(station.requests)")
    }

    func testHLSPlaylistServedAsHTMLIsSniffed() throws {
        let station = try HLSStation(self)
        let harness = play(station.url("/listen"))
        XCTAssertNotNil(harness.waitForTrack(title: "Song One", timeout: 20), "\(harness.events.events.map(\.fields))")
        XCTAssertTrue(station.requests.contains { $0.hasPrefix("/seg/") })
    }

    func testHLSBehindAPLSWithADeadFirstEntry() throws {
        let station = try HLSStation(self)
        let http = try LocalHTTPServer.start()
        defer { http.stop() }
        let dead = "http://127.0.0.1:\(try FreePort.allocate())/stream"
        let pls = "[playlist]\nFile1=\(dead)\nFile2=\(station.url("/live.m3u8"))\nTitle2=HLS via PLS\n"
        http.setRoute("/station.pls", CannedResponse(headers: ["Content-Type": "audio/x-scpls"], body: Data(pls.utf8)))
        let harness = play(http.url("/station.pls").absoluteString)
        let track = try XCTUnwrap(harness.waitForTrack(title: "Song One", timeout: 25), "\(harness.events.events.map(\.fields))")
        XCTAssertEqual(track.field("stream_url"), station.url("/live.m3u8"))
    }

    func testAStationOffTheAirIsRetriedAndPlaysAgainWhenBack() throws {
        let station = try HLSStation(self)
        let harness = play(station.url("/live.m3u8"), retries: 10)
        XCTAssertNotNil(harness.waitForState("playing", timeout: 20))
        let cut = Clock.monotonicNanoseconds()
        try station.stopServing()
        let lost = try XCTUnwrap(
            harness.events.wait(for: "state", timeout: 30) {
                $0.monotonicNanoseconds >= cut && ["reconnecting", "error"].contains($0.field("state") ?? "")
            }, "a station that answers 404 is noticed: \(harness.events.events.suffix(5).map(\.fields))")
        XCTAssertNotNil(lost.field("error_kind") ?? lost.field("retry_attempt"), "\(lost.fields)")
        let back = Clock.monotonicNanoseconds()
        try station.startServing()
        XCTAssertNotNil(harness.waitForState("playing", timeout: 40, after: back), "\(harness.events.events.suffix(6).map(\.fields))")
    }
}
