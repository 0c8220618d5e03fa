import Foundation
import XCTest

@testable import OtonJSON

/// The host's one JSON reader: linear time, depth 64, duplicate keys refused, numbers as written.
final class JSONParserTests: XCTestCase {
    private func parse(_ text: String, maxBytes: Int = 1 << 20) throws -> JSONValue {
        try JSONParser(maxBytes: maxBytes).parse(Data(text.utf8))
    }

    private func error(_ text: String, maxBytes: Int = 1 << 20, file: StaticString = #filePath, line: UInt = #line) -> JSONSyntaxError? {
        do {
            let value = try JSONParser(maxBytes: maxBytes).parse(Data(text.utf8))
            XCTFail("parsed \(value) from \(text.prefix(80))", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    /// The body from issue 12 that pinned a core for 60 s: 1 MiB of 500-deep arrays.
    func testOneMebibyteOf500DeepArraysIsRefusedQuicklyForDepth() throws {
        let unit = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        let body = "[" + Array(repeating: unit, count: (1 << 20) / 1001).joined(separator: ",") + "]"
        XCTAssertGreaterThan(body.utf8.count, 1_000_000)
        let start = Date()
        let failure = try XCTUnwrap(error(body, maxBytes: 2 << 20))
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(failure.kind, .tooDeep)
        XCTAssertTrue(failure.reason.contains("deeper than 64"), failure.reason)
        XCTAssertEqual(failure.line, 1)
        XCTAssertEqual(failure.column, 65, "the 65th '[' is one too many")
        XCTAssertLessThan(elapsed, 5, "generous bound; measured: \(elapsed) s")
        print("1 MiB of 500-deep arrays refused in \(String(format: "%.4f", elapsed)) s")
    }

    func testSixtyFourLevelsParseAndSixtyFiveDoNot() throws {
        let arrays64 = String(repeating: "[", count: 64) + "1" + String(repeating: "]", count: 64)
        var value = try parse(arrays64)
        for _ in 0..<64 {
            guard case let .array(items) = value else { return XCTFail("expected an array") }
            value = items[0]
        }
        XCTAssertEqual(value.text, "1")
        let objects64 = String(repeating: "{\"a\":", count: 64) + "true" + String(repeating: "}", count: 64)
        XCTAssertNoThrow(try parse(objects64))
        XCTAssertEqual(error("[" + arrays64 + "]")?.kind, .tooDeep)
        XCTAssertEqual(error("{\"a\":" + objects64 + "}")?.kind, .tooDeep)
    }

    /// Wide documents stay linear: 50,000 members and a 1 MiB flat array.
    func testLargeFlatDocumentsParseInLinearTime() throws {
        let members = (0..<50_000).map { "\"k\($0)\": [\($0), \"v\", true, null]" }.joined(separator: ",\n")
        var start = Date()
        let object = try parse("{" + members + "}", maxBytes: 4 << 20)
        let objectSeconds = Date().timeIntervalSince(start)
        guard case let .object(map) = object else { return XCTFail("expected an object") }
        XCTAssertEqual(map.count, 50_000)
        XCTAssertEqual(map["k49999"]?.jsonText, #"[49999,"v",true,null]"#)

        let flat = "[" + Array(repeating: "\"abc\\u00e9\"", count: 100_000).joined(separator: ",") + "]"
        start = Date()
        guard case let .array(items) = try parse(flat, maxBytes: 2 << 20) else { return XCTFail("expected an array") }
        let arraySeconds = Date().timeIntervalSince(start)
        XCTAssertEqual(items.count, 100_000)
        XCTAssertEqual(items[0].stringValue, "abcé")
        XCTAssertLessThan(objectSeconds + arraySeconds, 20, "generous bound")
        print(
            "50,000 members: \(String(format: "%.3f", objectSeconds)) s; 100,000 strings (\(flat.utf8.count) bytes): \(String(format: "%.3f", arraySeconds)) s")
    }

    func testDuplicateKeysAreRefusedWithBothPositions() throws {
        let text = "{\n  \"a\": {\n    \"volume\": 1,\n    \"x\": 2,\n    \"volume\": 3\n  }\n}"
        let failure = try XCTUnwrap(error(text))
        XCTAssertEqual(failure.kind, .duplicateKey)
        XCTAssertEqual(failure.line, 5)
        XCTAssertEqual(failure.column, 5)
        XCTAssertEqual(failure.reason, #"duplicate key "volume" (first at 3:5); remove one"#)
        // The same key in sibling objects is fine.
        XCTAssertNoThrow(try parse(#"[{"a":1},{"a":2}]"#))
    }

    func testSyntaxErrorsNameLineAndColumn() throws {
        let cases: [(String, Int, Int, String)] = [
            ("{\"a\": 1,}", 1, 9, "a comma before '}'"),
            ("[1, 2,]", 1, 7, "a comma before ']'"),
            ("{\"a\" 1}", 1, 6, "expected ':'"),
            ("[1 2]", 1, 4, "expected ',' or ']'"),
            ("{'a': 1}", 1, 2, "expected a key in double quotes"),
            ("[01]", 1, 2, "leading zeros"),
            ("[1.]", 1, 4, "after the decimal point"),
            ("[-]", 1, 3, "after '-'"),
            ("[tru]", 1, 2, "did you mean true"),
            ("\"abc", 1, 1, "not closed"),
            ("\"a\tb\"", 1, 3, "control character"),
            ("\"\\x\"", 1, 2, "unknown escape"),
            ("\"\\ud800\"", 1, 2, "without the low surrogate"),
            ("\"\\udc00\"", 1, 2, "low surrogate without"),
            ("\"\\u12\"", 1, 2, "four hex digits"),
            ("[1] x", 1, 5, "after the end"),
            ("", 1, 1, "empty"),
            ("[\n\n  é, 1]", 3, 3, "expected a value"),
            ("[NaN]", 1, 2, "expected a value"),
            ("[Infinity]", 1, 2, "expected a value"),
        ]
        for (text, line, column, reason) in cases {
            guard let failure = error(text) else { continue }
            XCTAssertEqual(failure.kind, .syntax, text)
            XCTAssertEqual([failure.line, failure.column], [line, column], "\(text): \(failure)")
            XCTAssertTrue(failure.reason.contains(reason), "\(text): \(failure.reason) should contain \(reason)")
        }
    }

    func testInvalidUTF8IsRefused() {
        var bytes = Data("[\"ab".utf8)
        bytes.append(contentsOf: [0xC3, 0x28])
        bytes.append(contentsOf: Data("\"]".utf8))
        XCTAssertThrowsError(try JSONParser(maxBytes: 100).parse(bytes)) { error in
            XCTAssertTrue("\(error)".contains("not valid UTF-8"), "\(error)")
        }
    }

    func testSizeLimitIsCheckedBeforeParsing() throws {
        let failure = try XCTUnwrap(error("[1,2,3]", maxBytes: 6))
        XCTAssertEqual(failure.kind, .tooLarge)
        XCTAssertEqual(failure.reason, "the text is 7 bytes; the limit is 6 bytes")
        XCTAssertNoThrow(try parse("[1,2,3]", maxBytes: 7))
    }

    func testStringsEscapesAndByteOrderMark() throws {
        let value = try parse("\u{FEFF}{\"s\": \"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\ud83d\\ude00é\"}")
        XCTAssertEqual(value["s"]?.stringValue, "q\"\\/\u{8}\u{C}\n\r\tA😀é")
        XCTAssertEqual(try parse(#"{"b":"x","a":[1.50,null,false]}"#).jsonText, #"{"a":[1.50,null,false],"b":"x"}"#)
        XCTAssertEqual(try parse(#""\u0000""#).jsonText, #""\u0000""#)
    }

    func testNumbersKeepTheirLiteralAndNeverTrap() throws {
        XCTAssertEqual(try parse("12345678901234567890").jsonText, "12345678901234567890")
        XCTAssertEqual(try parse("1.50").text, "1.50")
        let cases: [(String, Int64?, UInt64?, Double)] = [
            ("0", 0, 0, 0),
            ("-0", 0, 0, 0),
            ("9223372036854775807", Int64.max, 9_223_372_036_854_775_807, 9.223372036854775807e18),
            ("-9223372036854775808", Int64.min, nil, -9.223372036854775808e18),
            ("9223372036854775808", nil, 9_223_372_036_854_775_808, 9.223372036854775808e18),
            ("18446744073709551616", nil, nil, 1.8446744073709551616e19),
            ("1e3", 1000, 1000, 1000),
            ("1.5", nil, nil, 1.5),
            ("1e19", nil, 10_000_000_000_000_000_000, 1e19),
            ("1e300", nil, nil, 1e300),
            ("2.5e1", 25, 25, 25),
            ("-1", -1, nil, -1),
        ]
        for (literal, int64, uint64, double) in cases {
            guard case let .number(number) = try parse(literal) else { XCTFail(literal); continue }
            XCTAssertEqual(number.literal, literal)
            XCTAssertEqual(number.int64, int64, literal)
            XCTAssertEqual(number.uint64, uint64, literal)
            XCTAssertEqual(number.double, double, literal)
        }
        for literal in ["1e400", "-1e309", "[1E999]"] {
            XCTAssertEqual(error(literal)?.kind, .numberOutOfRange, literal)
        }
        XCTAssertEqual(error("[" + String(repeating: "1", count: 2000) + "]")?.kind, .numberOutOfRange)
        XCTAssertNil(JSONNumber(.infinity))
        XCTAssertNil(JSONNumber(.nan))
        XCTAssertEqual(JSONValue.number(.nan), .null)
        XCTAssertEqual(JSONNumber(1999.0)?.literal, "1999")
        XCTAssertEqual(JSONNumber(-0.25)?.literal, "-0.25")
    }
}
