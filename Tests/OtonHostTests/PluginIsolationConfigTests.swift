import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// `"isolation"` in a plugin's plugins.json entry: read, refused when unknown, and never
/// quietly ignored (a plugin asked to run out of process is not run inside oton).
final class PluginIsolationConfigTests: XCTestCase {
    func testIsolationIsReadAndDefaultsToInProcess() throws {
        let text = #"{"plugins":[{"id":"org.a.b","path":"x.so"},{"id":"org.a.c","path":"y.so","isolation":"process"},{"id":"org.a.d","path":"z.so","isolation":"in-process"}]}"#
        let config = try ConfigLoader.parse(Data(text.utf8), file: "p.json")
        XCTAssertEqual(config.plugins.map(\.isolation), [.inProcess, .process, .inProcess])
    }

    func testUnknownIsolationNamesThePlaceAndTheAcceptedValues() {
        let cases: [(String, String)] = [
            (#"{"plugins":[{"id":"org.a.b","path":"x.so","isolation":"sandbox"}]}"#,
             #"plugins[0].isolation: "sandbox" is not a plugin isolation oton knows; use "in-process" or "process""#),
            (#"{"plugins":[{"id":"org.a.b","path":"x.so","isolation":true}]}"#, "plugins[0].isolation: must be a string"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try ConfigLoader.parse(Data(text.utf8), file: "p.json"), text) { error in
                XCTAssertTrue("\(error)".contains("p.json"), "\(error)")
                XCTAssertTrue("\(error)".contains(expected), "\(error) should contain \(expected)")
            }
        }
    }

    func testAProcessIsolatedPluginIsNotRunInsideOton() throws {
        let directory = try TemporaryDirectory(self)
        let library = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "probe")
        let log = directory.file("probe.log")
        let manager = PluginManager(bus: PluginBus(), requests: RecordingRequests(),
                                    directories: .init(dataHome: directory.file("data"), cacheHome: directory.file("cache")))
        defer { manager.shutdown() }
        let reports = manager.start([PluginEntry(id: "org.oton.test.probe", path: library, config: .object(["log": .string(log)]),
                                                 location: "plugins[0]", isolation: .process)])
        guard case let .failed(error) = reports.first?.status else { return XCTFail("\(reports)") }
        XCTAssertEqual(error, .isolationUnavailable(path: library, id: "org.oton.test.probe"))
        XCTAssertTrue(error.description.contains("hint: remove \"isolation\""), error.description)
        XCTAssertFalse(FileManager.default.fileExists(atPath: log), "its create() must not have run")
    }
}
