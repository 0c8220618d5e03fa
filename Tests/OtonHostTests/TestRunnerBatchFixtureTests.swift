import Foundation
import XCTest

/// Not a test of oton: a class of a unit-test module, which scripts/test-runner runs in one process,
/// for ``TestRunnerTests``. One test fails when the variable asks for it (it is skipped otherwise);
/// the tests around it pass.
final class TestRunnerBatchFixtureTests: XCTestCase {
    static let variable = "OTON_TEST_RUNNER_BATCH_FAIL"  // TestRunnerTests sets it by this name

    func testAPassesBeforeTheFailure() {
        XCTAssertTrue(true)
    }

    func testBFailsWhenAsked() throws {
        guard ProcessInfo.processInfo.environment[Self.variable] != nil else {
            throw XCTSkip("a fixture of TestRunnerTests, which runs it through scripts/test-runner")
        }
        XCTFail("the failure TestRunnerTests asked for")
    }

    func testCPassesAfterTheFailure() {
        XCTAssertTrue(true)
    }
}
