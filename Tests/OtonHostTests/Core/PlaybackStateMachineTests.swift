import XCTest

@testable import OtonHost

final class PlaybackStateMachineTests: XCTestCase {
    private let policy = ReconnectPolicy.limited(3)
    private let network = PlaybackErrorKind.networkUnavailable
    private let notAudio = PlaybackErrorKind.streamUnavailable(reason: .notAudio)

    private func transition(
        _ state: PlaybackState, _ event: PlaybackEvent, failures: Int = 0,
        policy: ReconnectPolicy = .limited(3)
    ) -> PlaybackTransition? {
        PlaybackStateMachine.transition(from: state, on: event, failures: failures, policy: policy)
    }

    private func expect(
        _ state: PlaybackState, _ event: PlaybackEvent, failures: Int = 2,
        _ next: PlaybackState, _ effects: [PlaybackEffect], failuresAfter: Int,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(
            transition(state, event, failures: failures),
            PlaybackTransition(next: next, effects: effects, failures: failuresAfter), file: file, line: line)
    }

    // MARK: One test per row

    func testIdlePlayConnects() {
        expect(.idle, .play, .connecting, [.startPipeline], failuresAfter: 0)
    }

    func testConnectingStreamStartedPlays() {
        expect(.connecting, .streamStarted, .playing, [], failuresAfter: 0)
    }

    func testConnectingBufferingStartedBuffers() {
        expect(.connecting, .bufferingStarted(percent: 10), .buffering(percent: 10), [.pausePipeline], failuresAfter: 2)
    }

    func testConnectingBufferingProgressBuffers() {
        expect(.connecting, .bufferingProgress(percent: 20), .buffering(percent: 20), [.pausePipeline], failuresAfter: 2)
    }

    func testConnectingBufferingAtHundredIsIgnored() {
        XCTAssertNil(transition(.connecting, .bufferingProgress(percent: 100)))
        XCTAssertNil(transition(.connecting, .bufferingStarted(percent: 150)))
    }

    func testConnectingPausePauses() {
        expect(.connecting, .pause, .paused, [.stopPipeline], failuresAfter: 0)
    }

    func testConnectingStopGoesIdle() {
        expect(.connecting, .stop, .idle, [.stopPipeline], failuresAfter: 0)
    }

    func testConnectingRetryableFailureReconnects() {
        expect(
            .connecting, .failed(network), failures: 0,
            .reconnecting(attempt: 1, lastError: network), [.stopPipeline, .scheduleRetry(after: .seconds(2))], failuresAfter: 1)
    }

    func testConnectingFailureAfterLastAttemptGivesUp() {
        expect(.connecting, .failed(network), failures: 3, .error(network), [.stopPipeline, .giveUp], failuresAfter: 4)
    }

    func testA404IsRetriedOnceWhenSomeoneListensAndForeverHeadless() {
        let notFound = PlaybackErrorKind.streamUnavailable(reason: .notFound)
        expect(
            .connecting, .failed(notFound), failures: 0, .reconnecting(attempt: 1, lastError: notFound),
            [.stopPipeline, .scheduleRetry(after: .seconds(2))], failuresAfter: 1)
        expect(.connecting, .failed(notFound), failures: 1, .error(notFound), [.stopPipeline, .giveUp], failuresAfter: 2)
        XCTAssertEqual(
            transition(.connecting, .failed(network), failures: 1)?.next, .reconnecting(attempt: 2, lastError: network),
            "other failures keep the policy's 3 attempts")
        XCTAssertEqual(
            transition(.connecting, .failed(notFound), failures: 5, policy: .headless)?.next,
            .reconnecting(attempt: 6, lastError: notFound), "a recorder waits for the mount to come back")
    }

    func testConnectingNonRetryableFailureGivesUpImmediately() {
        expect(.connecting, .failed(notAudio), failures: 0, .error(notAudio), [.stopPipeline, .giveUp], failuresAfter: 1)
    }

    func testPlayingBufferingStartedBuffers() {
        expect(.playing, .bufferingStarted(percent: 5), .buffering(percent: 5), [.pausePipeline], failuresAfter: 2)
    }

    func testPlayingBufferingProgressBelowHundredBuffers() {
        expect(.playing, .bufferingProgress(percent: 50), .buffering(percent: 50), [.pausePipeline], failuresAfter: 2)
    }

    func testPlayingBufferingAtHundredIsIgnored() {
        XCTAssertNil(transition(.playing, .bufferingProgress(percent: 100)))
    }

    func testPlayingPausePauses() {
        expect(.playing, .pause, .paused, [.stopPipeline], failuresAfter: 0)
    }

