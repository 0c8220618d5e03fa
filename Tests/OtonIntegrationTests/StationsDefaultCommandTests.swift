import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// `oton stations default`: the default station can be changed from the command line, and removing
/// it says how.
final class StationsDefaultCommandTests: XCTestCase {
    func testTheDefaultMovesAndThenTheOldDefaultCanBeRemoved() throws {
        let home = try TemporaryDirectory(self)
        let config = try home.write(
            "plugins.json",
            """
            {"default_station": "Alpha",
             "stations": [{"name": "Alpha", "url": "http://127.0.0.1:9/a"}, {"name": "Beta", "url": "http://127.0.0.1:9/b"}]}
            """)
        let runtime = home.file("run")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let environment = ["XDG_RUNTIME_DIR": runtime, "XDG_CACHE_HOME": home.file("cache"), "LANG": "C.UTF-8"]
        func oton(_ arguments: [String]) throws -> ProcessResult {
            try runProcess(TestPaths.oton, ["stations"] + arguments + ["--config", config], environment: environment)
        }

        let refused = try oton(["remove", "alpha"])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains(#"oton stations default "Beta""#), "the refusal says what to do: \(refused.stderr)")

        let shown = try oton(["default"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertEqual(shown.stdout, "Alpha\n")

        let set = try oton(["default", "beta"])
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertTrue(set.stdout.contains(#""Beta" is now the default_station"#), set.stdout)
        XCTAssertEqual(try ConfigLoader.load(file: config).defaultStation?.name, "Beta")
        XCTAssertEqual(try oton(["default"]).stdout, "Beta\n")

        let unknown = try oton(["default", "Gamma"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("no station named \"Gamma\""), unknown.stderr)

        let removed = try oton(["remove", "Alpha"])
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(try ConfigLoader.load(file: config).stations.map(\.name), ["Beta"])
        XCTAssertTrue(try oton(["list"]).stdout.contains("Beta  http://127.0.0.1:9/b  (default)"))
    }
}
