import FileSinkLogic
import Foundation
import HistoryLogic
import SleepTimerLogic
import XCTest

@testable import OtonHost

/// Every numeric parser of user, config and control input at its limits: none may trap,
/// and each refusal names the value and the accepted range.
final class NumericInputTests: XCTestCase {
    private let hostile = [
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "99999999999999999999999",
        "1e30", "1e400", "inf", "infinity", "nan", "0x1p70", "0x10", "-1", "-0", "", " ", "1.5.5", "١٢",
    ]

    // MARK: oton ctl volume

    func testVolumeArgumentsAtTheirLimits() {
        let accepted: [(String, ControlCommands.VolumeArgument)] = [
            ("0", .absolute(0)), ("150", .absolute(150)), ("30%", .absolute(30)), ("000150", .absolute(150)),
            ("+150", .relative(150)), ("-150", .relative(-150)), ("+0", .relative(0)), ("-5%", .relative(-5)),
        ]
        for (text, expected) in accepted {
            XCTAssertEqual(try ControlCommands.volumeArgument(text).get(), expected, text)
        }
        for text in [
            "151", "+151", "-151", "+9223372036854775807", "-9223372036854775808", "9223372036854775808",
            "99999999999999999999999", "1e3", "0x10", "5.5", "inf", "nan", "", "+", "%", "++5", "5%%", "١٢",
        ] {
            guard case let .failure(error) = ControlCommands.volumeArgument(text) else {
                XCTFail("\(text) was accepted")
                continue
            }
            XCTAssertTrue(error.description.contains("\"\(text)\""), "names the value: \(error)")
            XCTAssertTrue(error.description.contains("from 0 to 150") || error.description.contains("from -150 to +150"), "names the range: \(error)")
        }
    }

    // MARK: oton history --since

