import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// The playback engine against a real Icecast2 server on loopback, fed by gst-launch-1.0.
final class PlaybackFromIcecastTests: XCTestCase {
    private var server: IcecastServer!
    private var harnesses: [PlayerHarness] = []

    override func setUp() async throws {
        server = try await IcecastServer.start()
    }

    override func tearDown() async throws {
        harnesses.forEach { $0.stop() }
        harnesses = []
        server?.stop()
        server = nil
    }

    private func play(_ mount: String, retries: Int? = nil) -> PlayerHarness {
        let harness = PlayerHarness(url: server.url(mount: mount).absoluteString, retries: retries)
        harnesses.append(harness)
        harness.start()
        return harness
    }

    private func checkInitialTitleStationAndChange(format: StreamFormat, mount: String) async throws {
        _ = try await server.startSource(
            mount: mount, format: format, initialTitle: "Artist A - Song One",
            stationName: "Oton Test FM", genre: "Test")
        let harness = play(mount)
        let first = try XCTUnwrap(harness.waitForTrack(title: "Song One", artist: "Artist A"), "the title current at connect reaches plugins")
        XCTAssertEqual(first.field("sequence"), "1")
        XCTAssertNotNil(harness.waitForState("playing"))
        // The station name comes once at stream start and stays on later tracks.
        let named = harness.events.wait(for: "track") { $0.field("station") == "Oton Test FM" }
        XCTAssertNotNil(named, "station name from icy-name / stream tags: \(harness.trackEvents.map(\.fields))")

        let sent = Clock.monotonicNanoseconds()
        try await server.setTitle(mount: mount, title: "Artist B - Song Two")
        let second = try XCTUnwrap(
            harness.waitForTrack(title: "Song Two", artist: "Artist B", timeout: 2, after: sent),
            "a title change arrives within 2 s")
        XCTAssertEqual(second.field("station"), "Oton Test FM")
        // ICY carries "Artist - Title" as one string; Vorbis comments carry ARTIST and TITLE apart.
        XCTAssertEqual(second.field("raw_title"), format == .mp3 ? "Artist B - Song Two" : "Song Two")
        XCTAssertEqual(second.field("sequence"), "2")
        print("[measure] \(format) title change seen after \((second.monotonicNanoseconds - sent) / 1_000_000) ms")
    }

    func testMP3InitialTitleStationNameAndTitleChange() async throws {
        try await checkInitialTitleStationAndChange(format: .mp3, mount: "/test.mp3")
    }

    func testOggVorbisInitialTitleStationNameAndTitleChange() async throws {
        try await checkInitialTitleStationAndChange(format: .ogg, mount: "/test.ogg")
    }

    private func checkNoDuplicates(format: StreamFormat, mount: String) async throws {
        _ = try await server.startSource(mount: mount, format: format, initialTitle: "Artist A - Song One", stationName: "Oton Test FM")
        let harness = play(mount)
        XCTAssertNotNil(harness.waitForTrack(title: "Song One"))
        // Observe ten seconds of playback: ICY blocks repeat the title and bitrate tags arrive every second.
        let end = Date().addingTimeInterval(10)
        while Date() < end { try await Task.sleep(nanoseconds: 250_000_000) }
        // The codec counts as seen (status, casting read it): it is reported once when learned.
        let titles = harness.trackEvents.map {
            "\($0.field("artist") ?? "")|\($0.field("title") ?? "")|\($0.field("station") ?? "")|\($0.field("codec") ?? "")"
        }
        XCTAssertEqual(Set(titles).count, titles.count, "no track event repeats what a listener already sees: \(titles)")
        XCTAssertLessThanOrEqual(titles.count, 3, "one track (plus at most the station name and the codec arriving separately): \(titles)")
    }

    func testMP3NoDuplicateTrackEventsOverTenSeconds() async throws {
        try await checkNoDuplicates(format: .mp3, mount: "/dup.mp3")
    }

    func testOggNoDuplicateTrackEventsOverTenSeconds() async throws {
        try await checkNoDuplicates(format: .ogg, mount: "/dup.ogg")
    }

    func testPauseThenPlayReconnectsToTheLiveStream() async throws {
        _ = try await server.startSource(mount: "/pause.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let harness = play("/pause.mp3")
        XCTAssertNotNil(harness.waitForState("playing"))
        let paused = Clock.monotonicNanoseconds()
        harness.player.submit(.pause, from: "test")
        XCTAssertNotNil(harness.waitForState("paused", after: paused))
        try await server.waitForMount("/pause.mp3") { $0.listeners == 0 }  // a live stream's connection is dropped
        let resumed = Clock.monotonicNanoseconds()
        harness.player.submit(.play, from: "test")
        XCTAssertNotNil(harness.waitForState("connecting", after: resumed))
        XCTAssertNotNil(harness.waitForState("playing", after: resumed))
    }

    func testSourceKilledThenBackResumesWithoutUserAction() async throws {
        let source = try await server.startSource(mount: "/crash.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let harness = play("/crash.mp3")
        XCTAssertNotNil(harness.waitForState("playing"))
        let killed = Clock.monotonicNanoseconds()
        source.kill()
        let failure = try XCTUnwrap(harness.waitForState("error", after: killed) { $0.field("retry_attempt") != nil })
        XCTAssertEqual(failure.field("retry_attempt"), "1")
        XCTAssertNotNil(failure.field("error_suggestion"))
        try await source.restart(initialTitle: "Artist C - Back Again")
        XCTAssertNotNil(harness.waitForState("playing", timeout: 30, after: killed), "playback resumes by itself")
        XCTAssertNotNil(harness.waitForTrack(title: "Back Again", timeout: 10, after: killed))
    }
}