    func testPlayingStopGoesIdle() {
        expect(.playing, .stop, .idle, [.stopPipeline], failuresAfter: 0)
    }

    func testPlayingFailureReconnects() {
        expect(
            .playing, .failed(.decodeError), failures: 0,
            .reconnecting(attempt: 1, lastError: .decodeError), [.stopPipeline, .scheduleRetry(after: .seconds(2))], failuresAfter: 1)
    }

    func testPlayingNonRetryableFailureGivesUp() {
        expect(
            .playing, .failed(.audioDeviceUnavailable), failures: 0,
            .error(.audioDeviceUnavailable), [.stopPipeline, .giveUp], failuresAfter: 1)
    }

    func testBufferingProgressUpdatesPercent() {
        expect(.buffering(percent: 10), .bufferingProgress(percent: 70), .buffering(percent: 70), [], failuresAfter: 2)
    }

    func testBufferingStartedAgainUpdatesPercent() {
        expect(.buffering(percent: 10), .bufferingStarted(percent: 3), .buffering(percent: 3), [], failuresAfter: 2)
    }

    func testBufferingProgressHundredResumes() {
        expect(.buffering(percent: 90), .bufferingProgress(percent: 100), .playing, [.resumePipeline], failuresAfter: 0)
    }

    func testBufferingFinishedResumes() {
        expect(.buffering(percent: 90), .bufferingFinished, .playing, [.resumePipeline], failuresAfter: 0)
    }

    func testBufferingPausePauses() {
        expect(.buffering(percent: 10), .pause, .paused, [.stopPipeline], failuresAfter: 0)
    }

    func testBufferingStopGoesIdle() {
        expect(.buffering(percent: 10), .stop, .idle, [.stopPipeline], failuresAfter: 0)
    }

    func testBufferingTimeoutFailureReconnects() {
        expect(
            .buffering(percent: 10), .failed(.bufferingTimeout), failures: 1,
            .reconnecting(attempt: 2, lastError: .bufferingTimeout), [.stopPipeline, .scheduleRetry(after: .seconds(4))],
            failuresAfter: 2)
    }

    func testPausedPlayReconnectsLiveStream() {
        expect(.paused, .play, .connecting, [.startPipeline], failuresAfter: 0)
    }

    func testPausedStopGoesIdleWithoutEffects() {
        expect(.paused, .stop, .idle, [], failuresAfter: 0)
    }

    func testReconnectingTimerFiredConnects() {
        expect(.reconnecting(attempt: 2, lastError: network), .retryTimerFired, .connecting, [.startPipeline], failuresAfter: 2)
    }

    func testReconnectingPlayRetriesNow() {
        expect(.reconnecting(attempt: 2, lastError: network), .play, .connecting, [.cancelRetry, .startPipeline], failuresAfter: 0)
    }

    func testReconnectingPausePauses() {
        expect(.reconnecting(attempt: 2, lastError: network), .pause, .paused, [.cancelRetry], failuresAfter: 0)
    }

    func testReconnectingStopGoesIdle() {
        expect(.reconnecting(attempt: 2, lastError: network), .stop, .idle, [.cancelRetry], failuresAfter: 0)
    }

    func testReconnectingRetriesExhaustedGivesUp() {
        expect(
            .reconnecting(attempt: 2, lastError: network), .retriesExhausted, .error(network), [.cancelRetry, .giveUp],
            failuresAfter: 2)
    }

    func testErrorPlayConnects() {
        expect(.error(network), .play, .connecting, [.startPipeline], failuresAfter: 0)
    }

    func testErrorStopGoesIdle() {
        expect(.error(network), .stop, .idle, [], failuresAfter: 0)
    }

    // MARK: Exhaustive check

    private static let states: [PlaybackState] = [
        .idle, .connecting, .playing, .buffering(percent: 40), .paused,
        .reconnecting(attempt: 2, lastError: .networkUnavailable), .error(.decodeError),
    ]

    private static let events: [PlaybackEvent] = [
        .play, .pause, .stop, .streamStarted,
        .bufferingStarted(percent: 30), .bufferingStarted(percent: 100),
        .bufferingProgress(percent: 60), .bufferingProgress(percent: 100), .bufferingFinished,
        .failed(.networkUnavailable), .failed(.streamUnavailable(reason: .notAudio)),
        .retryTimerFired, .retriesExhausted,
    ]

    private struct Key: Hashable {
        var state: PlaybackState
        var event: PlaybackEvent
        init(_ state: PlaybackState, _ event: PlaybackEvent) { self.state = state; self.event = event }
    }