    func testHistorySpansAtTheirLimits() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let utc = try XCTUnwrap(TimeZone(identifier: "UTC"))
        XCTAssertEqual(try HistoryQuery.parseDate("90m", now: now, timeZone: utc), (1_700_000_000 - 5400) * 1_000_000)
        XCTAssertEqual(try HistoryQuery.parseDate("1.5h", now: now, timeZone: utc), (1_700_000_000 - 5400) * 1_000_000)
        XCTAssertEqual(try HistoryQuery.parseDate("0d", now: now, timeZone: utc), 1_700_000_000 * 1_000_000)
        XCTAssertNoThrow(try HistoryQuery.parseDate("5217w", now: now, timeZone: utc), "just under 100 years")
        XCTAssertNoThrow(try HistoryQuery.parseDate("36525d", now: now, timeZone: utc), "100 years")
        for text in [
            "1e30d", "infw", "1e400w", "99999999999999h", "-5d", "nand", "nanw", "0x1p70h", "5218w", "36526d",
            "9223372036854775807m", ".d", "1.5.5h", "+5d", "d",
        ] {
            XCTAssertThrowsError(try HistoryQuery.parseDate(text, now: now, timeZone: utc), text) { error in
                XCTAssertTrue("\(error)".contains("--since \(text)"), "names the value: \(error)")
                XCTAssertTrue("\(error)".contains("from 0 to 100 years"), "names the range: \(error)")
            }
        }
        XCTAssertThrowsError(try HistoryQuery.parse(["--since", "1e30d"]))
        XCTAssertThrowsError(try HistoryQuery.parse(["--limit", "9223372036854775808"])) { error in
            XCTAssertTrue("\(error)".contains("from 1 to 100000"), "\(error)")
        }
    }

    func testHistoryDatesFarInTheFutureAreRefusedNotTrapped() throws {
        let utc = try XCTUnwrap(TimeZone(identifier: "UTC"))
        XCTAssertEqual(try HistoryQuery.parseDate("9999-12-31", now: Date(), timeZone: utc), 253_402_214_400_000_000)
        for text in ["9999-12-31", "0001-01-01", "2024-05-01T18:30:00Z", "999999-01-01", "-999999-01-01"] {
            do {
                _ = try HistoryQuery.parseDate(text, now: Date(), timeZone: utc)
            } catch {
                XCTAssertTrue("\(error)".contains("--since"), "\(error)")
            }
        }
    }

    // MARK: oton record --duration / --max-size

    func testRecordDurationsAtTheirLimits() throws {
        XCTAssertEqual(try RecordArguments.seconds("90s"), 90)
        XCTAssertEqual(try RecordArguments.seconds("1h30m"), 5400)
        XCTAssertEqual(try RecordArguments.seconds("0.5s"), 0.5)
        XCTAssertEqual(try RecordArguments.seconds("8760h"), 365 * 86400)
        for text in hostile + ["8761h", "0", "0s", "1e20", "5x", "h", "1.2.3m"] {
            XCTAssertThrowsError(try RecordArguments.seconds(text), text) { error in
                XCTAssertTrue("\(error)".contains("--duration"), "\(error)")
                XCTAssertTrue("\(error)".contains("365 days"), "names the range: \(error)")
            }
        }
    }

    /// One grammar: what `ctl sleep` takes, `--duration`, `--fade-in` and `snooze` take too (issue 34: `sleep 4:30`
    /// worked while `snooze 4:30` was refused).
    func testEveryDurationOptionReadsTheSameGrammar() throws {
        for (text, seconds) in [("4:30", 270), ("1h 15m", 4500), ("1.5h", 5400), ("1:05:00", 3900)] {
            XCTAssertEqual(try RecordArguments.seconds(text), Double(seconds), text)
            XCTAssertEqual(try SleepDuration.parse(text), seconds, text)
        }
    }

    func testABareRecordDurationIsRefusedWithTheUnitsToChooseFrom() {
        XCTAssertThrowsError(try RecordArguments.seconds("45")) { error in
            XCTAssertTrue("\(error)".contains("45s for seconds, 45m for minutes"), "\(error)")
        }
    }

    func testRecordMaxSizesAtTheirLimits() throws {
        XCTAssertEqual(try RecordArguments.bytes("1K"), 1024)
        XCTAssertEqual(try RecordArguments.bytes("500M"), 500 * 1_048_576)
        XCTAssertEqual(try RecordArguments.bytes("2GB"), 2 * 1_073_741_824)
        XCTAssertEqual(try RecordArguments.bytes("1TiB"), 1_099_511_627_776)
        XCTAssertEqual(try RecordArguments.bytes("1099511627776"), 1_099_511_627_776)
        for text in hostile + ["1e20", "1.1T", "1023", "0.5K", "2T", "M", "5X", "1099511627777"] {
            XCTAssertThrowsError(try RecordArguments.bytes(text), text) { error in
                XCTAssertTrue("\(error)".contains("--max-size \(text)"), "names the value: \(error)")
                XCTAssertTrue("\(error)".contains("1K") && "\(error)".contains("1T"), "names the range: \(error)")
            }
        }
    }

    // MARK: file-sink config

    func testFileSinkMegabyteSettingsAtTheirLimits() throws {
        func settings(_ member: String) throws -> FileSinkSettings {
            try FileSinkSettings.parse(#"{"directory": "/tmp/x", "# + member + "}")
        }
        XCTAssertEqual(try settings(#""max_mb": 1048576"#).maxBytes, 1 << 40)
        XCTAssertEqual(try settings(#""max_mb": 0"#).maxBytes, 0)
        XCTAssertEqual(try settings(#""disk_floor_mb": 1000000000"#).diskFloorBytes, 1_000_000_000 * 1_048_576)
        for member in [
            #""max_mb": 1e300"#, #""max_mb": 1048577"#, #""max_mb": -1"#, #""max_mb": 1.7e308"#,
            #""max_mb": 18446744073709551615"#, #""disk_floor_mb": 1e300"#, #""buffer_mb": 1e300"#,
            #""min_seconds": 1e300"#, #""silence_window": 1e300"#, #""pad_before": -1e300"#,
        ] {
            XCTAssertThrowsError(try settings(member), member) { error in
                XCTAssertTrue("\(error)".contains(" must be a number"), "names the range: \(member): \(error)")
                XCTAssertTrue("\(error)".contains(", not "), "names the value: \(member): \(error)")
            }
        }
    }

    /// What the host hands the file sink for `oton record --max-size` at its upper limit survives the round trip.
    func testHostJSONForTheFileSinkCarriesFiniteNumbersOnly() throws {
        let megabytes = try RecordArguments.bytes("1T") / 1_048_576
        let config = JSONValue.object(["directory": .string("/tmp/x"), "max_mb": .number(megabytes)]).jsonText
        XCTAssertEqual(try FileSinkSettings.parse(config).maxBytes, 1 << 40)
        XCTAssertEqual(JSONValue.object(["max_mb": .number(.infinity)]).jsonText, #"{"max_mb":null}"#)
    }

    // MARK: sleep timer

    func testSleepDurationsAtTheirLimits() throws {
        XCTAssertEqual(try SleepDuration.parse("1s"), 1)
        XCTAssertEqual(try SleepDuration.parse("24h"), 86400)
        XCTAssertEqual(try SleepDuration.parse("1440m"), 86400)
        XCTAssertEqual(try SleepDuration.parse("23:59:59"), 86399)
        for text in [
            "0", "0s", "1441", "1441m", "24h1s", "9223372036854775807", "9223372036854775808", "99999999999999999999999",
            "999999h", "9999999h", "999999:59:59", "1e3", "inf", "nan", "-5", "0x10", "", "5x", "1h1h",
        ] {
            XCTAssertThrowsError(try SleepDuration.parse(text), text) { error in
                XCTAssertTrue("\(error)".contains("is not a duration"), "\(text): \(error)")
            }
        }
        XCTAssertThrowsError(try SleepDuration.parse("9223372036854775808m")) { error in
            XCTAssertTrue("\(error)".contains("from 1 second to 24 hours"), "\(error)")
        }
    }

    // MARK: control requests

    func testControlRequestNumbersAreTakenAsWrittenAndTheIDEchoedUnchanged() throws {
        let request = try ControlRequest.parse(Data(#"{"command": ["volume", 30], "id": 12345678901234567890}"#.utf8))
        XCTAssertEqual(request.name, "volume")
        XCTAssertEqual(request.arguments, ["30"])
        let reply = String(decoding: ControlReply.success("ok").line(id: request.id), as: UTF8.self)
        XCTAssertTrue(reply.hasPrefix(#"{"id":12345678901234567890,"#), reply)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any])
        XCTAssertEqual(object["ok"] as? Bool, true)
        XCTAssertEqual(String(decoding: ControlReply.failure("x").line(id: nil), as: UTF8.self), #"{"id":null,"error":"x","ok":false}"# + "\n")
    }

    func testControlRequestsThatAreNotJSONSayWhere() {
        let deep = #"{"command": "status", "id": "# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}"
        let cases: [(String, String)] = [
            (deep, "nested deeper than 64"),
            (#"{"command": "status", "command": "quit"}"#, #"duplicate key "command""#),
            (#"{"command": ["volume", 1e400]}"#, "out of range"),
            (#"{"command": ["volume", true]}"#, "non-empty array of strings"),
            ("{\"command\": ", "not valid JSON at column 13"),
        ]
        for (line, expected) in cases {
            XCTAssertThrowsError(try ControlRequest.parse(Data(line.utf8)), line) { error in
                let message = (error as? ControlRequest.Invalid)?.message ?? "\(error)"
                XCTAssertTrue(message.contains(expected), "\(message) should contain \(expected)")
            }
        }
    }
}
