import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// `"isolation"` in a plugin's plugins.json entry: read, refused when unknown, and never
/// quietly ignored (a plugin asked to run out of process is not run inside oton).
final class PluginIsolationConfigTests: XCTestCase {
    func testIsolationIsReadAndDefaultsToInProcess() throws {
        let text =
            #"{"plugins":[{"id":"org.a.b","path":"x.so"},{"id":"org.a.c","path":"y.so","isolation":"process"},{"id":"org.a.d","path":"z.so","isolation":"in-process"}]}"#
        let config = try ConfigLoader.parse(Data(text.utf8), file: "p.json")
        XCTAssertEqual(config.plugins.map(\.isolation), [.inProcess, .process, .inProcess])
    }

    func testUnknownIsolationNamesThePlaceAndTheAcceptedValues() {
        let cases: [(String, String)] = [
            (
                #"{"plugins":[{"id":"org.a.b","path":"x.so","isolation":"sandbox"}]}"#,
                #"plugins[0].isolation: "sandbox" is not a plugin isolation oton knows; use "in-process" or "process""#
            ),
            (#"{"plugins":[{"id":"org.a.b","path":"x.so","isolation":true}]}"#, "plugins[0].isolation: must be a string"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try ConfigLoader.parse(Data(text.utf8), file: "p.json"), text) { error in
                XCTAssertTrue("\(error)".contains("p.json"), "\(error)")
                XCTAssertTrue("\(error)".contains(expected), "\(error) should contain \(expected)")
            }
        }
    }

    func testAProcessIsolatedPluginRunsInAnotherProcessAndAnswersItsCommands() throws {
        let directory = try TemporaryDirectory(self)
        let library = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "probe")
        let pids = directory.file("pids")
        let manager = PluginManager(
            bus: PluginBus(), requests: RecordingRequests(),
            directories: .init(dataHome: directory.file("data"), cacheHome: directory.file("cache")))
        defer { manager.shutdown() }
        let reports = manager.start([
            PluginEntry(
                id: "org.oton.test.probe", path: library, config: .object(["pid_file": .string(pids)]),
                location: "plugins[0]", isolation: .process)
        ])
        guard case let .running(manifest) = reports.first?.status else { return XCTFail("\(reports)") }
        XCTAssertEqual(manifest.id, "org.oton.test.probe")
        let childPID = try XCTUnwrap(Int32(directory.read("pids").trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertNotEqual(childPID, getpid(), "create() ran in another process")
        let reply = try XCTUnwrap(manager.run(command: "probe-echo", arguments: ["a b", "Я"]))
        XCTAssertTrue(reply.ok, reply.text)
        XCTAssertTrue(reply.text.contains("Я"), reply.text)
    }
}
