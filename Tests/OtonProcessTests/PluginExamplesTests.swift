import Foundation
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// The two C examples in examples/, copied out of the repository and compiled there as a third party would.
final class PluginExamplesTests: XCTestCase {
    private func buildExample(_ folder: String, _ file: String, in directory: TemporaryDirectory) throws -> String {
        let source = directory.file(file + ".c")
        try FileManager.default.copyItem(atPath: TestPaths.root + "/examples/\(folder)/\(file).c", toPath: source)
        return try CPluginBuilder.build(source, into: directory, name: file, libraries: ["m"])
    }

    private func manager(_ bus: PluginBus, _ directory: TemporaryDirectory) -> PluginManager {
        PluginManager(
            bus: bus, requests: RecordingRequests(),
            directories: .init(dataHome: directory.file("data"), cacheHome: directory.file("cache")))
    }

    func testLoggerReadsAConfigPathWithEscapedCharacters() throws {
        let directory = try TemporaryDirectory(self)
        let library = try buildExample("c-logger", "oton_event_logger", in: directory)
        // A quote, a backslash and a non-ASCII letter: the host escapes them, the example must decode them.
        let log = directory.file("events \"quoted\" back\\slash é.log")
        let manager = manager(PluginBus(), directory)
        defer { manager.shutdown() }
        let reports = manager.start([
            PluginEntry(
                id: "org.example.event-logger", path: library, enabled: true,
                config: .object(["file": .string(log)]),
                location: "plugins[0]")
        ])
        guard case .running = reports[0].status else { return XCTFail("\(reports)") }
        XCTAssertTrue(FileManager.default.fileExists(atPath: log), "the logger opened the exact path it was given")
        // Its command's argument is read with read_json too.
        XCTAssertEqual(manager.run(command: "logger-stats", arguments: ["reset"]), CommandReply(ok: true, text: "0 events, 0 tracks"))
        XCTAssertEqual(
            manager.run(command: "logger-stats", arguments: ["\"x\""]),
            CommandReply(ok: false, text: #"unknown argument ""x""; usage: logger-stats [reset]"#))
    }

    /// The example has no JSON code and declares its one setting (ABI 1.6): a wrong, missing or
    /// misspelt "file" is refused by the host before create(), in words that say what to write.
    func testLoggerRefusesABadFileSettingInTheConfigReadersWords() throws {
        let directory = try TemporaryDirectory(self)
        let library = try buildExample("c-logger", "oton_event_logger", in: directory)
        let source = try String(contentsOfFile: TestPaths.root + "/examples/c-logger/oton_event_logger.c", encoding: .utf8)
        XCTAssertFalse(source.contains("json_skip") || source.contains("\\u"), "no JSON parsing of its own")
        for (config, reason) in [
            (JSONValue.object(["file": .number(42.0)]), "config.file must be text, not a number"),
            (.object([:]), "config.file is required: the file to append one line per event to (created if missing)"),
            (
                .object(["flie": .string("/tmp/x")]),
                #"config.flie is not a setting; did you mean "file"? (known: file); config.file is required: the file to append one line per event to (created if missing)"#
            ),
        ] {
            let manager = manager(PluginBus(), directory)
            let reports = manager.start([PluginEntry(id: "org.example.event-logger", path: library, enabled: true, config: config, location: "plugins[0]")])
            manager.shutdown()
            guard case let .failed(error) = reports[0].status else { return XCTFail("\(reports)") }
            XCTAssertTrue(error.reason.hasSuffix(reason), error.reason)
        }
    }

    func testLevelMeterMeasuresWindowsAndNeverSpansAGap() throws {
        let directory = try TemporaryDirectory(self)
        let library = try buildExample("c-level-meter", "oton_level_meter", in: directory)
        let nm = try runProcess("/usr/bin/env", ["nm", "-D", "--defined-only", library])
        XCTAssertEqual(nm.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }, ["oton_plugin_entry"])

        let bus = PluginBus()
        let observer = EventCollector(bus: bus, id: "test.observer")
        let manager = manager(bus, directory)
        defer { manager.shutdown() }
        let reports = manager.start([
            PluginEntry(
                id: "org.example.level-meter", path: library, enabled: true,
                config: .object(["window_ms": .number(JSONNumber(100))]), location: "plugins[0]")
        ])
        guard case let .running(manifest) = reports[0].status else { return XCTFail("\(reports)") }
        XCTAssertEqual(manifest.mediaTaps, OTON_TAP_PCM)

        // 1000 Hz mono S16LE: a 100 ms window is 100 frames.
        let format = MediaFormat(tap: OTON_TAP_PCM, caps: "audio/x-raw, format=(string)S16LE", sampleFormat: OTON_SAMPLE_S16LE, rate: 1000, channels: 1)
        func samples(_ value: Int16, _ count: Int) -> [UInt8] {
            (0..<count).flatMap { _ in [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
        }
        bus.publish(media: MediaPacket(format: format, bytes: samples(-32768, 130), flags: OTON_MEDIA_FLAG_NEW_CONNECTION, offset: 0))
        // 30 full-scale frames are left in the window; audio was lost, so they must not count.
        bus.publish(media: MediaPacket(format: format, bytes: samples(16384, 50), flags: OTON_MEDIA_FLAG_DISCONT, offset: 1000))
        bus.publish(media: MediaPacket(format: format, bytes: samples(8192, 60), offset: 1100))

        let first = observer.wait(for: "org.example.level-meter.level")
        XCTAssertEqual(first?.field("peak_dbfs"), "0.0")
        XCTAssertEqual(first?.field("rms_dbfs"), "0.0")
        let second = observer.wait(for: "org.example.level-meter.level") { $0.field("peak_dbfs") != "0.0" }
        XCTAssertEqual(second?.field("peak_dbfs"), "-6.0", "the window after the gap holds only audio from after it")
        XCTAssertEqual(second?.field("rms_dbfs"), "-8.1")
        XCTAssertEqual(
            manager.run(command: "level-meter-stats", arguments: []),
            CommandReply(ok: true, text: "2 windows, 1 gaps, 0 format changes, 0 bytes dropped"))
    }

    func testLevelMeterRefusesABadWindowWithAReason() throws {
        let directory = try TemporaryDirectory(self)
        let library = try buildExample("c-level-meter", "oton_level_meter", in: directory)
        let manager = manager(PluginBus(), directory)
        defer { manager.shutdown() }
        let reports = manager.start([
            PluginEntry(
                id: "org.example.level-meter", path: library, enabled: true,
                config: .object(["window_ms": .string("soon")]), location: "plugins[0]")
        ])
        guard case let .failed(error) = reports[0].status else { return XCTFail("\(reports)") }
        XCTAssertTrue(error.reason.hasSuffix(#"config.window_ms must be a whole number from 10 to 60000, not "soon""#), error.reason)
    }
}