    /// The specification, written independently of the implementation, for
    /// failures = 2 and the `.limited(3)` policy (max 3 attempts). Every
    /// pair not listed here must be ignored.
    private static var specification: [Key: PlaybackTransition] {
        let reconnecting = PlaybackState.reconnecting(attempt: 2, lastError: .networkUnavailable)
        let buffering = PlaybackState.buffering(percent: 40)
        let retry3 = PlaybackTransition(
            next: .reconnecting(attempt: 3, lastError: .networkUnavailable),
            effects: [.stopPipeline, .scheduleRetry(after: .seconds(6))], failures: 3)
        let notAudio = PlaybackErrorKind.streamUnavailable(reason: .notAudio)
        let giveUpNotAudio = PlaybackTransition(next: .error(notAudio), effects: [.stopPipeline, .giveUp], failures: 3)
        func t(_ next: PlaybackState, _ effects: [PlaybackEffect], _ failures: Int) -> PlaybackTransition {
            PlaybackTransition(next: next, effects: effects, failures: failures)
        }
        return [
            Key(.idle, .play): t(.connecting, [.startPipeline], 0),

            Key(.connecting, .streamStarted): t(.playing, [], 0),
            Key(.connecting, .bufferingStarted(percent: 30)): t(.buffering(percent: 30), [.pausePipeline], 2),
            Key(.connecting, .bufferingProgress(percent: 60)): t(.buffering(percent: 60), [.pausePipeline], 2),
            Key(.connecting, .pause): t(.paused, [.stopPipeline], 0),
            Key(.connecting, .stop): t(.idle, [.stopPipeline], 0),
            Key(.connecting, .failed(.networkUnavailable)): retry3,
            Key(.connecting, .failed(notAudio)): giveUpNotAudio,

            Key(.playing, .bufferingStarted(percent: 30)): t(.buffering(percent: 30), [.pausePipeline], 2),
            Key(.playing, .bufferingProgress(percent: 60)): t(.buffering(percent: 60), [.pausePipeline], 2),
            Key(.playing, .pause): t(.paused, [.stopPipeline], 0),
            Key(.playing, .stop): t(.idle, [.stopPipeline], 0),
            Key(.playing, .failed(.networkUnavailable)): retry3,
            Key(.playing, .failed(notAudio)): giveUpNotAudio,

            Key(buffering, .bufferingStarted(percent: 30)): t(.buffering(percent: 30), [], 2),
            Key(buffering, .bufferingStarted(percent: 100)): t(.playing, [.resumePipeline], 0),
            Key(buffering, .bufferingProgress(percent: 60)): t(.buffering(percent: 60), [], 2),
            Key(buffering, .bufferingProgress(percent: 100)): t(.playing, [.resumePipeline], 0),
            Key(buffering, .bufferingFinished): t(.playing, [.resumePipeline], 0),
            Key(buffering, .pause): t(.paused, [.stopPipeline], 0),
            Key(buffering, .stop): t(.idle, [.stopPipeline], 0),
            Key(buffering, .failed(.networkUnavailable)): retry3,
            Key(buffering, .failed(notAudio)): giveUpNotAudio,

            Key(.paused, .play): t(.connecting, [.startPipeline], 0),
            Key(.paused, .stop): t(.idle, [], 0),

            Key(reconnecting, .retryTimerFired): t(.connecting, [.startPipeline], 2),
            Key(reconnecting, .play): t(.connecting, [.cancelRetry, .startPipeline], 0),
            Key(reconnecting, .pause): t(.paused, [.cancelRetry], 0),
            Key(reconnecting, .stop): t(.idle, [.cancelRetry], 0),
            Key(reconnecting, .retriesExhausted): t(.error(.networkUnavailable), [.cancelRetry, .giveUp], 2),

            Key(.error(.decodeError), .play): t(.connecting, [.startPipeline], 0),
            Key(.error(.decodeError), .stop): t(.idle, [], 0),
        ]
    }

    func testEveryStateEventPairIsInTheTableOrExplicitlyIgnored() {
        let specification = Self.specification
        var accepted = 0, ignored = 0
        for state in Self.states {
            for event in Self.events {
                let actual = transition(state, event, failures: 2, policy: .limited(3))
                XCTAssertEqual(actual, specification[Key(state, event)], "\(state) × \(event)")
                if actual == nil { ignored += 1 } else { accepted += 1 }
            }
        }
        XCTAssertEqual(accepted, specification.count)
        XCTAssertEqual(accepted + ignored, Self.states.count * Self.events.count)
        XCTAssertEqual(Self.states.count * Self.events.count, 91)
    }

