import Foundation
import OtonTestSupport
import XCTest

/// What a new user reads on the command line: help with keys, exit codes and examples, and usage
/// errors in the one volume and duration grammar that say what to type instead.
final class CommandLineTextTests: XCTestCase {
    private func oton(_ arguments: [String]) throws -> ProcessResult {
        let directory = try TemporaryDirectory(self)
        return try runProcess(TestPaths.oton, arguments,
                              environment: ProcessInfo.processInfo.environment.merging(["XDG_RUNTIME_DIR": directory.path]) { $1 })
    }

    func testHelpListsTheKeysTheExitCodesAndExamples() throws {
        let play = try oton(["play", "--help"])
        XCTAssertEqual(play.status, 0, play.stderr)
        for text in ["? keys", "space pause/resume", "Exit codes: 0 normal, 2 usage", "Examples:", "oton play \"Oton FM\" --volume 60%"] {
            XCTAssertTrue(play.stdout.contains(text), "play --help lacks \(text):\n\(play.stdout)")
        }
        for arguments in [["ctl", "--help"], ["--help"], ["plugins", "inspect", "--help"]] {
            let help = try oton(arguments)
            XCTAssertEqual(help.status, 0, "\(arguments): \(help.stderr)")
            XCTAssertTrue(help.stdout.contains("Examples:"), "\(arguments):\n\(help.stdout)")
        }
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
}
