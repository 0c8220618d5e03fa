import Foundation
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// The header's size rule, from the host's side: a struct is valid from its ABI 1.0 size up
/// (longer ones come from newer minors, with fields today's host ignores) and malformed below it.
/// The plugin is Tests/Fixtures/size_rule_plugin.c, built with cc against today's header.
final class ABISizeRuleTests: XCTestCase {
    func testLongerStructsAreReadAndStructsBelowTheirABI10SizeAreRefused() throws {
        let directory = try TemporaryDirectory(self)
        let library = try CPluginBuilder.build(TestPaths.root + "/Tests/Fixtures/size_rule_plugin.c", into: directory, name: "sized")

        let manifest = try PluginLibrary(path: library).manifest
        XCTAssertGreaterThan(manifest.descriptorSize, MemoryLayout<oton_plugin_descriptor>.size, "a descriptor longer than today's loads")
        XCTAssertEqual(
            manifest.commands.map(\.name), ["sized-one", "sized-two", "sizes"],
            "declarations longer than today's are read commands[0].struct_size apart")
        XCTAssertEqual(manifest.commands.map(\.help), ["first", "second", "calls the host with structs of other sizes"])

        let bus = PluginBus()
        let observer = EventCollector(bus: bus, id: "test.observer")
        let requests = RecordingRequests()
        let manager = PluginManager(
            bus: bus, requests: requests,
            directories: .init(dataHome: directory.file("d"), cacheHome: directory.file("c")))
        defer { manager.shutdown() }
        let reports = manager.start([PluginEntry(id: "org.oton.test.sized", path: library, enabled: true, config: .object([:]), location: "plugins[0]")])
        guard case .running = reports.first?.status else { return XCTFail("\(reports)") }

        let reply = try XCTUnwrap(manager.run(command: "sizes", arguments: []))
        let declShort = OTON_COMMAND_DECL_SIZE_1_0 - 8, eventShort = OTON_EVENT_SIZE_1_0 - 8, requestShort = OTON_REQUEST_SIZE_1_0 - 4
        XCTAssertEqual(
            reply.text,
            "register\(declShort)=\(OTON_ERR_INVALID) register48=\(OTON_OK) "
                + "publish\(eventShort)=\(OTON_ERR_INVALID) publish\(OTON_EVENT_SIZE_1_0)=\(OTON_OK) "
                + "request\(requestShort)=\(OTON_ERR_INVALID) request\(OTON_REQUEST_SIZE_1_0)=\(OTON_OK) "
                + "switch24=\(OTON_ERR_INVALID) switch\(MemoryLayout<oton_request>.size)=\(OTON_OK)",
            "a switch request the size of ABI 1.1's has no station: refused, its neighbour's bytes never read")
        XCTAssertNil(manager.run(command: "sized-short", arguments: []), "a declaration below 1.0 registered nothing")
        XCTAssertEqual(manager.run(command: "sized-late", arguments: [])?.text, "sized-late")
        XCTAssertEqual(observer.wait(for: "org.oton.test.sized")?.field("size"), "x")
        XCTAssertEqual(requests.wait(forCount: 2), [.switchStationNamed("Two FM"), .stop])
        manager.drain()
        XCTAssertEqual(observer.events.filter { $0.name == "org.oton.test.sized" }.count, 1, "the short event was not published")
        XCTAssertEqual(requests.requests, [.switchStationNamed("Two FM"), .stop], "the short requests were not queued")
    }
}
