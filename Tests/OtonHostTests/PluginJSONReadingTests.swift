import Foundation
import OtonTestSupport
import PluginAPI
import XCTest

@testable import OtonHost

/// ABI 1.5's `oton_host.read_json` as a C plugin calls it: typed reads by path, absent values, refusals
/// in the config reader's words (and in the table's language), and hostile texts and paths.
final class PluginJSONReadingTests: XCTestCase {
    private struct Read: Equatable {
        var status: oton_status
        var found: UInt32 = 0
        var boolean: UInt32 = 0
        var number: Double = 0
        var integer: Int64 = 0
        var text = ""
        var error = ""
    }

    /// A C buffer's text up to its NUL.
    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func read(
        _ json: String, _ path: String, _ type: oton_json_type, range: (Double, Double) = (0, 0),
        textSize: Int = 256, errorSize: Int = 512, catalogue: MessageCatalogue = .english
    ) -> Read {
        var value = oton_json_value()
        value.struct_size = UInt32(MemoryLayout<oton_json_value>.size)
        value.type = type
        (value.minimum, value.maximum) = range
        var text = [CChar](repeating: 0x7F, count: max(textSize, 1))
        var error = [CChar](repeating: 0, count: max(errorSize, 1))
        let status = text.withUnsafeMutableBufferPointer { textBuffer in
            value.text = textSize > 0 ? textBuffer.baseAddress : nil
            value.text_size = textSize
            return PluginJSONReading.read(json: json, path: path, value: &value, error: &error, errorSize: errorSize, catalogue: catalogue)
        }
        var result = Read(status: status, found: value.found, boolean: value.boolean, number: value.number, integer: value.integer)
        if type == OTON_JSON_STRING, status == OTON_OK, value.found == 1, textSize > 0 { result.text = Self.string(text) }
        result.error = Self.string(error)
        return result
    }

    private let config =
        #"{"name": "Jazz FM", "volume": 0.25, "port": 8080, "big": 1e3, "loud": true, "tags": ["a", "b", 3], "#
        + #""station": {"name": "Radio \"Ю\"", "urls": [{"url": "http://a"}, {"url": "http://b"}]}, "gone": null}"#

