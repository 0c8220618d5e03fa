import Foundation
import OtonHost
import OtonTestSupport
import XCTest

/// Declared settings (issue 38 §2) with a real C plugin built by cc against the header alone: the
/// CLI shows them, refuses a typo in plugins.json with "did you mean", and writes one key in place.
final class DeclaredSettingsTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(self)
    }

    private func plugin(_ defines: [String] = []) throws -> String {
        try CPluginBuilder.build(
            TestPaths.root + "/Tests/Fixtures/settings_plugin.c", into: directory,
            name: "settings" + defines.joined(), defines: defines)
    }

    private func writeConfig(_ config: String, library: String) throws -> String {
        try directory.write(
            "plugins.json",
            """
            {"stations": [{"name": "A", "url": "http://127.0.0.1:9/a"}],
             "plugins": [{"id": "org.oton.test.settings", "path": "\(library)",
                          "config": \(config)}]}
            """)
    }

    private func oton(_ arguments: [String]) throws -> ProcessResult {
        try runProcess(TestPaths.oton, arguments, environment: ["HOME": directory.path, "XDG_CONFIG_HOME": directory.path, "LANG": "C"])
    }

    func testInspectListsTheSettingsAndHidesASecretsDefault() throws {
        let library = try plugin()
        let text = try oton(["plugins", "inspect", library])
        XCTAssertEqual(text.status, 0, text.stderr)
        for line in [
            "  file: text, required", "  format: one of text, json, default \"text\"", "  interval_ms: integer 100–60000, default 1000",
            "  verbose: true or false, default false", "  tags: a list of text", "  token: text, secret",
        ] {
            XCTAssertTrue(text.stdout.contains(line + "\n"), "\(line)\n\(text.stdout)")
        }
        let json = try oton(["plugins", "inspect", library, "--json"])
        let settings = try JSONValue.parse(Data(json.stdout.utf8))["settings"]?.arrayValue ?? []
        XCTAssertEqual(settings.compactMap { $0["key"]?.stringValue }, ["file", "format", "interval_ms", "verbose", "tags", "token"])
        XCTAssertEqual(settings[1]["choices"], .array([.string("text"), .string("json")]))
        XCTAssertEqual(settings[2]["maximum"]?.intValue, 60000)
    }

    func testATypoInPluginsJsonIsRefusedByListAndSetFixesItInPlace() throws {
        let library = try plugin()
        let config = try writeConfig(#"{"file": "/tmp/none", "fromat": "json"}"#, library: library)
        let list = try oton(["plugins", "list", "--config", config])
        XCTAssertTrue(list.stdout.contains("✗ org.oton.test.settings"), list.stdout)
        XCTAssertTrue(list.stdout.contains(#"config.fromat is not a setting; did you mean "format"?"#), list.stdout)

        let badValue = try oton(["plugins", "set", "org.oton.test.settings", "interval_ms", "5", "--config", config])
        XCTAssertEqual(badValue.status, 2, badValue.stdout)
        XCTAssertTrue(badValue.stderr.contains("interval_ms is 5, outside 100–60000"), badValue.stderr)
        let unknown = try oton(["plugins", "set", "org.oton.test.settings", "intervall_ms", "500", "--config", config])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains(#"did you mean "interval_ms"?"#), unknown.stderr)
        XCTAssertTrue(directory.read("plugins.json").contains(#""fromat": "json""#), "refused edits leave the file as it was")

        let set = try oton(["plugins", "set", "org.oton.test.settings", "interval_ms", "500", "--config", config])
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertTrue(set.stdout.contains("config.interval_ms is now 500"), set.stdout)
        XCTAssertTrue(
            directory.read("plugins.json").contains(#""config": {"interval_ms": 500, "file": "/tmp/none", "fromat": "json"}"#), directory.read("plugins.json"))
    }

    /// A negative number is a value, not an option ArgumentParser does not know (issue 53): it
    /// needs no `--`, before or after --config; a missing value or a stray option is still named.
    func testANegativeNumberIsAValueAndAMissingValueIsNamed() throws {
        let probe = try CPluginBuilder.build(CPluginBuilder.probeSource, into: directory, name: "probe")
        let config = try directory.write(
            "plugins.json", #"{"stations": [], "plugins": [{"id": "org.oton.test.probe", "path": "\#(probe)", "config": {}}]}"#)
        let set = try oton(["plugins", "set", "org.oton.test.probe", "gain_db", "-6", "--config", config])
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertTrue(set.stdout.contains("config.gain_db is now -6 in"), set.stdout)
        XCTAssertTrue(directory.read("plugins.json").contains(#""gain_db": -6"#), directory.read("plugins.json"))
        let after = try oton(["plugins", "set", "org.oton.test.probe", "gain_db", "--config", config, "-2.5"])
        XCTAssertEqual(after.status, 0, after.stderr)
        XCTAssertTrue(directory.read("plugins.json").contains(#""gain_db": -2.5"#), directory.read("plugins.json"))
        let ended = try oton(["plugins", "set", "org.oton.test.probe", "label", "--config", config, "--", "-x"])
        XCTAssertEqual(ended.status, 0, ended.stderr)
        XCTAssertTrue(directory.read("plugins.json").contains(#""label": "-x""#), directory.read("plugins.json"))

        let missing = try oton(["plugins", "set", "org.oton.test.probe", "gain_db", "--config", config])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("give the value after the key: oton plugins set org.oton.test.probe gain_db VALUE"), missing.stderr)
        XCTAssertTrue(missing.stderr.contains("Usage: oton plugins set <id> <key> <value> [--config <config>]"), missing.stderr)
        let stray = try oton(["plugins", "set", "org.oton.test.probe", "gain_db", "-x", "--config", config])
        XCTAssertEqual(stray.status, 2)
        XCTAssertTrue(stray.stderr.contains("unknown option -x"), stray.stderr)
        let two = try oton(["plugins", "set", "org.oton.test.probe", "gain_db", "-6", "7", "--config", config])
        XCTAssertEqual(two.status, 2)
        XCTAssertTrue(two.stderr.contains("give one value, not 2 (-6 7)"), two.stderr)
        XCTAssertTrue(directory.read("plugins.json").contains(#""gain_db": -2.5"#), "refused edits leave the file as it was")
    }

    func testValidateByIdUsesTheEntrysConfig() throws {
        let library = try plugin()
        let output = directory.file("created.txt")
        let config = try writeConfig(#"{"file": "\#(output)", "fromat": "json"}"#, library: library)
        let refused = try oton(["plugins", "validate", "org.oton.test.settings", "--config", config])
        XCTAssertTrue(refused.stdout.contains("the config does not match the settings the plugin declares"), refused.stdout)
        XCTAssertTrue(refused.stdout.contains("skipped"), refused.stdout)
        _ = try writeConfig(#"{"file": "\#(output)", "format": "json"}"#, library: library)
        let passed = try oton(["plugins", "validate", "org.oton.test.settings", "--config", config])
        XCTAssertEqual(passed.status, 0, passed.stdout)
        XCTAssertTrue(passed.stdout.hasSuffix("all checks passed\n"), passed.stdout)
    }

    func testWrongDeclarationsAreRefusedByTheLoader() throws {
        let duplicate = try oton(["plugins", "inspect", try plugin(["SETTINGS_DUPLICATE_KEY"])])
        XCTAssertEqual(duplicate.status, 2)
        XCTAssertTrue(duplicate.stderr.contains(#"settings[].key is invalid: "format" is declared twice"#), duplicate.stderr)
        let badDefault = try oton(["plugins", "inspect", try plugin(["SETTINGS_BAD_DEFAULT"])])
        XCTAssertEqual(badDefault.status, 2)
        XCTAssertTrue(badDefault.stderr.contains(#"its default "xml" is "xml", not one of text, json"#), badDefault.stderr)
    }
}
