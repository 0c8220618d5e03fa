import Foundation
import OtonTestSupport
import PluginAPI
import XCTest

/// The `oton` executable as a user runs it.
final class CommandLineTests: XCTestCase {
    func testMalformedConfigExitsWithCode2NamingFileLineAndColumn() throws {
        let directory = try TemporaryDirectory(self)
        let file = try directory.write("plugins.json", "{\n  \"plugins\": [\n    {\"id\": \"org.a.b\",, \"path\": \"x.so\"}\n  ]\n}\n")
        let result = try runProcess(TestPaths.oton, ["plugins", "list", "--config", file])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("\(file):3:22: not valid JSON"), result.stderr)
        XCTAssertTrue(result.stderr.contains("hint:"), result.stderr)
    }

    func testInspectPrintsTheDescriptorWithoutCallingCreate() throws {
        let directory = try TemporaryDirectory(self)
        let library = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "probe")
        let result = try runProcess(TestPaths.oton, ["plugins", "inspect", library, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["id"] as? String, "org.oton.test.probe")
        XCTAssertEqual(json["consumes"] as? [String], ["track", "state", "org.oton.test.probe"])
        XCTAssertEqual(
            (json["commands"] as? [[String: Any]])?.map { $0["name"] as? String }, ["probe-echo", "probe-publish", "probe-select-late", "probe-switch"])

        let text = try runProcess(TestPaths.oton, ["plugins", "inspect", library])
        XCTAssertTrue(text.stdout.contains("probe-echo ARGS…"), text.stdout)
        // The probe's create() would write created_marker; nothing may exist besides the library.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["libprobe.so"])
    }

    func testInspectOfANonPluginExitsWithCode2AndAReason() throws {
        let result = try runProcess(TestPaths.oton, ["plugins", "inspect", "/bin/true"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("/bin/true"), result.stderr)
    }

    func testListShowsEachConfiguredPluginAndWhyOneFails() throws {
        let directory = try TemporaryDirectory(self)
        let library = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "probe", defines: ["PROBE_ABI_MAJOR=9u"])
        let file = try directory.write(
            "plugins.json",
            """
            {"plugins": [
              {"id": "org.oton.sleep-timer", "path": "libOtonSleepTimer.so"},
              {"id": "org.oton.test.probe", "path": "\(library)", "config": {"created_marker": "\(directory.file("created"))"}}
            ]}
            """)
        let result = try runProcess(TestPaths.oton, ["plugins", "list", "--config", file])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("✓ org.oton.sleep-timer  ok 0.1.0"), result.stdout)
        XCTAssertTrue(
            result.stdout.contains("✗ org.oton.test.probe  enabled  built for plugin ABI 9.\(OTON_ABI_MINOR), but this oton speaks ABI 1.\(OTON_ABI_MINOR)"),
            result.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("created")))
    }
}
