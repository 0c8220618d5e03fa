import Foundation
import XCTest

/// Not a test of oton: the test scripts/test-runner must stop (``TestRunnerTests``), skipped unless
/// that test runs it. It starts a process in a session of its own, out of reach of a kill of its
/// process group, writes that process's id into the file the variable names, and then waits for an
/// event that never comes.
final class TestRunnerFixtureTests: XCTestCase {
    static let variable = "OTON_TEST_RUNNER_FIXTURE"

    func testNeverEnds() throws {
        guard let pidFile = ProcessInfo.processInfo.environment[Self.variable] else {
            throw XCTSkip("a fixture of TestRunnerTests, which runs it through scripts/test-runner")
        }
        let escaping = Process()
        escaping.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        escaping.arguments = ["--fork", "/bin/sh", "-c", #"echo $$ > "$0.part" && mv "$0.part" "$0" && exec sleep 3600"#, pidFile]
        try escaping.run()
        // Not waitUntilExit: Foundation would wait for the socket the escaped process inherited.
        while !FileManager.default.fileExists(atPath: pidFile) { usleep(10_000) }
        print("fixture: a process in a session of its own started; this test now waits for ever")
        fflush(nil)  // every stream; a killed process flushes nothing: without it the line would not be among its last
        DispatchSemaphore(value: 0).wait()
    }
}
