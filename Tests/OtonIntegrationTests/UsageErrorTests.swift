import Foundation
import OtonTestSupport
import XCTest

/// Usage errors exit 2 with the usage line and a hint; help never needs a running oton.
final class UsageErrorTests: XCTestCase {
    private func oton(_ arguments: [String]) throws -> ProcessResult {
        let directory = try TemporaryDirectory(self)
        // No running oton anywhere: help must not try to reach one.
        return try runProcess(
            TestPaths.oton, arguments,
            environment: ProcessInfo.processInfo.environment.merging(["XDG_RUNTIME_DIR": directory.path]) { $1 })
    }

    func testUsageErrorsExitTwoWithAHint() throws {
        for arguments in [["play", "--bogus"], ["nosuch"], ["record"], ["ctl", "--bogus"], ["play", "--retries", "many"]] {
            let result = try oton(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("--help"), "\(arguments): a hint where to read more\n\(result.stderr)")
            XCTAssertFalse(result.stderr.contains("no running oton"), "\(arguments): \(result.stderr)")
        }
    }

    /// `--fade-in`'s limit is an hour: its messages said `--duration`'s 365 days (issue 54 §13).
    func testFadeInSaysItsOwnLimit() throws {
        for (argument, expected) in [("120", "120s for seconds"), ("2h", "at most 1h"), ("soon", "use 30s, 2m or 1h")] {
            let result = try oton(["play", "--fade-in", argument, "x"])
            XCTAssertEqual(result.status, 2, "\(argument): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(expected), "\(argument): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("365 days"), "\(argument): \(result.stderr)")
        }
    }

    func testCtlHelpIsShownWithoutARunningOton() throws {
        for arguments in [["ctl", "--help"], ["ctl", "-h"], ["help", "ctl"]] {
            let result = try oton(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stdout.contains("Control a running oton"), "\(arguments): \(result.stdout)")
            XCTAssertFalse(result.stderr.contains("no running oton"), "\(arguments): \(result.stderr)")
        }
        let negative = try oton(["ctl", "volume", "-5"])
        XCTAssertTrue(negative.stderr.contains("no running oton"), "a negative number is a command argument, not an option: \(negative.stderr)")
    }

    func testCtlWithNoOtonRunningSaysSoAndHowToStartOne() throws {
        let directory = try TemporaryDirectory(self)
        let result = try runProcess(
            TestPaths.oton, ["ctl", "--instance", "x", "status"],
            environment: ProcessInfo.processInfo.environment.merging(["XDG_RUNTIME_DIR": directory.path]) { $1 })
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("no oton is running"), result.stderr)
        XCTAssertTrue(result.stderr.contains("oton play --instance x"), "how to start one: \(result.stderr)")
        XCTAssertTrue(result.stderr.contains(directory.path + "/oton/x.sock"), "the socket path stays in the message: \(result.stderr)")
        XCTAssertFalse(result.stderr.contains("No such file or directory"), "words, not errno: \(result.stderr)")
    }
}
