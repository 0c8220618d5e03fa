import Foundation
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// The append-only promise, kept with a real binary: a plugin compiled against the ABI 1.0 header
/// (Tests/Fixtures/abi-1.0, recovered from the commit before 1.1) loads into today's host and is
/// driven through commands, events, a media tap, publish, request and register_command.
final class ABI10CompatibilityTests: XCTestCase {
    private static let fixtures = TestPaths.root + "/Tests/Fixtures/abi-1.0"

    /// cc as a third party would run it, against the 1.0 header only.
    private func compile(_ source: String, into directory: TemporaryDirectory, output: String, shared: Bool) throws -> String {
        try CPluginBuilder.compile(source, into: directory, output: output, header: Self.fixtures, shared: shared)
    }

    func testTheFixtureHeaderIsABI10() throws {
        let header = try String(contentsOfFile: Self.fixtures + "/oton_plugin.h", encoding: .utf8)
        XCTAssertTrue(header.contains("#define OTON_ABI_MINOR 0u"))
        XCTAssertFalse(header.contains("select_media_taps"), "1.1 added select_media_taps")
    }

    /// The OTON_*_SIZE_1_0 minimums the host checks are where the last 1.0 field of each struct ends
    /// as a compiler lays out the 1.0 header (oton_request: its last used field; `reserved` may be left out).
    func testMinimumSizesAreWhereTheABI10StructsEnd() throws {
        let directory = try TemporaryDirectory(self)
        let ends = [
            ("oton_event", "fields"), ("oton_track", "stream_url"), ("oton_state_info", "error_suggestion"),
            ("oton_volume_info", "volume"), ("oton_drop_info", "dropped_bytes"), ("oton_media_format", "reserved"),
            ("oton_media_buffer", "mono_ns"), ("oton_request", "duration_ms"), ("oton_command_decl", "help"),
            ("oton_host", "cache_dir"), ("oton_plugin_descriptor", "on_command"),
        ]
        let prints = ends.map { type, field in
            #"    printf("%lu\n", (unsigned long)(offsetof(\#(type), \#(field)) + sizeof(((\#(type) *)0)->\#(field))));"#
        }
        let source = try directory.write(
            "sizes.c",
            (["#include <stdio.h>", "#include \"oton_plugin.h\"", "int main(void) {"]
                + prints + ["    return 0;", "}", ""]).joined(separator: "\n"))
        let program = try compile(source, into: directory, output: "sizes", shared: false)
        let printed = try runProcess(program, []).stdout.split(separator: "\n").map { UInt32($0) }
        XCTAssertEqual(
            printed,
            [
                OTON_EVENT_SIZE_1_0, OTON_TRACK_SIZE_1_0, OTON_STATE_INFO_SIZE_1_0, OTON_VOLUME_INFO_SIZE_1_0,
                OTON_DROP_INFO_SIZE_1_0, OTON_MEDIA_FORMAT_SIZE_1_0, OTON_MEDIA_BUFFER_SIZE_1_0,
                OTON_REQUEST_SIZE_1_0, OTON_COMMAND_DECL_SIZE_1_0, OTON_HOST_SIZE_1_0, OTON_DESCRIPTOR_SIZE_1_0,
            ])
        XCTAssertLessThan(Int(OTON_HOST_SIZE_1_0), MemoryLayout<oton_host>.size, "1.1 appended to the host table")
        XCTAssertEqual(PluginLibrary.minimumDescriptorSize, Int(OTON_DESCRIPTOR_SIZE_1_0))
    }

    func testPluginBuiltAgainstABI10IsLoadedAndDrivenByTodaysHost() throws {
        let directory = try TemporaryDirectory(self)
        let library = try compile(Self.fixtures + "/legacy_plugin.c", into: directory, output: "liblegacy.so", shared: true)

        let manifest = try PluginLibrary(path: library).manifest
        XCTAssertEqual(manifest.abiVersion, "1.0")
        XCTAssertEqual(manifest.descriptorSize, Int(OTON_DESCRIPTOR_SIZE_1_0))
        XCTAssertEqual(manifest.commands.map(\.name), ["legacy-echo", "legacy-publish", "legacy-stop"])
        XCTAssertEqual(manifest.mediaTaps, OTON_TAP_STREAM)

        let bus = PluginBus()
        let observer = EventCollector(bus: bus, id: "test.observer")
        let requests = RecordingRequests()
        let manager = PluginManager(
            bus: bus, requests: requests,
            directories: .init(dataHome: directory.file("data"), cacheHome: directory.file("cache")))
        defer { manager.shutdown() }
        let log = directory.file("legacy.log")
        let reports = manager.start([
            PluginEntry(
                id: "org.oton.test.legacy", path: library, enabled: true,
                config: .object(["log": .string(log)]), location: "plugins[0]")
        ])
        guard case .running = reports.first?.status else { return XCTFail("\(reports)") }
        XCTAssertEqual(
            directory.lines("legacy.log").first,
            "create host_abi=\(OTON_ABI_MAJOR).\(OTON_ABI_MINOR) host_size_covers_1_0=1 register=\(OTON_OK)")
        XCTAssertEqual(bus.requestedTaps, OTON_TAP_STREAM, "a 1.0 plugin cannot narrow its taps: it gets every declared one")

        XCTAssertEqual(manager.run(command: "legacy-echo", arguments: ["a", "b"]), CommandReply(ok: true, text: #"echo ["a","b"]"#))
        XCTAssertEqual(
            manager.run(command: "legacy-late", arguments: []), CommandReply(ok: true, text: "late"),
            "a command registered at run time with a 1.0 declaration is routed")

        XCTAssertEqual(manager.run(command: "legacy-publish", arguments: [])?.ok, true)
        XCTAssertEqual(observer.wait(for: "org.oton.test.legacy")?.field("from"), "abi-1.0")
        XCTAssertEqual(manager.run(command: "legacy-stop", arguments: [])?.ok, true)
        XCTAssertEqual(requests.wait(forCount: 1), [.stop])
        XCTAssertEqual(requests.sources, ["org.oton.test.legacy"])

        bus.publish(.track(TrackInfo(title: "Old Song", artist: "Old Artist", rawTitle: "Old Artist - Old Song", station: "Oton FM"), sequence: 1))
        bus.publish(media: MediaPacket(format: MediaFormat(tap: OTON_TAP_STREAM, caps: "audio/mpeg"), bytes: [42, 1, 2], offset: 0))
        manager.drain()
        let lines = directory.lines("legacy.log")
        XCTAssertTrue(lines.contains("event track title=Old Song field_title=Old Song"), "\(lines)")
        XCTAssertTrue(lines.contains("media tap=\(OTON_TAP_STREAM) size=3 first=42 caps=audio/mpeg"), "\(lines)")

        manager.shutdown()
        XCTAssertEqual(directory.lines("legacy.log").last, "destroy")
        XCTAssertNil(manager.run(command: "legacy-echo", arguments: []), "its commands leave with it")
    }
}
