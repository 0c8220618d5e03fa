import Foundation
import OtonTestSupport
import XCTest

/// scripts/test-runner, the runner behind scripts/test, with the real test bundle: a test past its
/// time limit is ended with every process it started, reported with its name, its limit and its last
/// lines, and the run goes on to its closing line.
final class TestRunnerTests: XCTestCase {
    private let quick = "OtonHostTests.ABISizeRuleTests/testLongerStructsAreReadAndStructsBelowTheirABI10SizeAreRefused"

    private func runner(_ arguments: [String], in directory: TemporaryDirectory, environment extra: [String: String] = [:]) throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(extra) { $1 }
        // Its logs and durations go under the current folder: the temporary one, not the repository's .build.
        return try runProcess(
            "/usr/bin/env", ["python3", TestPaths.root + "/scripts/test-runner", TestPaths.products + "/OtonPackageTests.xctest"] + arguments,
            environment: environment, currentDirectory: directory.path)
    }

    private static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(close, offsetBy: 2)] != "Z"
    }

    func testATestPastItsLimitIsEndedWithItsProcessesAndReportedAndTheRunGoesOn() throws {
        let directory = try TemporaryDirectory(self)
        let pidFile = directory.file("escaped.pid")
        let started = Date()
        let run = try runner(
            ["--filter", "TestRunnerFixtureTests/testNeverEnds$", "--filter", quick + "$"], in: directory,
            environment: ["OTON_TEST_TIMEOUT": "3", "OTON_TEST_WORKERS": "2", TestRunnerFixtureTests.variable: pidFile])
        let took = Date().timeIntervalSince(started)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertEqual(lines.last, "tests: 1 passed, 1 failed", run.stdout)
        XCTAssertEqual(lines.filter { $0.hasPrefix("tests: ") }.count, 1, "exactly one closing line")
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("=== TIMED OUT OtonProcessTests.TestRunnerFixtureTests/testNeverEnds") && $0.contains("time limit of 3 s") },
            run.stdout)
        XCTAssertTrue(lines.contains { $0.contains("fixture: a process in a session of its own started") }, "its last lines: \(run.stdout)")
        XCTAssertTrue(lines.contains("TIMED OUT: OtonProcessTests.TestRunnerFixtureTests/testNeverEnds"), run.stdout)
        let escaped = try XCTUnwrap(pid_t(directory.read("escaped.pid").trimmingCharacters(in: .whitespacesAndNewlines)), "the fixture started its process")
        XCTAssertFalse(Self.isAlive(escaped), "the process that left the test's session was ended too (pid \(escaped))")
        XCTAssertLessThan(took, 60, "the limit (3 s) and the grace after SIGTERM (5 s) are what it takes, not more")
        print("measured: the runner ended a test past its 3 s limit and finished in \(String(format: "%.1f", took)) s")
    }

    func testAUnitTestClassRunsInOneProcessAndItsFailedTestIsNamedAlone() throws {
        let directory = try TemporaryDirectory(self)
        let run = try runner(["--filter", "TestRunnerBatchFixtureTests/"], in: directory, environment: ["OTON_TEST_RUNNER_BATCH_FAIL": "1"])
        let lines = run.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertTrue(lines.contains { $0.hasPrefix("running 3 tests in 1 process") }, "one process for the class: \(run.stdout)")
        XCTAssertTrue(lines.contains("FAILED: OtonHostTests.TestRunnerBatchFixtureTests/testBFailsWhenAsked"), run.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("=== FAILED OtonHostTests.TestRunnerBatchFixtureTests/testBFailsWhenAsked") }, run.stdout)
        XCTAssertTrue(lines.contains { $0.contains("the failure TestRunnerTests asked for") }, "its assertion is shown: \(run.stdout)")
        XCTAssertEqual(lines.last, "tests: 2 passed, 1 failed", run.stdout)
    }

    func testARunWithNoTestIsAFailure() throws {
        let directory = try TemporaryDirectory(self)
        let run = try runner(["--filter", "NoSuchTestAnywhere"], in: directory)
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertEqual(run.stdout.split(separator: "\n").last, "tests: 0 passed, 0 failed", run.stdout)
    }
}
