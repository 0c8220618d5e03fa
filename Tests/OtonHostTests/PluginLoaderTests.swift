import Foundation
import OtonHost
import OtonTestSupport
import PluginAPI
import XCTest

/// The loader's checks, on real shared libraries compiled from Tests/Fixtures/probe_plugin.c.
final class PluginLoaderTests: XCTestCase {
    private func probe(_ directory: TemporaryDirectory, _ name: String = "probe", _ defines: [String] = []) throws -> String {
        try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: name, defines: defines)
    }

    func testValidPluginDescriptorIsRead() throws {
        let directory = try TemporaryDirectory(self)
        let manifest = try PluginLibrary(path: probe(directory)).manifest
        XCTAssertEqual(manifest.id, "org.oton.test.probe")
        XCTAssertEqual(manifest.name, "Probe")
        XCTAssertEqual(manifest.abiVersion, "\(OTON_ABI_MAJOR).\(OTON_ABI_MINOR)")
        XCTAssertEqual(manifest.consumes, ["track", "state", "org.oton.test.probe"])
        XCTAssertEqual(manifest.commands.map(\.name), ["probe-echo", "probe-publish", "probe-select-late", "probe-switch"])
    }

    func testOtherMajorIsRefusedNamingBothVersions() throws {
        let directory = try TemporaryDirectory(self)
        let path = try probe(directory, "major", ["PROBE_ABI_MAJOR=2u"])
        XCTAssertThrowsError(try PluginLibrary(path: path)) { error in
            XCTAssertEqual(error as? PluginLoadError, .majorMismatch(path: path, plugin: "2.\(OTON_ABI_MINOR)", host: "1.\(OTON_ABI_MINOR)"))
            XCTAssertTrue("\(error)".contains("2.\(OTON_ABI_MINOR)") && "\(error)".contains("1.\(OTON_ABI_MINOR)"))
        }
    }

    func testNewerMinorIsRefusedNamingBothVersions() throws {
        let directory = try TemporaryDirectory(self)
        let path = try probe(directory, "minor", ["PROBE_ABI_MINOR=7u"])
        XCTAssertThrowsError(try PluginLibrary(path: path)) { error in
            XCTAssertEqual(error as? PluginLoadError, .newerMinor(path: path, plugin: "1.7", host: "1.\(OTON_ABI_MINOR)"))
        }
    }

    func testOlderMinorWithSmallerDescriptorLoadsIntoNewerHost() throws {
        let directory = try TemporaryDirectory(self)
        // Built against ABI 1.0 with the smallest 1.0 descriptor; the host speaks 1.3.
        let path = try probe(directory, "older", ["PROBE_ABI_MINOR=0u", "PROBE_OLD_DESCRIPTOR"])
        let library = try PluginLibrary(path: path, hostABI: (1, 3))
        XCTAssertEqual(library.manifest.abiVersion, "1.0")
        XCTAssertEqual(library.manifest.descriptorSize, PluginLibrary.minimumDescriptorSize)
        XCTAssertTrue(library.manifest.hasOnCommand)
    }

    func testMissingEntrySymbolIsRefused() throws {
        let directory = try TemporaryDirectory(self)
        let path = try probe(directory, "noentry", ["PROBE_ENTRY_NAME=some_other_name"])
        XCTAssertThrowsError(try PluginLibrary(path: path)) { error in
            XCTAssertEqual(error as? PluginLoadError, .missingEntry(path: path))
        }
    }

    func testMissingRequiredFieldIsRefused() throws {
        let directory = try TemporaryDirectory(self)
        let path = try probe(directory, "noname", ["PROBE_NO_NAME"])
        XCTAssertThrowsError(try PluginLibrary(path: path)) { error in
            XCTAssertEqual(error as? PluginLoadError, .missingField(path: path, field: "name"))
        }
    }

    func testIDThatIsNotReverseDNSIsRefused() throws {
        let directory = try TemporaryDirectory(self)
        let path = try probe(directory, "badid", [#"PROBE_ID="probe""#])
        XCTAssertThrowsError(try PluginLibrary(path: path)) { error in
            guard case .invalidField(_, "id", _) = error as? PluginLoadError else { return XCTFail("\(error)") }
        }
    }

    func testWorldWritableFileOrDirectoryIsRefused() throws {
        let directory = try TemporaryDirectory(self)
        let path = try probe(directory, "writable")
        chmod(path, 0o757)
        XCTAssertThrowsError(try PluginLibrary(path: path)) { error in
            guard case let .unsafeFile(_, reason) = error as? PluginLoadError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("writable by every user"), reason)
        }
        chmod(path, 0o755)
        chmod(directory.path, 0o777)
        defer { chmod(directory.path, 0o700) }
        XCTAssertThrowsError(try PluginLibrary(path: path)) { error in
            guard case let .unsafeFile(_, reason) = error as? PluginLoadError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("the directory \(directory.path) is writable by every user (mode 777) and not sticky"), reason)
        }
    }

    func testNotALibraryIsReportedNotCrashed() throws {
        let directory = try TemporaryDirectory(self)
        let path = try directory.write("libgarbage.so", "this is not an ELF file")
        XCTAssertThrowsError(try PluginLibrary(path: path)) { error in
            guard case .openFailed = error as? PluginLoadError else { return XCTFail("\(error)") }
        }
    }

    func testDuplicateIDAndFailingCreateAreSkippedWhileOthersRun() throws {
        let directory = try TemporaryDirectory(self)
        let first = try probe(directory, "first")
        let second = try probe(directory, "second")
        let third = try probe(directory, "third", [#"PROBE_ID="org.oton.test.third""#])
        let fourth = try probe(directory, "fourth", [#"PROBE_ID="org.oton.test.fourth""#])
        let bus = PluginBus()
        let manager = PluginManager(
            bus: bus, requests: RecordingRequests(), directories: .init(dataHome: directory.file("data"), cacheHome: directory.file("cache")))
        let reports = manager.start([
            PluginEntry(
                id: "org.oton.test.probe", path: first, enabled: true, config: .object(["log": .string(directory.file("first.log"))]), location: "plugins[0]"),
            PluginEntry(id: "org.oton.test.probe", path: second, enabled: true, config: .object([:]), location: "plugins[1]"),
            PluginEntry(id: "org.oton.test.third", path: third, enabled: true, config: .object(["fail": .string("needs a token")]), location: "plugins[2]"),
            PluginEntry(id: "org.oton.test.wrong", path: fourth, enabled: true, config: .object([:]), location: "plugins[3]"),
            PluginEntry(id: "org.oton.test.off", path: "/nonexistent.so", enabled: false, config: .object([:]), location: "plugins[4]"),
        ])
        defer { manager.shutdown() }
        guard case .running = reports[0].status else { return XCTFail("\(reports[0])") }
        XCTAssertEqual(reports[1].status, .failed(.duplicateID(path: second, id: "org.oton.test.probe", loadedFrom: first)))
        XCTAssertEqual(reports[2].status, .failed(.createFailed(path: third, id: "org.oton.test.third", reason: "needs a token")))
        XCTAssertEqual(reports[3].status, .failed(.idMismatch(path: fourth, configured: "org.oton.test.wrong", declared: "org.oton.test.fourth")))
        XCTAssertEqual(reports[4].status, .disabled)
        // The surviving plugin still gets events.
        bus.publish(.track(TrackInfo(title: "Still here"), sequence: 1))
        manager.drain()
        XCTAssertTrue(directory.read("first.log").contains("title=Still here"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.file("data/plugins/org.oton.test.probe")))
    }
}
