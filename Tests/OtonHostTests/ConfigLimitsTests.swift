import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// plugins.json through the new reader: duplicates, depth and size with file:line:col, and speed.
final class ConfigLimitsTests: XCTestCase {
    func testDuplicateKeyNamesFileLineAndColumnOfBoth() throws {
        let text = """
            {
              "plugins": [
                {
                  "id": "org.oton.sleep-timer",
                  "path": "libOtonSleepTimer.so",
                  "config": {
                    "fade_seconds": 10,
                    "volume": 1,
                    "action": "stop",
                    "presets_minutes": [5, 10],
                    "fade_seconds": 20,
                    "volume": 2
                  }
                }
              ]
            }
            """
        XCTAssertThrowsError(try ConfigLoader.parse(Data(text.utf8), file: "/etc/oton/plugins.json")) { error in
            XCTAssertEqual(
                "\((error as? ConfigError)?.message ?? "")",
                #"/etc/oton/plugins.json:11:9: duplicate key "fade_seconds" (first at 7:9); remove one"#)
        }
    }

    func testTooDeepConfigIsAnErrorNotAHang() throws {
        let deep = #"{"plugins":[{"id":"a.b","path":"x.so","config":{"k":"# + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + "}}]}"
        XCTAssertThrowsError(try ConfigLoader.parse(Data(deep.utf8), file: "p.json")) { error in
            XCTAssertTrue("\(error)".contains("p.json:1:"), "\(error)")
            XCTAssertTrue("\(error)".contains("nested deeper than 64"), "\(error)")
        }
    }

    func testOversizedFileIsRefusedWithoutReadingItAll() throws {
        let directory = try TemporaryDirectory(self)
        let file = try directory.write("plugins.json", "{\"stations\": []" + String(repeating: " ", count: ConfigLoader.maxBytes) + "}")
        XCTAssertThrowsError(try ConfigLoader.load(file: file)) { error in
            XCTAssertTrue("\(error)".contains("larger than 1048576 bytes"), "\(error)")
        }
    }

    /// Issue 12 measured 18.5 s for a 5 KB plugins.json with the old decoder.
    func testFiveKilobytePluginsJSONParsesFast() throws {
        var plugins: [String] = []
        var size = 0
        var index = 0
        while size < 5_000 {
            let entry = """
                    {"id": "org.example.p\(index)", "path": "libP\(index).so", "enabled": \(index % 2 == 0),
                     "config": {"list": [[1, 2, [3, [4, [5]]]], {"a": {"b": {"c": [true, null, 1.50]}}}], "n": 12345678901234567890}}
                """
            plugins.append(entry)
            size += entry.utf8.count
            index += 1
        }
        let text = "{\"stations\": [{\"name\": \"A\", \"url\": \"http://127.0.0.1:1/a\"}],\n \"plugins\": [\n" + plugins.joined(separator: ",\n") + "\n]}"
        XCTAssertGreaterThan(text.utf8.count, 5_000)
        let start = Date()
        let config = try ConfigLoader.parse(Data(text.utf8), file: "p.json")
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(config.plugins.count, index)
        XCTAssertEqual(config.plugins[0].config["n"]?.jsonText, "12345678901234567890", "a big integer reaches the plugin unchanged")
        XCTAssertLessThan(elapsed, 2, "generous bound; measured \(elapsed) s")
        print("\(text.utf8.count)-byte plugins.json parsed in \(String(format: "%.4f", elapsed)) s")
    }
}
