import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// What a failed create() leaves behind and tells the user, and where bare plugin names are looked for.
final class PluginStartFailureTests: XCTestCase {
    private func startFailing(config: [String: JSONValue], in directory: TemporaryDirectory) throws -> PluginManager.Report {
        let path = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "failing")
        let manager = PluginManager(
            bus: PluginBus(), requests: RecordingRequests(),
            directories: .init(dataHome: directory.file("data"), cacheHome: directory.file("cache")))
        defer { manager.shutdown() }
        return manager.start([
            PluginEntry(
                id: "org.oton.test.probe", path: path, enabled: true,
                config: .object(config), location: "plugins[0]")
        ])[0]
    }

    func testFailedCreateLeavesNoDataOrCacheDirectoryBehind() throws {
        let directory = try TemporaryDirectory(self)
        let report = try startFailing(config: ["fail": .string("needs a token")], in: directory)
        guard case .failed(.createFailed) = report.status else { return XCTFail("\(report.status)") }
        for made in ["data", "cache"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file(made)), "\(made) was left behind")
        }
    }

    func testFailedCreateKeepsDirectoriesThatExistedBefore() throws {
        let directory = try TemporaryDirectory(self)
        let kept = directory.file("data/plugins/org.oton.test.probe")
        try FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: true)
        try directory.write("data/plugins/org.oton.test.probe/state.db", "kept")
        _ = try startFailing(config: ["fail": .string("needs a token")], in: directory)
        XCTAssertEqual(directory.read("data/plugins/org.oton.test.probe/state.db"), "kept")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("cache")))
    }

    func testCreateWithoutReasonGetsAHintThatDoesNotBlameTheConfig() throws {
        let directory = try TemporaryDirectory(self)
        let report = try startFailing(config: ["fail": .string("")], in: directory)
        guard case let .failed(error) = report.status else { return XCTFail("\(report.status)") }
        XCTAssertTrue(error.reason.contains("create() returned NULL without a reason"), error.reason)
        XCTAssertFalse(error.hint.contains("as the reason says"), error.hint)
        XCTAssertTrue(error.hint.contains("log"), error.hint)
    }

    func testBareNamesAreSearchedBesideTheExecutableThenInTheInstallThenInTheUserFolder() {
        let directories = PluginSearchPath.directories(
            executableDirectory: "/opt/oton/bin",
            environment: ["HOME": "/home/ana", "XDG_DATA_HOME": "/data/ana"])
        XCTAssertEqual(directories, ["/opt/oton/bin", "/opt/oton/lib/oton/plugins", "/data/ana/oton/plugins"])
        // A relative XDG_DATA_HOME is ignored, as the XDG spec says.
        XCTAssertEqual(
            PluginSearchPath.userDirectory(environment: ["HOME": "/home/ana", "XDG_DATA_HOME": "rel"]),
            "/home/ana/.local/share/oton/plugins")
    }

    func testBareNameIsFoundInTheUserPluginFolder() throws {
        let directory = try TemporaryDirectory(self)
        let user = directory.file("xdg/oton/plugins")
        try FileManager.default.createDirectory(atPath: user, withIntermediateDirectories: true)
        try directory.write("xdg/oton/plugins/libmine.so", "")
        let search = PluginSearchPath.directories(
            executableDirectory: directory.file("bin"),
            environment: ["HOME": directory.path, "XDG_DATA_HOME": directory.file("xdg")])
        let manager = PluginManager(bus: PluginBus(), requests: RecordingRequests(), searchDirectories: search)
        XCTAssertEqual(try manager.resolve("libmine.so", configDirectory: nil), user + "/libmine.so")
        XCTAssertThrowsError(try manager.resolve("libother.so", configDirectory: nil)) { error in
            XCTAssertTrue("\(error)".contains(user), "the error names where it looked: \(error)")
        }
    }
}
