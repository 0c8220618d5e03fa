import Foundation
import OtonTestSupport
import XCTest

/// What a new user reads on the command line: help with keys, exit codes and examples, and usage
/// errors in the one volume and duration grammar that say what to type instead.
final class CommandLineTextTests: XCTestCase {
    private func oton(_ arguments: [String]) throws -> ProcessResult {
        let directory = try TemporaryDirectory(self)
        return try runProcess(
            TestPaths.oton, arguments,
            environment: ProcessInfo.processInfo.environment.merging(["XDG_RUNTIME_DIR": directory.path]) { $1 })
    }

    func testHelpListsTheKeysTheExitCodesAndExamples() throws {
        let play = try oton(["play", "--help"])
        XCTAssertEqual(play.status, 0, play.stderr)
        let playHelp = play.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")  // unwrapped
        for text in [
            "? keys", "space pause/resume", "n p next / previous station", "1 to 9 station by number",
            "Exit codes: 0 normal, 1 --search found nothing", "2 usage", "Examples:", "oton play \"Oton FM\" --volume 60%",
        ] {
            XCTAssertTrue(playHelp.contains(text), "play --help lacks \(text):\n\(play.stdout)")
        }
        for arguments in [["ctl", "--help"], ["--help"], ["plugins", "inspect", "--help"]] {
            let help = try oton(arguments)
            XCTAssertEqual(help.status, 0, "\(arguments): \(help.stderr)")
            XCTAssertTrue(help.stdout.contains("Examples:"), "\(arguments):\n\(help.stdout)")
        }
    }

    /// Issue 39: `oton window --help` printed the top-level help and exited 0; `oton --help` left out exit code 1.
    func testAnUnknownCommandIsAUsageErrorEvenWithHelpAndTheTopLevelListsEveryExitCode() throws {
        for arguments in [["windwo", "--help"], ["windwo"], ["plya", "Oton FM"]] {
            let result = try oton(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stdout)")
            XCTAssertTrue(result.stderr.contains("unknown command \"\(arguments[0])\"") && result.stderr.contains("play, record, ctl"), result.stderr)
            XCTAssertFalse(result.stdout.contains("OVERVIEW"), "no top-level help on standard output")
        }
        XCTAssertEqual(try oton(["help", "play"]).status, 0, "`oton help COMMAND` still works")
        let top = try oton(["--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(top.contains("0 normal, 1 the command failed"), top)
        XCTAssertTrue(top.contains("5 no display for `oton window`"), top)
        // `oton window` exists now (issue 35): its help is its own.
        let window = try oton(["window", "--help"])
        XCTAssertEqual(window.status, 0, window.stderr)
        XCTAssertTrue(window.stdout.contains("5 no display"), window.stdout)
    }

    func testVolumeAndLogLevelMistakesAreUsageErrorsThatSayWhatToType() throws {
        let cases: [([String], String)] = [
            (["play", "x", "--volume", "0.5"], "50 means 0.5"),
            (["play", "x", "--volume", "200"], "from 0 to 150"),
            (["play", "x", "--volume", "+5"], "oton ctl volume +5"),
            (["play", "x", "--log-level", "verbose"], "use debug, info, warning or error"),
        ]
        for (arguments, hint) in cases {
            let result = try oton(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(hint), "\(arguments): \(result.stderr)")
        }
    }

    /// ArgumentParser prints an option's default itself; a help text that says it too printed it twice
    /// ("(default 20) (default: 20)"). Every command's options, from the parser's own description.
    func testNoOptionStatesItsDefaultTwice() throws {
        let dump = try oton(["--experimental-dump-help"])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var checked = 0
        func walk(_ command: [String: Any], _ path: String) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["defaultValue"] != nil {
                checked += 1
                let help = argument["abstract"] as? String ?? ""
                XCTAssertFalse(help.contains("(default"), "\(path) \(argument["valueName"] ?? ""): \"\(help)\" and ArgumentParser's (default: …)")
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { walk(sub, path + " " + (sub["commandName"] as? String ?? "?")) }
        }
        walk(try XCTUnwrap(root["command"] as? [String: Any]), "oton")
        XCTAssertGreaterThan(checked, 5, "the dump lists options with defaults")
    }
}