    func testIgnoredPairsLeaveTheMachineUntouched() {
        for state in Self.states {
            for event in Self.events where transition(state, event, failures: 2) == nil {
                var machine = PlaybackStateMachine(policy: policy, state: state, consecutiveFailures: 2)
                XCTAssertNil(machine.handle(event))
                XCTAssertEqual(machine.state, state)
                XCTAssertEqual(machine.consecutiveFailures, 2)
            }
        }
    }

    // MARK: Scenarios through the machine

    func testHappyPathWithBuffering() {
        var machine = PlaybackStateMachine()
        XCTAssertEqual(machine.handle(.play)?.effects, [.startPipeline])
        XCTAssertEqual(machine.handle(.bufferingStarted(percent: 0))?.next, .buffering(percent: 0))
        XCTAssertEqual(machine.handle(.bufferingProgress(percent: 50))?.next, .buffering(percent: 50))
        XCTAssertEqual(machine.handle(.bufferingFinished)?.effects, [.resumePipeline])
        XCTAssertNil(machine.handle(.streamStarted))
        XCTAssertEqual(machine.state, .playing)
    }

    func testListeningPolicyGivesUpAfterThreeRetriesWithGrowingDelays() {
        var machine = PlaybackStateMachine(policy: .limited(3))
        machine.handle(.play)
        var delays: [Duration] = []
        for _ in 1...3 {
            let transition = machine.handle(.failed(.networkUnavailable))
            guard case .scheduleRetry(let delay)? = transition?.effects.last else {
                return XCTFail("expected a retry, got \(String(describing: transition))")
            }
            delays.append(delay)
            XCTAssertEqual(machine.handle(.retryTimerFired)?.next, .connecting)
        }
        XCTAssertEqual(delays, [.seconds(2), .seconds(4), .seconds(6)])
        let last = machine.handle(.failed(.networkUnavailable))
        XCTAssertEqual(last?.next, .error(.networkUnavailable))
        XCTAssertEqual(last?.effects, [.stopPipeline, .giveUp])
    }

    func testSuccessfulPlaybackResetsFailureCount() {
        var machine = PlaybackStateMachine(policy: .limited(3))
        machine.handle(.play)
        machine.handle(.failed(.networkUnavailable))
        machine.handle(.retryTimerFired)
        machine.handle(.failed(.networkUnavailable))
        XCTAssertEqual(machine.consecutiveFailures, 2)
        machine.handle(.retryTimerFired)
        machine.handle(.streamStarted)
        XCTAssertEqual(machine.consecutiveFailures, 0)
        XCTAssertEqual(
            machine.handle(.failed(.networkUnavailable))?.next,
            .reconnecting(attempt: 1, lastError: .networkUnavailable))
    }

    func testHeadlessPolicyNeverGivesUpAndCapsDelay() {
        var machine = PlaybackStateMachine(policy: .headless)
        machine.handle(.play)
        var lastDelay: Duration = .zero
        for attempt in 1...50 {
            let transition = machine.handle(.failed(.networkUnavailable))
            XCTAssertEqual(transition?.next, .reconnecting(attempt: attempt, lastError: .networkUnavailable))
            if case .scheduleRetry(let delay)? = transition?.effects.last { lastDelay = delay }
            machine.handle(.retryTimerFired)
        }
        XCTAssertEqual(lastDelay, .seconds(30))
    }

    func testPauseThenPlayRestartsTheStream() {
        var machine = PlaybackStateMachine()
        machine.handle(.play)
        machine.handle(.streamStarted)
        XCTAssertEqual(machine.handle(.pause)?.effects, [.stopPipeline])
        XCTAssertEqual(machine.handle(.play), PlaybackTransition(next: .connecting, effects: [.startPipeline], failures: 0))
    }

    func testStaleRetryTimerAfterStopIsIgnored() {
        var machine = PlaybackStateMachine()
        machine.handle(.play)
        machine.handle(.failed(.networkUnavailable))
        machine.handle(.stop)
        XCTAssertNil(machine.handle(.retryTimerFired))
        XCTAssertEqual(machine.state, .idle)
    }

    func testBufferingPercentIsClamped() {
        XCTAssertEqual(transition(.playing, .bufferingStarted(percent: -20))?.next, .buffering(percent: 0))
    }

    func testIsActive() {
        XCTAssertTrue(PlaybackState.playing.isActive)
        XCTAssertTrue(PlaybackState.reconnecting(attempt: 1, lastError: .decodeError).isActive)
        XCTAssertFalse(PlaybackState.error(.decodeError).isActive)
        XCTAssertFalse(PlaybackState.paused.isActive)
    }
}
