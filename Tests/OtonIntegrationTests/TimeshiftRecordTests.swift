import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// "Record what I hear" behind live (docs/timeshift.md): `record-current` saves the song being
/// heard — from its start — not the one on air at the live edge. A real Icecast mount, a headless
/// player with a ring, the file sink in on-demand mode through the host's command routing.
final class TimeshiftRecordTests: XCTestCase {
    func testRecordCurrentBehindLiveSavesTheSongHeardFromItsStart() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/tsrc.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let directory = try TemporaryDirectory(self)
        let out = directory.file("out")
        let harness = PlayerHarness(
            url: server.url(mount: "/tsrc.mp3").absoluteString, name: "Oton Test FM",
            timeshift: TimeshiftSettings(seconds: 600))
        let plugins = try XCTUnwrap(OnDemandFileSink.start(on: harness, in: directory, out: out))
        harness.start()
        defer { harness.stop(); plugins.shutdown() }
        XCTAssertNotNil(harness.waitForTrack(title: "Song One", timeout: 60))
        try await Task.sleep(nanoseconds: 2_000_000_000)
        // Song Two is the first song heard from its start (the connection joined Song One in its middle).
        try await server.setTitle(mount: "/tsrc.mp3", title: "Artist B - Song Two")
        let two = try XCTUnwrap(harness.waitForTrack(title: "Song Two", timeout: 30))
        try await Task.sleep(nanoseconds: 4_000_000_000)

        // Paused; on air the song changes while it is paused; it is received, not heard.
        let paused = Clock.monotonicNanoseconds()
        harness.player.submit(.pause, from: "test")
        XCTAssertNotNil(harness.waitForState("paused", timeout: 10))
        try await Task.sleep(nanoseconds: 10_000_000_000)
        try await server.setTitle(mount: "/tsrc.mp3", title: "Artist C - Song Three")
        try await Task.sleep(nanoseconds: 4_000_000_000)
        let resumed = Clock.monotonicNanoseconds()
        harness.player.submit(.play, from: "test")
        XCTAssertNotNil(harness.waitForState("playing", timeout: 10, after: resumed))

        // ~10 s of Song Two are still to be heard: the listener asks for what plays.
        let reply = try XCTUnwrap(plugins.run(command: "record-current", arguments: []))
        XCTAssertTrue(reply.ok, reply.text)
        XCTAssertTrue(reply.text.contains("\"Artist B - Song Two\" from its start"), "the song heard, not the one on air: \(reply.text)")
        let three = try XCTUnwrap(harness.waitForTrack(title: "Song Three", timeout: 40, after: resumed), "Song Three is heard after the resume")
        let path = out + "/Oton Test FM/Artist B - Song Two.mp3"
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: path) && Date() < deadline { usleep(100_000) }
        let written = FileManager.default.enumerator(atPath: out)?.allObjects as? [String] ?? []
        let found = try Discovered.run(path)
        XCTAssertTrue(found.ok, "\(found.text); written: \(written)")
        // What was heard of Song Two: from its announcement to the pause, and from the resume to Song Three's.
        let heard = Double((paused - two.monotonicNanoseconds) + (three.monotonicNanoseconds - resumed)) / 1e9
        print("[measure] Song Two heard for about \(heard) s around a pause; recorded \(found.seconds) s")
        XCTAssertGreaterThan(found.seconds, 10, "from its start, before the pause, not only from the command")
        XCTAssertEqual(found.seconds, heard, accuracy: 3)
        plugins.shutdown()
        let names = try FileManager.default.contentsOfDirectory(atPath: out + "/Oton Test FM")
        XCTAssertFalse(names.contains { $0.contains("Song Three") }, "the song on air at the command is not recorded: \(names)")
    }
}
