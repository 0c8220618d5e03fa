import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// A real Icecast mount whose title goes A → '' → B: the empty ICY title (which GStreamer's
/// icydemux drops) reaches plugins as a break with its own sequence, and B follows it.
final class AdBreakTests: XCTestCase {
    private var server: IcecastServer!
    private var harness: PlayerHarness?

    override func setUp() async throws {
        server = try await IcecastServer.start()
    }

    override func tearDown() async throws {
        harness?.stop()
        harness = nil
        server?.stop()
        server = nil
    }

    func testEmptyTitleIsABreakBetweenTwoSongs() async throws {
        _ = try await server.startSource(mount: "/ads.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Oton Test FM")
        let harness = PlayerHarness(url: server.url(mount: "/ads.mp3").absoluteString)
        self.harness = harness
        harness.start()
        let first = try XCTUnwrap(harness.waitForTrack(title: "Song One", artist: "Artist A"))
        let sequence = try XCTUnwrap(first.field("sequence").flatMap(UInt64.init))
        XCTAssertNil(first.field("break"))

        let sent = Clock.monotonicNanoseconds()
        try await server.setTitle(mount: "/ads.mp3", title: "")
        let breakEvent = try XCTUnwrap(
            harness.events.wait(for: "track", timeout: 5) { $0.monotonicNanoseconds >= sent && $0.field("break") == "1" },
            "the empty title arrives as a break: \(harness.trackEvents.map(\.fields))")
        XCTAssertEqual(breakEvent.field("sequence"), String(sequence + 1))
        XCTAssertNil(breakEvent.field("title"), "a break has no title")
        XCTAssertNil(breakEvent.field("artist"))
        XCTAssertEqual(breakEvent.field("station"), "Oton Test FM", "the station stays")
        print("[measure] empty title seen as a break after \((breakEvent.monotonicNanoseconds - sent) / 1_000_000) ms")

        let resumed = Clock.monotonicNanoseconds()
        try await server.setTitle(mount: "/ads.mp3", title: "Artist B - Song Two")
        let second = try XCTUnwrap(harness.waitForTrack(title: "Song Two", artist: "Artist B", timeout: 5, after: resumed))
        XCTAssertEqual(second.field("sequence"), String(sequence + 2))
        XCTAssertNil(second.field("break"))
        let breaks = harness.trackEvents.filter { $0.field("break") == "1" }
        XCTAssertEqual(Set(breaks.map { $0.field("sequence") }), [String(sequence + 1)], "one break, announced under one sequence")
    }
}
