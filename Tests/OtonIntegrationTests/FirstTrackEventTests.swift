import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// Issue 54 §7: the first track event of a titled station carried only the server's name and the
/// codec (sequence 0), and the title came about a second later, so the status line, notifications,
/// MPRIS and history saw "127.0.0.1" first. With timeshift (the default) the first event waits for the
/// first ICY block and is heard from the first byte.
final class FirstTrackEventTests: XCTestCase {
    func testTheFirstTrackEventOfATitledStationCarriesItsTitleAndTheServersName() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/live.mp3", format: .mp3, initialTitle: "Artist A - Song One", stationName: "Lab FM")
        let harness = PlayerHarness(
            url: server.url(mount: "/live.mp3").absoluteString, headless: false, timeshift: TimeshiftSettings(seconds: 600))
        harness.start()
        defer { harness.stop() }
        XCTAssertNotNil(harness.waitForTrack(title: "Song One", timeout: 60), "the title is heard")
        let tracks = harness.trackEvents.filter { $0.field(OTON_FIELD_TITLE) != nil || $0.field(OTON_FIELD_CODEC) != nil }
        let first = try XCTUnwrap(tracks.first)
        print("[measure] first track event: \(first.fields)")
        XCTAssertEqual(first.field(OTON_FIELD_TITLE), "Song One", "the first event of the connection names the song")
        XCTAssertEqual(first.field(OTON_FIELD_ARTIST), "Artist A")
        XCTAssertNotNil(first.field(OTON_FIELD_CODEC), "with what the stream's headers said")
        XCTAssertEqual(first.field(OTON_FIELD_STATION), "Lab FM")
    }
}