    func testEachTypeIsReadAtItsPath() {
        XCTAssertEqual(read(config, "config.name", OTON_JSON_STRING), Read(status: OTON_OK, found: 1, integer: 7, text: "Jazz FM"))
        XCTAssertEqual(read(config, "config.volume", OTON_JSON_NUMBER, range: (0, 1)), Read(status: OTON_OK, found: 1, number: 0.25))
        XCTAssertEqual(read(config, "config.port", OTON_JSON_INTEGER, range: (1, 65535)), Read(status: OTON_OK, found: 1, number: 8080, integer: 8080))
        XCTAssertEqual(read(config, "config.big", OTON_JSON_INTEGER).integer, 1000, "1e3 is a whole number, as in the config reader")
        XCTAssertEqual(read(config, "config.loud", OTON_JSON_BOOL), Read(status: OTON_OK, found: 1, boolean: 1))
        XCTAssertEqual(read(config, "config.tags", OTON_JSON_ARRAY_LENGTH), Read(status: OTON_OK, found: 1, integer: 3))
        XCTAssertEqual(read(config, "config.station.name", OTON_JSON_STRING).text, "Radio \"Ю\"")
        XCTAssertEqual(read(config, "config.station.name", OTON_JSON_STRING).integer, 10, "bytes (Ю is two), not characters")
        XCTAssertEqual(read(config, "config.station.urls[1].url", OTON_JSON_STRING).text, "http://b")
        XCTAssertEqual(read(config, "config.tags[0]", OTON_JSON_STRING).text, "a")
        XCTAssertEqual(read(#"["play","2"]"#, "args", OTON_JSON_ARRAY_LENGTH).integer, 2)
        XCTAssertEqual(read(#"["play","2"]"#, "args[1]", OTON_JSON_STRING).text, "2")
        XCTAssertEqual(read("[]", "args", OTON_JSON_ARRAY_LENGTH), Read(status: OTON_OK, found: 1, integer: 0))
    }

    func testAbsentOrNullAnywhereAlongThePathIsNotFoundAndNotAnError() {
        for path in ["config.missing", "config.gone", "config.missing.deeper", "config.gone[3]", "config.tags[3]", "config.station.urls[9].url"] {
            XCTAssertEqual(read(config, path, OTON_JSON_STRING), Read(status: OTON_OK, found: 0), path)
        }
        XCTAssertEqual(read("[]", "args[0]", OTON_JSON_STRING), Read(status: OTON_OK, found: 0))
        XCTAssertEqual(read("{}", "config.port", OTON_JSON_INTEGER, range: (1, 65535)), Read(status: OTON_OK, found: 0))
    }

    func testAWrongTypeIsRefusedInTheConfigReadersWords() {
        XCTAssertEqual(
            read(#"{"port": "80"}"#, "config.port", OTON_JSON_INTEGER, range: (1, 65535)).error,
            #"config.port must be a whole number from 1 to 65535, not "80""#)
        XCTAssertEqual(read(#"{"port": 70000}"#, "config.port", OTON_JSON_INTEGER, range: (1, 65535)).status, OTON_ERR_INVALID)
        XCTAssertEqual(read(#"{"port": 1.5}"#, "config.port", OTON_JSON_INTEGER).error, "config.port must be a whole number, not 1.5")
        XCTAssertEqual(read(config, "config.volume", OTON_JSON_NUMBER, range: (0.5, 1)).error, "config.volume must be a number from 0.5 to 1, not 0.25")
        XCTAssertEqual(read(config, "config.loud", OTON_JSON_NUMBER).error, "config.loud must be a number, not true")
        XCTAssertEqual(read(config, "config.port", OTON_JSON_BOOL).error, "config.port must be true or false, not 8080")
        XCTAssertEqual(read(config, "config.port", OTON_JSON_STRING).error, "config.port must be a string, not 8080")
        XCTAssertEqual(read(config, "config.name", OTON_JSON_ARRAY_LENGTH).error, #"config.name must be a list, not "Jazz FM""#)
        XCTAssertEqual(read(config, "config.tags[2]", OTON_JSON_STRING).error, "config.tags[2] must be a string, not 3")
        // A step on the way that is not what the path says.
        XCTAssertEqual(read(config, "config.name.first", OTON_JSON_STRING).error, #"config.name must be an object, not "Jazz FM""#)
        let notList = read(config, "config.station[0]", OTON_JSON_STRING).error
        XCTAssertTrue(notList.hasPrefix(#"config.station must be a list, not {"name":"#) && notList.hasSuffix("…"), notList)
        XCTAssertEqual(read(#"["5"]"#, "args[0]", OTON_JSON_INTEGER).error, #"args[0] must be a whole number, not "5""#, "arguments are strings")
        // The config root is refused exactly as the Swift plugins' config is.
        XCTAssertEqual(read("[1]", "config.a", OTON_JSON_STRING).error, "config must be a JSON object, not [1]")
        XCTAssertTrue(read("{", "config.a", OTON_JSON_STRING).error.hasPrefix("config is not valid JSON (1:2: "), read("{", "config.a", OTON_JSON_STRING).error)
        XCTAssertTrue(read("[", "args[0]", OTON_JSON_STRING).error.hasPrefix("args is not valid JSON (1:2: "))
        XCTAssertEqual(read(#"{"a": 1, "a": 2}"#, "config.a", OTON_JSON_INTEGER).status, OTON_ERR_INVALID, "a key given twice")
    }

    func testTheErrorIsInTheTablesLanguage() {
        let russian = MessageCatalogue.load(languages: ["ru"], directories: [TestPaths.root + "/Sources/OtonHost/Resources/locale"])
        let refused = read(#"{"port": "80"}"#, "config.port", OTON_JSON_INTEGER, range: (1, 65535), catalogue: russian)
        XCTAssertEqual(refused.status, OTON_ERR_INVALID)
        XCTAssertEqual(
            refused.error,
            russian.tr(
                "{key} must be a whole number from {min} to {max}, not {value}",
                ["key": "config.port", "min": "1", "max": "65535", "value": "\"80\""]))
        XCTAssertNotEqual(refused.error, #"config.port must be a whole number from 1 to 65535, not "80""#)
    }

    func testAStringThatDoesNotFitSaysItsLength() {
        let small = read(config, "config.name", OTON_JSON_STRING, textSize: 4)
        XCTAssertEqual(small.status, OTON_ERR_FAILED)
        XCTAssertEqual(small.integer, 7)
        XCTAssertEqual(small.error, "config.name is longer than 3 bytes")
        XCTAssertEqual(read(config, "config.name", OTON_JSON_STRING, textSize: 8).text, "Jazz FM", "the length + 1 fits")
        XCTAssertEqual(read(config, "config.name", OTON_JSON_STRING, textSize: 0), Read(status: OTON_OK, found: 1, integer: 7), "size 0 asks for the length")
    }

    func testMalformedCallsAreRefusedWithoutTouchingMemory() {
        XCTAssertEqual(read(config, "config.port", 99).status, OTON_ERR_INVALID)
        XCTAssertEqual(read(config, "config.port", OTON_JSON_INTEGER, range: (2, 1)).status, OTON_ERR_INVALID)
        XCTAssertEqual(read(config, "config.port", OTON_JSON_INTEGER, range: (0.5, 10)).status, OTON_ERR_INVALID)
        XCTAssertEqual(read(config, "config.port", OTON_JSON_NUMBER, range: (-.infinity, 1)).status, OTON_ERR_INVALID)
        var value = oton_json_value()
        value.struct_size = 8
        value.type = OTON_JSON_BOOL
        var error = [CChar](repeating: 0, count: 128)
        XCTAssertEqual(
            PluginJSONReading.read(json: "{}", path: "config.a", value: &value, error: &error, errorSize: 128, catalogue: .english), OTON_ERR_INVALID)
        XCTAssertTrue(Self.string(error).contains("struct_size"), Self.string(error))
        XCTAssertEqual(PluginJSONReading.read(json: nil, path: "config.a", value: &value, error: nil, errorSize: 0, catalogue: .english), OTON_ERR_INVALID)
        // A one-byte error buffer holds the NUL only; a Russian error cut short ends on a whole character.
        XCTAssertEqual(read(#"{"a": 1}"#, "config.a", OTON_JSON_STRING, errorSize: 1).error, "")
        let russian = MessageCatalogue.load(languages: ["ru"], directories: [TestPaths.root + "/Sources/OtonHost/Resources/locale"])
        for size in 2...40 {
            let cut = read(#"{"a": "Ю"}"#, "config.a", OTON_JSON_INTEGER, errorSize: size, catalogue: russian)
            XCTAssertLessThan(cut.error.utf8.count, size)
            XCTAssertFalse(cut.error.contains("\u{FFFD}"), "cut at \(size): \(cut.error)")
        }
    }

    func testBadPathsAreRefused() {
        for path in [
            "", ".a", "config.", "config..a", "config[", "config[]", "config[x]", "config[1", "config[1234567890]", "con fig", "config a",
            "config." + String(repeating: "a", count: 1100), "args" + String(repeating: "[0]", count: 65),
        ] {
            let result = read(config, path, OTON_JSON_STRING)
            XCTAssertEqual(result.status, OTON_ERR_INVALID, path)
            XCTAssertTrue(result.error.contains("is not valid"), result.error)
        }
        XCTAssertEqual(read("[[[1]]]", "args[0][0][0]", OTON_JSON_INTEGER).integer, 1)
    }

    func testHostileTextsAreRefusedWithinBounds() {
        // Nested past the parser's limit: refused, no stack overflow.
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let nested = read(deep, "args[0]", OTON_JSON_ARRAY_LENGTH)
        XCTAssertEqual(nested.status, OTON_ERR_INVALID)
        XCTAssertTrue(nested.error.hasPrefix("args is not valid JSON"), nested.error)
        // Larger than 1 MiB: refused without being read whole.
        let huge = "[\"" + String(repeating: "x", count: 8 << 20) + "\"]"
        let started = Date()
        let large = read(huge, "args[0]", OTON_JSON_STRING)
        XCTAssertEqual(large.status, OTON_ERR_INVALID)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        // A long string under the limit: its length is told, and the error shows only its start.
        let long = "[\"" + String(repeating: "y", count: 900_000) + "\"]"
        XCTAssertEqual(read(long, "args[0]", OTON_JSON_STRING, textSize: 0).integer, 900_000)
        let shown = read(long, "args[0]", OTON_JSON_INTEGER)
        XCTAssertLessThan(shown.error.count, 120, shown.error)
        // Invalid UTF-8 is refused, not replaced.
        var bytes: [CChar] = Array("[\"a".utf8CString.dropLast()) + [CChar(bitPattern: 0xFF), 0x22, 0x5D, 0]
        var value = oton_json_value()
        value.struct_size = UInt32(MemoryLayout<oton_json_value>.size)
        value.type = OTON_JSON_STRING
        XCTAssertEqual(PluginJSONReading.read(json: &bytes, path: "args[0]", value: &value, error: nil, errorSize: 0, catalogue: .english), OTON_ERR_INVALID)
    }

    /// 1.5 appended read_json at 136; 1.6 appended write_json_string after it, and nothing moved.
    func testTheHostTableKeepsReadJSONWhere15PutItAnd16AppendsAfterIt() {
        XCTAssertEqual(OTON_ABI_MINOR, 6)
        XCTAssertEqual(MemoryLayout<oton_host>.offset(of: \oton_host.read_json), 136)
        XCTAssertEqual(MemoryLayout<oton_host>.offset(of: \oton_host.write_json_string), 144)
        XCTAssertEqual(MemoryLayout<oton_host>.size, 152)
        XCTAssertEqual(MemoryLayout<oton_json_value>.size, Int(OTON_JSON_VALUE_SIZE_1_5))
    }
}
