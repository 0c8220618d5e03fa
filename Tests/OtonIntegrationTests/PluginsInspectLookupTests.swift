import Foundation
import OtonTestSupport
import XCTest

/// `oton plugins inspect` takes what a user has at hand: a bundled file name, a plugin id, or a path.
final class PluginsInspectLookupTests: XCTestCase {
    func testABareFileNameAnIdAndAPathAllFindTheBundledPlugin() throws {
        let directory = try TemporaryDirectory(self)
        var environment = ProcessInfo.processInfo.environment
        environment["OTON_CONFIG"] = nil
        environment["XDG_CONFIG_HOME"] = directory.file("xdg")
        for argument in ["libOtonSleepTimer.so", "org.oton.sleep-timer", TestPaths.pluginLibrary("OtonSleepTimer")] {
            let result = try runProcess(TestPaths.oton, ["plugins", "inspect", argument], environment: environment, currentDirectory: directory.path)
            XCTAssertEqual(result.status, 0, "\(argument): \(result.stderr)")
            XCTAssertTrue(result.stdout.contains("org.oton.sleep-timer"), "\(argument): \(result.stdout)")
        }
        let missing = try runProcess(TestPaths.oton, ["plugins", "inspect", "org.example.nope"], environment: environment, currentDirectory: directory.path)
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("no plugin file or id \"org.example.nope\"") && missing.stderr.contains("org.oton.share"), missing.stderr)
    }
}
