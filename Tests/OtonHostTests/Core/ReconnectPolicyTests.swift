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
        XCTAssertEqual(ReconnectPolicy.limited(3).delay(forAttempt: 1), .seconds(2), "a script's limited retries are as they were")
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

    /// A listener's player never gives up by itself (issue 54 §1), whatever failed, and tries often while
    /// the station is likely to be back soon: every second for half a minute, every 2 s to about five
    /// and a half minutes, then 4 s, 6 s … never more than 30 s apart.
    func testAListenerNeverGivesUpAndTriesOftenFirst() {
        let policy = ReconnectPolicy.listening
        XCTAssertNil(policy.maxAttempts)
        XCTAssertTrue(policy.shouldRetry(attempt: 1_000_000, after: .streamUnavailable(reason: .notFound)), "a 404 mount comes back too")
        XCTAssertTrue(policy.shouldRetry(attempt: 50, after: .networkUnavailable))
        XCTAssertEqual(policy.delay(forAttempt: 1), .milliseconds(500))
        XCTAssertEqual(Set((2...31).map(policy.delay(forAttempt:))), [.seconds(1)])
        XCTAssertEqual(Set((32...181).map(policy.delay(forAttempt:))), [.seconds(2)])
        let firstMinutes = (1...181).reduce(Duration.zero) { $0 + policy.delay(forAttempt: $1) }
        XCTAssertEqual(firstMinutes, .milliseconds(330_500))
        XCTAssertEqual(policy.delay(forAttempt: 182), .seconds(2))
        XCTAssertEqual(policy.delay(forAttempt: 183), .seconds(4))
        XCTAssertEqual(policy.delay(forAttempt: 10_000), .seconds(30))
    }

    func testALimitedPolicyGivesUpAfterItsAttempts() {
        XCTAssertEqual(ReconnectPolicy.limited(3).maxAttempts, 3)
        XCTAssertFalse(ReconnectPolicy.limited(3).shouldRetry(attempt: 4))
        XCTAssertFalse(ReconnectPolicy.limited(3).shouldRetry(attempt: 2, after: .streamUnavailable(reason: .notFound)), "a 404 once")
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
