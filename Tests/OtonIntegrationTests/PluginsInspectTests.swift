import Foundation
import OtonTestSupport
import XCTest

/// `oton plugins inspect` takes what a user has at hand: a bare file name, a plugin id or a path.
final class PluginsInspectTests: XCTestCase {
    func testABareNameAnIdAndAPathAllFindTheBundledPlugin() throws {
        let directory = try TemporaryDirectory(self)
        let config = try directory.write("plugins.json", #"{"stations": [], "plugins": [{"id": "org.oton.share", "path": "libOtonShare.so"}]}"#)
        let environment = ProcessInfo.processInfo.environment.merging(["XDG_RUNTIME_DIR": directory.path, "XDG_DATA_HOME": directory.file("data")]) { $1 }
        for (argument, id) in [("libOtonSleepTimer.so", "org.oton.sleep-timer"), ("org.oton.share", "org.oton.share"),
                               (TestPaths.pluginLibrary("OtonSleepTimer"), "org.oton.sleep-timer")] {
            // Run from an empty folder: the bare name is not found by accident in the current folder.
            let result = try runProcess(TestPaths.oton, ["plugins", "inspect", argument, "--config", config],
                                        environment: environment, currentDirectory: directory.path)
            XCTAssertEqual(result.status, 0, "\(argument): \(result.stderr)")
            XCTAssertTrue(result.stdout.contains("id:          \(id)"), "\(argument): \(result.stdout)")
        }
        let missing = try runProcess(TestPaths.oton, ["plugins", "inspect", "libNoSuchPlugin.so", "--config", config],
                                     environment: environment, currentDirectory: directory.path)
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("libNoSuchPlugin.so") && missing.stderr.contains("looked in"), missing.stderr)
    }
}
