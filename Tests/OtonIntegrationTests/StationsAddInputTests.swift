import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// Issue 27.15: `oton stations add` keeps to the directory client's rules — no control characters,
/// names of at most 200 characters, http(s) URLs or files that exist — refuses anything else with
/// why, writes nothing then, and never echoes a raw escape.
final class StationsAddInputTests: XCTestCase {
    func testHostileNamesAndURLsAreRefusedAndNothingIsWritten() throws {
        let home = try TemporaryDirectory(self)
        let original = #"{"stations": [{"name": "Alpha", "url": "http://127.0.0.1:9/a"}]}"#
        let config = try home.write("plugins.json", original)
        let audio = try home.write("tone.ogg", "not really audio, but a file that exists")
        let environment = ["XDG_RUNTIME_DIR": home.file("run"), "XDG_CACHE_HOME": home.file("cache"), "LANG": "C.UTF-8"]
        func add(_ name: String, _ url: String) throws -> ProcessResult {
            try runProcess(TestPaths.oton, ["stations", "add", name, url, "--config", config], environment: environment)
        }
        let refused: [(name: String, url: String, says: String)] = [
            ("Evil\u{1B}[2JFM", "http://127.0.0.1:9/e", "control characters"),
            ("Bell\u{07}FM", "http://127.0.0.1:9/e", "control characters"),
            ("Two\nLines", "http://127.0.0.1:9/e", "control characters"),
            (String(repeating: "Я", count: 60_000), "http://127.0.0.1:9/e", "at most 200"),
            ("Passwords", "file:///no/such/file.mp3", "no such file"),
            ("Script", "javascript:alert(1)", "not an http(s) URL"),
            ("Data", "data:audio/mpeg;base64,AAAA", "not an http(s) URL"),
            ("Spaces", "http://127.0.0.1:9/a b", "not an http(s) URL"),
        ]
        for item in refused {
            let result = try add(item.name, item.url)
            XCTAssertEqual(result.status, 2, "\(item.url): \(result.stdout)\(result.stderr)")
            XCTAssertTrue(result.stderr.contains(item.says), "\(item.says): \(result.stderr.prefix(300))")
            XCTAssertFalse(result.stderr.contains("\u{1B}") || result.stdout.contains("\u{1B}"), "no raw escape is echoed")
            XCTAssertEqual(home.read("plugins.json"), original, "nothing written for \(item.url)")
        }
        XCTAssertEqual(try add("Local", "file://" + audio).status, 0)
        XCTAssertEqual(try add("Beta", "https://127.0.0.1:9/b").status, 0)
        XCTAssertEqual(try ConfigLoader.load(file: config).stations.map(\.name), ["Alpha", "Local", "Beta"])
    }
}
