import Foundation
import OtonTestSupport
import SleepTimerLogic
import XCTest

@testable import OtonHost

/// What the help texts offer is what the code does: every key the status line handles is in
/// `oton play --help`, and every duration a help offers (`oton record --help`, the commands of
/// every bundled plugin as `oton ctl commands` lists them) is accepted by the option or command.
final class HelpAgreesWithTheCodeTests: XCTestCase {
    /// The keys of ``StatusLine``'s key switch, from its source: the first key of each `case` (the
    /// others on the line are aliases: `=` for `+`, `_` for `-`, Ctrl-C for `q`), as the help writes them.
    private func statusLineKeys() throws -> [String] {
        let source = try String(contentsOfFile: TestPaths.root + "/Sources/oton/StatusLine.swift", encoding: .utf8)
        let switchStart = try XCTUnwrap(source.range(of: "switch byte {"), "the key switch")
        let switchEnd = try XCTUnwrap(source[switchStart.upperBound...].range(of: "default: break"), "the key switch's end")
        let body = source[switchStart.upperBound..<switchEnd.lowerBound]
        var keys: [String] = []
        for line in body.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix("case ") {
            guard let match = line.firstMatch(of: #/case UInt8\(ascii: "(.)"\)(?: ?\.\.\. ?UInt8\(ascii: "(.)"\))?/#) else { continue }
            let key = match.output.2.map { "\(match.output.1)–\($0)" } ?? (match.output.1 == " " ? "space" : String(match.output.1))
            if !keys.contains(key) { keys.append(key) }
        }
        return keys
    }

    func testEveryKeyTheStatusLineHandlesIsInPlayHelp() throws {
        let keys = try statusLineKeys()
        XCTAssertTrue(Set(["space", "q", "1–9", "s", "?"]).isSubset(of: Set(keys)), "the scan finds the keys: \(keys)")
        let help = try runProcess(TestPaths.oton, ["play", "--help"], environment: ["LANG": "C.UTF-8"])
        XCTAssertEqual(help.status, 0, help.stderr)
        let words = Set(help.stdout.split(whereSeparator: { $0.isWhitespace || $0 == "·" }).map(String.init))
        for key in keys {
            // A range is written "1 to 9" (the man page keeps ASCII only: "1–9" read "19" there).
            let range = key.split(separator: "–")
            let listed = words.contains(key) || (range.count == 2 && help.stdout.contains("\(range[0]) to \(range[1])"))
            XCTAssertTrue(listed, "the status line handles \"\(key)\" but `oton play --help` does not list it:\n\(help.stdout)")
        }
    }

    /// Durations as the help texts write them: 90s, 30m, 1h15m, 1.5h, 45:00.
    private func offeredDurations(_ text: String) -> [String] {
        text.split(whereSeparator: { $0.isWhitespace || ",;()[]|/".contains($0) })
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ".:")) }
            .filter { $0.wholeMatch(of: #/(?:\d+(?:\.\d+)?[hms])+|\d+:\d\d(?::\d\d)?/#) != nil }
    }

    func testEveryDurationRecordHelpOffersIsAccepted() throws {
        let help = try runProcess(TestPaths.oton, ["record", "--help"], environment: ["LANG": "C.UTF-8"])
        XCTAssertEqual(help.status, 0, help.stderr)
        let offered = offeredDurations(help.stdout)
        XCTAssertTrue(offered.contains("1h30m"), "the scan finds --duration's examples: \(offered)")
        for duration in offered {
            XCTAssertNoThrow(try RecordArguments.seconds(duration), "`oton record --help` offers \"\(duration)\", which --duration refuses")
        }
    }

    /// Each bundled plugin's commands, as `oton ctl commands` lists them (usage and help from the
    /// descriptor). A command that offers durations must be named here with the parser it uses.
    func testEveryDurationAPluginCommandOffersIsAccepted() throws {
        let parsers: [String: (String) throws -> Void] = ["sleep": { _ = try SleepDuration.parse($0) }]
        let plugins = try FileManager.default.contentsOfDirectory(atPath: TestPaths.root + "/Sources/Plugins")
            .filter { !$0.contains(".") }.sorted()
        XCTAssertGreaterThanOrEqual(plugins.count, 8, "\(plugins)")
        var checked = 0
        for plugin in plugins {
            let manifest = try PluginLibrary(path: TestPaths.pluginLibrary("Oton" + plugin)).manifest
            for command in manifest.commands {
                let offered = offeredDurations(command.usage + "\n" + command.help)
                guard !offered.isEmpty else { continue }
                guard let parse = parsers[command.name] else {
                    XCTFail("\(plugin)'s \"\(command.name)\" offers durations \(offered): name its parser in this test")
                    continue
                }
                for duration in offered {
                    XCTAssertNoThrow(try parse(duration), "`oton ctl commands` offers \"\(command.name) \(duration)\", which it refuses")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 3, "the sleep timer's examples are found")
    }
}
