import XCTest

@testable import OtonJSON

/// The one reader of plugin config objects: every kind of setting, at its limits and against
/// values of the wrong kind, with the error naming the key, the rule and what was written.
final class PluginConfigReaderTests: XCTestCase {
    private func reader(_ json: String) throws -> PluginConfigReader { try PluginConfigReader(json: json) }

    private func message(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            try body()
            XCTFail("expected an error", file: file, line: line)
            return ""
        } catch {
            XCTAssertTrue(error is PluginConfigError, "\(type(of: error))", file: file, line: line)
            return "\(error)"
        }
    }

    func testAbsentAndNullKeysTakeTheDefault() throws {
        let config = try reader(#"{"a": null}"#)
        XCTAssertNil(try config.bool("a"))
        XCTAssertNil(try config.number("a", in: 0...1))
        XCTAssertNil(try config.string("missing"))
        XCTAssertNil(try config.section("missing"))
        XCTAssertNil(try config.objects("a"))
    }

    func testTheTopLevelMustBeAnObjectAndSyntaxErrorsNameLineAndColumn() {
        XCTAssertEqual(message { _ = try reader("[1, 2]") }, "config must be a JSON object, not [1,2]")
        XCTAssertEqual(
            message { _ = try PluginConfigReader(json: "7", example: #"{"listen": "127.0.0.1:8765"}"#) },
            #"config must be a JSON object, e.g. {"listen": "127.0.0.1:8765"}, not 7"#)
        XCTAssertTrue(message { _ = try reader("{\n  \"a\": tru\n}") }.hasPrefix("config is not valid JSON (2:"))
        XCTAssertTrue(message { _ = try reader(#"{"a": 1, "a": 2}"#) }.contains("duplicate key \"a\""))
        XCTAssertTrue(message { _ = try reader("") }.contains("empty"))
    }

    func testBooleansAreOnlyTrueAndFalse() throws {
        let config = try reader(#"{"yes": true, "one": 1, "text": "true"}"#)
        XCTAssertEqual(try config.bool("yes"), true)
        XCTAssertEqual(message { _ = try config.bool("one") }, "config.one must be true or false, not 1")
        XCTAssertEqual(message { _ = try config.bool("text") }, #"config.text must be true or false, not "true""#)
    }

    func testNumbersAreReadFromTheirLiteralAndCheckedAgainstTheRange() throws {
        let config = try reader(#"{"a": 0.1, "b": 1e1, "c": true, "d": "5", "e": 120.000001, "f": -0}"#)
        XCTAssertEqual(try config.number("a", in: 0.1...120), 0.1)
        XCTAssertEqual(try config.number("b", in: 0...10), 10)
        XCTAssertEqual(try config.number("f", in: 0...1), 0)
        XCTAssertEqual(message { _ = try config.number("c", in: 0...600) }, "config.c must be a number from 0 to 600, not true")
        XCTAssertEqual(message { _ = try config.number("d", in: 0...600) }, #"config.d must be a number from 0 to 600, not "5""#)
        XCTAssertEqual(message { _ = try config.number("e", in: 0.1...120) }, "config.e must be a number from 0.1 to 120, not 120.000001")
        XCTAssertEqual(message { _ = try config.number("e", in: 0...1, expected: "a share of 1") }, "config.e must be a share of 1, not 120.000001")
    }

    func testWholeNumbersRefuseFractionsAndNumbersBeyondInt() throws {
        let config = try reader(#"{"a": 1e3, "b": 1.5, "c": 12345678901234567890, "d": -1, "e": 2.0}"#)
        XCTAssertEqual(try config.integer("a", in: 0...1000), 1000)
        XCTAssertEqual(try config.integer("d", in: -1...5), -1)
        XCTAssertEqual(try config.integer("e", in: 0...5), 2)
        XCTAssertEqual(message { _ = try config.integer("b", in: 0...5) }, "config.b must be a whole number from 0 to 5, not 1.5")
        XCTAssertEqual(
            message { _ = try config.integer("c", in: 0 ... .max) },
            "config.c must be a whole number from 0 to \(Int.max), not 12345678901234567890", "shown as written, never through a Double")
    }

    func testStringsChoicesAndTheirLimits() throws {
        enum Action: String, CaseIterable { case stop, pause, quit }
        let config = try reader(#"{"empty": "", "long": "abcdef", "action": "pause", "bad": "explode", "number": 3}"#)
        XCTAssertEqual(try config.string("empty"), "")
        XCTAssertEqual(message { _ = try config.string("empty", nonEmpty: true) }, #"config.empty must be a non-empty string, not """#)
        XCTAssertEqual(try config.string("long", maxCount: 6), "abcdef")
        XCTAssertThrowsError(try config.string("long", maxCount: 5))
        XCTAssertEqual(try config.choice("action", Action.self), .pause)
        XCTAssertEqual(message { _ = try config.choice("bad", Action.self) }, #"config.bad must be "stop", "pause" or "quit", not "explode""#)
        XCTAssertEqual(message { _ = try config.string("number") }, "config.number must be a string, not 3")
    }

    func testListsNameTheItemThatIsWrong() throws {
        let config = try reader(#"{"s": ["a", "b", 3], "n": [1, 70], "i": [5, 10], "big": [1, 2, 3], "none": []}"#)
        XCTAssertEqual(message { _ = try config.strings("s") }, "config.s must be a list of strings; item 2 is 3")
        XCTAssertEqual(message { _ = try config.numbers("n", in: 0...60) }, "config.n must be a list of numbers from 0 to 60; item 1 is 70")
        XCTAssertEqual(try config.integers("i", in: 1...1440), [5, 10])
        XCTAssertThrowsError(try config.strings("big", maxCount: 2))
        XCTAssertThrowsError(try config.integers("none", in: 1...5, count: 1...3), "an empty list where one item is needed")
        XCTAssertEqual(try config.strings("none"), [])
    }

    func testNestedObjectsCarryTheirLocationIntoErrors() throws {
        let config = try reader(#"{"services": [{"name": "A"}, {"name": 5}, 7], "lastfm": {"url": false}, "flat": 1}"#)
        let services = message { _ = try config.objects("services") }
        XCTAssertEqual(services, "config.services[2] must be an object, not 7")
        let second = PluginConfigReader(members: ["name": .number(5)], location: "config.services[1]")
        XCTAssertEqual(message { _ = try second.string("name") }, "config.services[1].name must be a string, not 5")
        let lastfm = try XCTUnwrap(config.section("lastfm"))
        XCTAssertEqual(message { _ = try lastfm.string("url") }, "config.lastfm.url must be a string, not false")
        XCTAssertEqual(message { _ = try config.section("flat") }, "config.flat must be an object, not 1")
    }

    func testUnknownKeysAreRefusedWithTheKnownOnesListed() throws {
        let config = try reader(#"{"fade_second": 5, "action": "stop"}"#)
        XCTAssertEqual(
            message { try config.refuseUnknownKeys(known: ["fade_seconds", "action"], owner: "a sleep-timer") },
            "config.fade_second is not a sleep-timer setting; known: action, fade_seconds")
        XCTAssertNoThrow(try reader(#"{"action": "stop"}"#).refuseUnknownKeys(known: ["fade_seconds", "action"], owner: "a sleep-timer"))
    }

    func testHostileValuesAreShownEscapedAndShort() throws {
        let config = try reader(#"{"a": "\u001b[2J\u0007 title", "b": "# + "\"" + String(repeating: "x", count: 5000) + "\"}")
        let escaped = message { _ = try config.bool("a") }
        XCTAssertFalse(escaped.unicodeScalars.contains { $0.value < 0x20 }, "no terminal control reaches the log: \(escaped)")
        XCTAssertTrue(escaped.contains(#"\u001b[2J"#), escaped)
        let long = message { _ = try config.bool("b") }
        XCTAssertLessThan(long.count, 120, "a 5000-character value is cut in the message")
        XCTAssertTrue(long.hasSuffix("…"), long)
    }
}
