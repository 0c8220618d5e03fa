import Foundation
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// The ABI is real: a C plugin built by cc against the header alone, and a
/// Swift plugin built as its own product, both loaded and driven by the host.
final class PluginABIProofTests: XCTestCase {
    func testExampleCPluginBuiltAgainstTheHeaderAloneIsDrivenThroughItsLifecycle() throws {
        let directory = try TemporaryDirectory(self)
        // Copy the example out of the repository and compile it there, as a third party would.
        let source = directory.file("oton_event_logger.c")
        try FileManager.default.copyItem(atPath: CPluginBuilder.exampleSource, toPath: source)
        let library = try CPluginBuilder.build(source, into: directory, name: "oton_event_logger")
        let nm = try runProcess("/usr/bin/env", ["nm", "-D", "--defined-only", library])
        XCTAssertEqual(
            nm.stdout.split(separator: "\n").map { $0.split(separator: " ").last.map(String.init) ?? "" }, ["oton_plugin_entry"],
            "only the entry point is exported")

        let bus = PluginBus()
        let observer = EventCollector(bus: bus, id: "test.observer")
        let manager = PluginManager(
            bus: bus, requests: RecordingRequests(),
            directories: .init(dataHome: directory.file("data"), cacheHome: directory.file("cache")))
        let log = directory.file("events.log")
        let reports = manager.start([
            PluginEntry(
                id: "org.example.event-logger", path: library, enabled: true,
                config: .object(["file": .string(log)]), location: "plugins[0]")
        ])
        guard case let .running(manifest) = reports.first?.status else { return XCTFail("\(reports)") }
        XCTAssertEqual(manifest.consumes, ["*"])

        bus.publish(.state(StateInfo(.connecting)))
        bus.publish(.track(TrackInfo(title: "Song One", artist: "Artist A", rawTitle: "Artist A - Song One", station: "Oton FM"), sequence: 1))
        bus.publish(.state(StateInfo(.error, error: .init(kind: "stream-unavailable", message: "404", suggestion: "check the URL"))))
        XCTAssertEqual(manager.run(command: "logger-stats", arguments: []), CommandReply(ok: true, text: "3 events, 1 tracks"))

        // What the plugin published after the track reached the others.
        let line = observer.wait(for: "org.example.logger.line")
        XCTAssertEqual(line?.field("title"), "Song One")
        XCTAssertEqual(line?.source, "org.example.event-logger")

        manager.shutdown()
        let lines = directory.lines("events.log")
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(lines[0], "state from=host state=connecting")
        XCTAssertTrue(lines[1].hasPrefix("track from=host sequence=1 title=Song One artist=Artist A raw_title=Artist A - Song One station=Oton FM"), lines[1])
        XCTAssertTrue(lines[2].contains("error_kind=stream-unavailable error_message=404 error_suggestion=check the URL"), lines[2])
    }

    func testSwiftPluginIsItsOwnLibraryThatDoesNotLinkTheHost() throws {
        for product in ["OtonSleepTimer", "OtonNowPlaying", "OtonArtwork"] {
            try checkSwiftPluginLibrary(TestPaths.pluginLibrary(product))
        }
    }

    private func checkSwiftPluginLibrary(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            return XCTFail("\(path) is missing: build it first with `swift build --product OtonSleepTimer` (scripts/test does)")
        }
        let needed = try runProcess("/usr/bin/env", ["readelf", "-d", path]).stdout
        XCTAssertTrue(needed.contains("libswiftCore.so"), "links the toolchain's runtime dynamically")
        XCTAssertFalse(needed.lowercased().contains("oton"), "links nothing of the host: \(needed)")
        let exported = try runProcess("/usr/bin/env", ["nm", "-D", "--defined-only", path]).stdout
        let global = exported.split(separator: "\n").filter { $0.split(separator: " ").dropFirst().first.map { $0 == "T" || $0 == "D" } ?? false }
        XCTAssertEqual(global.map { String($0.split(separator: " ").last!) }, ["oton_plugin_entry"])
        let undefined = try runProcess("/usr/bin/env", ["nm", "-D", "--undefined-only", path]).stdout
        XCTAssertFalse(undefined.contains("OtonHost"), "uses no symbol of the host")
    }

    func testSwiftSleepTimerPluginFadesThenStopsThroughTheABI() throws {
        let directory = try TemporaryDirectory(self)
        let path = TestPaths.pluginLibrary("OtonSleepTimer")
        let bus = PluginBus()
        let observer = EventCollector(bus: bus, id: "test.observer")
        let requests = RecordingRequests()
        let manager = PluginManager(bus: bus, requests: requests, directories: .init(dataHome: directory.file("d"), cacheHome: directory.file("c")))
        defer { manager.shutdown() }
        let reports = manager.start([
            PluginEntry(
                id: "org.oton.sleep-timer", path: path, enabled: true,
                config: .object(["fade_seconds": .number(0.3)]), location: "plugins[0]")
        ])
        guard case .running = reports.first?.status else { return XCTFail("\(reports)") }
        bus.publish(.volume(0.8))

        let set = try XCTUnwrap(manager.run(command: "sleep", arguments: ["1s"]))
        XCTAssertTrue(set.ok, set.text)
        XCTAssertTrue(set.text.contains("stop in 0:01"), set.text)
        XCTAssertEqual(observer.wait(for: "org.oton.sleep.set")?.field("seconds"), "1")
        XCTAssertNotNil(observer.wait(for: "org.oton.sleep.fired"))
        XCTAssertEqual(requests.wait(forCount: 3), [.fadeVolume(to: 0, milliseconds: 300), .stop, .setVolume(0.8)])
        XCTAssertEqual(requests.sources, Array(repeating: "org.oton.sleep-timer", count: 3))

        let bad = try XCTUnwrap(manager.run(command: "sleep", arguments: ["soon"]))
        XCTAssertFalse(bad.ok)
        XCTAssertTrue(bad.text.contains("\"soon\" is not a duration"), bad.text)
    }

    func testSwiftPluginRefusesBadConfigWithAReason() throws {
        let directory = try TemporaryDirectory(self)
        let manager = PluginManager(
            bus: PluginBus(), requests: RecordingRequests(), directories: .init(dataHome: directory.file("d"), cacheHome: directory.file("c")))
        defer { manager.shutdown() }
        let path = TestPaths.pluginLibrary("OtonSleepTimer")
        let reports = manager.start([
            PluginEntry(
                id: "org.oton.sleep-timer", path: path, enabled: true,
                config: .object(["action": .string("explode")]), location: "plugins[0]")
        ])
        XCTAssertEqual(
            reports.first?.status,
            .failed(.createFailed(path: path, id: "org.oton.sleep-timer", reason: "config.action must be \"stop\", \"pause\" or \"quit\", not \"explode\"")))
    }
}
