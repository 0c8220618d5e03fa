import XCTest

@testable import OtonHost

final class ReconnectPolicyTests: XCTestCase {
    func testDelaysGrowByTwoSeconds() {
        let policy = ReconnectPolicy()
        XCTAssertEqual(
            (1...5).map(policy.delay(forAttempt:)),
            [.seconds(2), .seconds(4), .seconds(6), .seconds(8), .seconds(10)])
    }

    /// A recorder's first reconnects come quickly (a restarted server costs about a second, issue 37 §6),
    /// then the usual growth, capped.
    func testARecorderReconnectsQuicklyFirstThenBacksOff() {
        let policy = ReconnectPolicy.headless
        XCTAssertEqual(
            (1...13).map(policy.delay(forAttempt:)),
            [.milliseconds(500)] + Array(repeating: .seconds(1), count: 9) + [.seconds(2), .seconds(4), .seconds(6)])
        XCTAssertEqual(policy.delay(forAttempt: 1_000), .seconds(30))
        XCTAssertEqual(policy.delay(forAttempt: 0), .milliseconds(500))
        XCTAssertEqual(ReconnectPolicy.listening.delay(forAttempt: 1), .seconds(2), "a listener's retries are as they were")
    }

    func testDelayIsCappedAtThirtySeconds() {
        let policy = ReconnectPolicy()
        XCTAssertEqual(policy.delay(forAttempt: 15), .seconds(30))
        XCTAssertEqual(policy.delay(forAttempt: 16), .seconds(30))
        XCTAssertEqual(policy.delay(forAttempt: 1_000), .seconds(30))
    }

    func testHugeAttemptDoesNotOverflow() {
        XCTAssertEqual(ReconnectPolicy().delay(forAttempt: Int.max), .seconds(30))
        XCTAssertEqual(ReconnectPolicy(step: .nanoseconds(1)).delay(forAttempt: Int.max), .seconds(30))
    }

    func testAttemptBelowOneIsTreatedAsOne() {
        XCTAssertEqual(ReconnectPolicy().delay(forAttempt: 0), .seconds(2))
        XCTAssertEqual(ReconnectPolicy().delay(forAttempt: -5), .seconds(2))
    }

    func testCustomStepAndCap() {
        let policy = ReconnectPolicy(step: .milliseconds(500), maxDelay: .seconds(1))
        XCTAssertEqual(policy.delay(forAttempt: 1), .milliseconds(500))
        XCTAssertEqual(policy.delay(forAttempt: 2), .seconds(1))
        XCTAssertEqual(policy.delay(forAttempt: 3), .seconds(1))
    }

    func testZeroStep() {
        XCTAssertEqual(ReconnectPolicy(step: .zero).delay(forAttempt: 4), .zero)
    }

    func testDefaultAllowsThreeAttempts() {
        let policy = ReconnectPolicy()
        XCTAssertEqual(policy.maxAttempts, 3)
        XCTAssertFalse(policy.shouldRetry(attempt: 0))
        XCTAssertTrue(policy.shouldRetry(attempt: 1))
        XCTAssertTrue(policy.shouldRetry(attempt: 3))
        XCTAssertFalse(policy.shouldRetry(attempt: 4))
    }

    func testListeningPreset() {
        XCTAssertEqual(ReconnectPolicy.listening.maxAttempts, 3)
        XCTAssertFalse(ReconnectPolicy.listening.shouldRetry(attempt: 4))
    }

    func testHeadlessIsUnlimited() {
        XCTAssertNil(ReconnectPolicy.headless.maxAttempts)
        XCTAssertTrue(ReconnectPolicy.headless.shouldRetry(attempt: 1_000_000))
        XCTAssertEqual(ReconnectPolicy.headless.delay(forAttempt: 100), .seconds(30))
    }

    func testZeroMaxAttemptsNeverRetries() {
        XCTAssertFalse(ReconnectPolicy(maxAttempts: 0).shouldRetry(attempt: 1))
        XCTAssertEqual(ReconnectPolicy(maxAttempts: -3).maxAttempts, 0)
    }
}
