import Foundation
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// ABI 1.5 with real binaries: a C plugin built by cc against the header alone reads its config and
/// its commands' arguments through `oton_host.read_json` (Tests/Fixtures/json_reader_plugin.c has no
/// JSON code), and plugins built against the 1.4 header (declaring 1.4, and 1.3) still load.
final class PluginJSONReaderTests: XCTestCase {
    private static let abi14 = TestPaths.root + "/Tests/Fixtures/abi-1.4"

    private func manager(_ directory: TemporaryDirectory) -> PluginManager {
        PluginManager(
            bus: PluginBus(), requests: RecordingRequests(),
            directories: .init(dataHome: directory.file("data"), cacheHome: directory.file("cache")))
    }

    private func reader(in directory: TemporaryDirectory) throws -> String {
        try CPluginBuilder.build(TestPaths.root + "/Tests/Fixtures/json_reader_plugin.c", into: directory, name: "reader")
    }

    func testACPluginReadsItsConfigAndArgumentsWithNoJSONCodeOfItsOwn() throws {
        let directory = try TemporaryDirectory(self)
        let library = try reader(in: directory)
        let source = try String(contentsOfFile: TestPaths.root + "/Tests/Fixtures/json_reader_plugin.c", encoding: .utf8)
        XCTAssertFalse(source.contains("strchr") || source.contains("strstr") || source.contains("'\"'"), "the fixture parses nothing itself")
        let manager = manager(directory)
        defer { manager.shutdown() }
        let config: JSONValue = .object([
            "greeting": .string("hi \"there\" é"), "volume": .number(0.5), "port": .number(JSONNumber(8080)),
            "loud": .bool(true), "tags": .array([.string("a"), .string("b")]),
            "station": .object(["name": .string("Jazz")]),
        ])
        let reports = manager.start([PluginEntry(id: "org.oton.test.json-reader", path: library, enabled: true, config: config, location: "plugins[0]")])
        guard case let .running(manifest) = reports.first?.status else { return XCTFail("\(reports)") }
        XCTAssertEqual(manifest.abiVersion, "\(OTON_ABI_MAJOR).\(OTON_ABI_MINOR)")
        XCTAssertEqual(
            manager.run(command: "reader-config", arguments: []),
            CommandReply(ok: true, text: "greeting=hi \"there\" é volume=0.5 port=8080 loud=1 tags=2 station=Jazz"))
        XCTAssertEqual(
            manager.run(command: "reader-args", arguments: ["a b", "\"quoted\"", "Ю\\"]),
            CommandReply(ok: true, text: "3 args: [a b] [\"quoted\"] [Ю\\]"))
        XCTAssertEqual(manager.run(command: "reader-args", arguments: []), CommandReply(ok: true, text: "0 args:"))
        XCTAssertEqual(
            manager.run(command: "reader-small", arguments: ["hello"]),
            CommandReply(ok: true, text: "status=-4 found=1 length=5 text=(empty) error=args[0] is longer than 3 bytes"))
        XCTAssertEqual(
            manager.run(command: "reader-small", arguments: ["abc"]),
            CommandReply(ok: true, text: "status=0 found=1 length=3 text=abc error="))
        XCTAssertEqual(
            manager.run(command: "reader-as-int", arguments: ["5"]),
            CommandReply(ok: false, text: #"args[0] must be a whole number, not "5""#))
        // ABI 1.6: write_json_string makes the literal a webhook sends; a short buffer gets the size it needs.
        let title = "Кино – \"Группа крови\" \\ \n\t\u{1}\u{2028}"
        XCTAssertEqual(
            manager.run(command: "reader-quote", arguments: [title]),
            CommandReply(ok: true, text: #"{"title":"Кино – \"Группа крови\" \\ \n\t\u0001\u2028"} length=62 small=-4 needed=62 cleared=1"#))
        let reply = manager.run(command: "reader-quote", arguments: [title])?.text ?? ""
        let object = try JSONValue.parse(Data(reply.components(separatedBy: " length=")[0].utf8))
        XCTAssertEqual(object["title"]?.stringValue, title, "the literal reads back as the text")
    }

    func testDefaultsApplyWhenTheConfigIsEmpty() throws {
        let directory = try TemporaryDirectory(self)
        let manager = manager(directory)
        defer { manager.shutdown() }
        let reports = manager.start([
            PluginEntry(
                id: "org.oton.test.json-reader", path: try reader(in: directory), enabled: true,
                config: .object([:]), location: "plugins[0]")
        ])
        guard case .running = reports.first?.status else { return XCTFail("\(reports)") }
        XCTAssertEqual(
            manager.run(command: "reader-config", arguments: []),
            CommandReply(ok: true, text: "greeting=hello volume=1 port=8000 loud=0 tags=-1 station=-"))
    }

    /// create() hands on read_json's error: the user reads the config reader's sentence.
    func testABadSettingIsRefusedInTheConfigReadersWords() throws {
        let directory = try TemporaryDirectory(self)
        let library = try reader(in: directory)
        for (config, reason) in [
            (JSONValue.object(["port": .string("80")]), #"config.port must be a whole number from 1 to 65535, not "80""#),
            (.object(["volume": .number(2.0)]), "config.volume must be a number from 0 to 1, not 2"),
            (.object(["station": .string("Jazz")]), #"config.station must be an object, not "Jazz""#),
            (.object(["tags": .object([:])]), "config.tags must be a list, not {}"),
        ] {
            let manager = manager(directory)
            let reports = manager.start([PluginEntry(id: "org.oton.test.json-reader", path: library, enabled: true, config: config, location: "plugins[0]")])
            manager.shutdown()
            XCTAssertEqual(reports.first?.status, .failed(.createFailed(path: library, id: "org.oton.test.json-reader", reason: reason)))
        }
    }

    /// The same binary handed a table as a 1.4 host fills it (struct_size ends at translate) reads no
    /// config and says so: it checks OTON_HAS_FIELD, so a 1.5 plugin still works with an older host.
    func testThePluginLeavesReadJSONAloneWhenTheTableIsFromABI14() throws {
        let directory = try TemporaryDirectory(self)
        let library = try reader(in: directory)
        let handle = try XCTUnwrap(dlopen(library, RTLD_NOW | RTLD_LOCAL))
        let symbol = try XCTUnwrap(dlsym(handle, OTON_PLUGIN_ENTRY_SYMBOL))
        let descriptor = try XCTUnwrap(unsafeBitCast(symbol, to: oton_plugin_entry_fn.self)()).pointee
        var table = oton_host()
        table.struct_size = UInt32(MemoryLayout<oton_host>.offset(of: \oton_host.read_json)!)
        table.abi_major = OTON_ABI_MAJOR
        table.abi_minor = 4
        // Past struct_size: a plugin that called it anyway would crash the test.
        table.read_json = { _, _, _, _, _, _ in fatalError("read_json called past struct_size") }
        var error = [CChar](repeating: 0, count: 256)
        let instance = try XCTUnwrap(descriptor.create(&table, #"{"port": "not a port"}"#, &error, error.count))
        defer { descriptor.destroy(instance) }
        final class Reply { var text = "" }
        let reply = Reply()
        XCTAssertEqual(
            descriptor.on_command(
                instance, "reader-config", "[]",
                { context, text in
                    guard let context, let text else { return }
                    Unmanaged<Reply>.fromOpaque(context).takeUnretainedValue().text += String(cString: text)
                }, Unmanaged.passUnretained(reply).toOpaque()), OTON_OK)
        XCTAssertEqual(reply.text, "no read_json")
    }

    func testTheFixtureHeaderIsABI14() throws {
        let header = try String(contentsOfFile: Self.abi14 + "/oton_plugin.h", encoding: .utf8)
        XCTAssertTrue(header.contains("#define OTON_ABI_MINOR 4u"))
        XCTAssertFalse(header.contains("read_json"), "1.5 added read_json")
    }

    /// Built against the 1.4 header: a 1.4 plugin (it translates through the table) and a plugin that
    /// declares 1.3 load into today's host and answer their commands.
    func testPluginsBuiltAgainstABI14And13StillLoad() throws {
        let directory = try TemporaryDirectory(self)
        let language = try CPluginBuilder.build(
            TestPaths.root + "/Tests/Fixtures/language_plugin.c", into: directory, name: "language14",
            header: Self.abi14)
        let probe = try CPluginBuilder.build(
            CPluginBuilder.probeSource, into: directory, name: "probe13",
            defines: ["PROBE_ABI_MINOR=3"], header: Self.abi14)
        XCTAssertEqual(try PluginLibrary(path: language).manifest.abiVersion, "1.4")
        XCTAssertEqual(try PluginLibrary(path: probe).manifest.abiVersion, "1.3")
        let manager = PluginManager(
            bus: PluginBus(), requests: RecordingRequests(),
            directories: .init(dataHome: directory.file("data"), cacheHome: directory.file("cache")),
            translations: PluginTranslations(catalogue: .english))
        defer { manager.shutdown() }
        let reports = manager.start([
            PluginEntry(id: "org.oton.test.language", path: language, enabled: true, config: .object([:]), location: "plugins[0]"),
            PluginEntry(id: "org.oton.test.probe", path: probe, enabled: true, config: .object([:]), location: "plugins[1]"),
        ])
        for report in reports {
            guard case .running = report.status else { return XCTFail("\(reports)") }
        }
        XCTAssertEqual(
            manager.run(command: "lang-say", arguments: [])?.text,
            "language=en translated=Sleep timer cancelled same=1 unknown-same=1 null=1")
        XCTAssertEqual(manager.run(command: "probe-echo", arguments: ["x"]), CommandReply(ok: true, text: #"echo:["x"]"#))
    }
}
