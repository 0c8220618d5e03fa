import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// The file sink in on-demand mode inside a listening session: `record-current`
/// saves the track playing now from its start, run through the host's command routing.
final class RecordCurrentTests: XCTestCase {
    func testRecordCurrentSavesATrackThatStartedBeforeTheCommandFromItsStart() async throws {
        let server = try await IcecastServer.start()
        defer { server.stop() }
        _ = try await server.startSource(mount: "/rc.mp3", format: .mp3, initialTitle: "Artist A - Song One")
        let directory = try TemporaryDirectory(self)
        let out = directory.file("out")
        let harness = PlayerHarness(url: server.url(mount: "/rc.mp3").absoluteString, name: "Oton Test FM")
        let plugins = try XCTUnwrap(OnDemandFileSink.start(on: harness, in: directory, out: out))
        harness.start()
        defer { harness.stop(); plugins.shutdown() }
        XCTAssertNotNil(harness.waitForTrack(title: "Song One"))
        try await Task.sleep(nanoseconds: 1_000_000_000)
        try await server.setTitle(mount: "/rc.mp3", title: "Artist B - Song Two")
        let two = try XCTUnwrap(harness.waitForTrack(title: "Song Two"))
        try await Task.sleep(nanoseconds: 3_000_000_000)  // the track plays for a while before the listener asks
        let reply = try XCTUnwrap(plugins.run(command: "record-current", arguments: []))
        XCTAssertTrue(reply.ok, reply.text)
        XCTAssertTrue(reply.text.contains("\"Artist B - Song Two\" from its start"), reply.text)
        try await Task.sleep(nanoseconds: 2_000_000_000)
        try await server.setTitle(mount: "/rc.mp3", title: "Artist C - Song Three")
        let three = try XCTUnwrap(harness.waitForTrack(title: "Song Three"))
        let path = out + "/Oton Test FM/Artist B - Song Two.mp3"
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: path) && Date() < deadline { usleep(50_000) }
        let found = try Discovered.run(path)
        XCTAssertTrue(found.ok, found.text)
        let expected = Double(three.monotonicNanoseconds - two.monotonicNanoseconds) / 1e9
        XCTAssertEqual(found.seconds, expected, accuracy: 1.0, "the whole track, not just the 2 s after the command")
        XCTAssertGreaterThan(found.seconds, 4.5)
        // Song One was never asked for, and Song Three is not recorded unless asked.
        let again = try XCTUnwrap(plugins.run(command: "record-current", arguments: ["extra"]))
        XCTAssertFalse(again.ok)
        plugins.shutdown()
        let names = try FileManager.default.contentsOfDirectory(atPath: out + "/Oton Test FM")
        XCTAssertEqual(names, ["Artist B - Song Two.mp3"])
    }
}

/// The file sink in on-demand mode on a harness's bus, as a listening session loads it
/// (`record-current` saves the track playing). nil, with the reports as a failure, when it did not start.
enum OnDemandFileSink {
    static func start(
        on harness: PlayerHarness, in directory: TemporaryDirectory, out: String,
        file: StaticString = #filePath, line: UInt = #line
    ) -> PluginManager? {
        let plugins = PluginManager(
            bus: harness.bus, requests: harness.player,
            directories: .init(dataHome: directory.file("data"), cacheHome: directory.file("cache")))
        let entry = PluginEntry(
            id: "org.oton.file-sink", path: TestPaths.pluginLibrary("OtonFileSink"),
            config: .object(["directory": .string(out), "mode": .string("on-demand"), "min_seconds": .number(1)]))
        let reports = plugins.start([entry])
        guard case .running = reports.first?.status else {
            XCTFail("the file sink did not start: \(reports)", file: file, line: line)
            return nil
        }
        return plugins
    }
}
