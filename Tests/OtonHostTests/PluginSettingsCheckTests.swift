import Foundation
import OtonHost
import XCTest

/// Declared settings (ABI 1.6): a config checked against what the plugin declares, in words a person
/// can act on; a typed value read as the setting's type; one key of plugins.json edited in place.
final class PluginSettingsCheckTests: XCTestCase {
    private let settings = [
        PluginSetting(key: "file", kind: .string, help: "the file to write", required: true),
        PluginSetting(key: "format", kind: .string, help: "how", defaultValue: .string("text"), choices: ["text", "json"]),
        PluginSetting(key: "interval_ms", kind: .integer, help: "how often", range: 100...60000),
        PluginSetting(key: "gain", kind: .number, help: "dB", range: -12...12),
        PluginSetting(key: "verbose", kind: .boolean, help: "every event"),
        PluginSetting(key: "tags", kind: .strings, help: "words"),
    ]

    private func problems(_ json: String) throws -> [String] {
        PluginSettingsCheck.problems(config: try JSONValue.parse(Data(json.utf8)), settings: settings)
    }

    func testAFittingConfigHasNoProblems() throws {
        XCTAssertEqual(try problems(#"{"file": "/tmp/x", "format": "json", "interval_ms": 250, "gain": -3.5, "verbose": true, "tags": ["a"]}"#), [])
    }

    func testATypoIsRefusedWithTheNearestKey() throws {
        let found = try problems(#"{"file": "/tmp/x", "fromat": "json"}"#)
        XCTAssertEqual(found, [#"config.fromat is not a setting; did you mean "format"? (known: file, format, interval_ms, gain, verbose, tags)"#])
        XCTAssertEqual(try problems(#"{"file": "/tmp/x", "colour": 1}"#).first?.contains("did you mean"), false, "no near key, no guess")
    }

    func testWrongTypesRangesChoicesAndMissingRequiredKeysAreEachNamed() throws {
        let found = try problems(#"{"format": "xml", "interval_ms": 5, "gain": "loud", "verbose": "yes", "tags": [1]}"#)
        XCTAssertEqual(
            found,
            [
                "config.format is \"xml\", not one of text, json",
                "config.gain must be number -12–12, not text",
                "config.interval_ms is 5, outside 100–60000",
                "config.tags must be a list of strings",
                "config.verbose must be true or false, not text",
                "config.file is required: the file to write",
            ])
        XCTAssertEqual(try problems(#"{"file": "x", "interval_ms": 150.5}"#), ["config.interval_ms must be a whole number, not 150.5"])
    }

    func testAPluginWithoutDeclarationsChecksItsOwnConfig() throws {
        XCTAssertEqual(PluginSettingsCheck.problems(config: try JSONValue.parse(Data(#"{"anything": 1}"#.utf8)), settings: []), [])
    }

    func testEditDistanceCountsASwapAsOne() {
        XCTAssertEqual(PluginSettingsCheck.editDistance("fromat", "format"), 1)
        XCTAssertEqual(PluginSettingsCheck.editDistance("intervall_ms", "interval_ms"), 1)
        XCTAssertEqual(PluginSettingsCheck.editDistance("", "abc"), 3)
    }

    func testATypedValueIsReadAsItsSettingsType() {
        func value(_ key: String, _ text: String) -> String {
            switch settings.first(where: { $0.key == key })!.value(fromText: text) {
            case let .success(json): json.jsonText
            case let .failure(error): "error: " + error.message
            }
        }
        XCTAssertEqual(value("verbose", "on"), "true")
        XCTAssertEqual(value("interval_ms", "500"), "500")
        XCTAssertEqual(value("interval_ms", "50"), "error: interval_ms is 50, outside 100–60000")
        XCTAssertEqual(value("format", "xml"), "error: format is \"xml\", not one of text, json")
        XCTAssertEqual(value("file", "42"), "\"42\"", "text stays text")
        XCTAssertEqual(value("tags", "rock, jazz"), #"["rock","jazz"]"#)
        XCTAssertEqual(value("verbose", "maybe"), "error: verbose takes true or false, not \"maybe\"")
    }

    // MARK: plugins.json edited in place

    private let file = """
        {
          "stations": [{"name": "A", "url": "http://127.0.0.1/a"}],
          "plugins": [
            {"id": "org.example.one", "path": "libone.so",   "config": {"keep": 1,  "format": "text"}},
            {"id": "org.example.two", "path": "libtwo.so"},
            {"id": "org.example.three", "path": "libthree.so", "config": {}}
          ]
        }
        """

    private func edit(_ key: String, _ value: JSONValue, _ id: String) throws -> String {
        String(decoding: try PluginConfigEdit.setting(key, to: value, plugin: id, in: Data(file.utf8), file: "plugins.json"), as: UTF8.self)
    }

    func testAnExistingValueIsReplacedAndEveryOtherByteKept() throws {
        let edited = try edit("format", .string("json"), "org.example.one")
        XCTAssertEqual(edited, file.replacingOccurrences(of: #""format": "text""#, with: #""format": "json""#))
    }

    func testANewKeyIsAddedToTheConfigOrAConfigIsAdded() throws {
        XCTAssertTrue(try edit("format", .string("json"), "org.example.three").contains(#""config": {"format": "json"}"#))
        let two = try edit("verbose", .bool(true), "org.example.two")
        XCTAssertTrue(two.contains(#"{"config": {"verbose": true}, "id": "org.example.two", "path": "libtwo.so"}"#), two)
        let one = try edit("verbose", .bool(false), "org.example.one")
        XCTAssertTrue(one.contains(#""config": {"verbose": false, "keep": 1,  "format": "text"}"#), one)
        for text in [two, one] { XCTAssertNoThrow(try ConfigLoader.parse(Data(text.utf8), file: "plugins.json")) }
    }

    func testAnUnknownPluginIsRefusedWithTheKnownIds() {
        XCTAssertThrowsError(try edit("x", .int(1), "org.example.none")) { error in
            XCTAssertEqual(
                error as? StationsEditError,
                .unknownPlugin(
                    id: "org.example.none", file: "plugins.json",
                    known: ["org.example.one", "org.example.two", "org.example.three"]))
        }
    }
}
