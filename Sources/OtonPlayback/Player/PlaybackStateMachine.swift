import OtonEvents

/// The result of one accepted event.
public struct PlaybackTransition: Hashable, Sendable {
    public var next: PlaybackState
    /// Effects for the host to perform, in order.
    public var effects: [PlaybackEffect]
    /// Consecutive failures after this transition (feeds ``ReconnectPolicy``).
    public var failures: Int

    public init(next: PlaybackState, effects: [PlaybackEffect] = [], failures: Int) {
        self.next = next
        self.effects = effects
        self.failures = failures
    }
}

/// The playback state machine: an explicit (state, event) table plus the
/// consecutive-failure counter that drives reconnects.
///
/// The complete table (`n` = consecutive failures before the event; every
/// pair not listed is explicitly ignored — `transition` returns `nil`):
///
/// | state            | event                    | next                  | effects                              | n after |
/// |------------------|--------------------------|-----------------------|--------------------------------------|---------|
/// | idle             | play                     | connecting            | startPipeline                        | 0       |
/// | connecting       | streamStarted            | playing               | –                                    | 0       |
/// | connecting       | bufferingStarted/Progress p<100 | buffering(p)   | pausePipeline                        | n       |
/// | connecting       | pause                    | paused                | stopPipeline                         | 0       |
/// | connecting       | stop                     | idle                  | stopPipeline                         | 0       |
/// | connecting       | failed(k)                | *failure rule*        |                                      |         |
/// | playing          | bufferingStarted/Progress p<100 | buffering(p)   | pausePipeline                        | n       |
/// | playing          | pause                    | paused                | stopPipeline                         | 0       |
/// | playing          | stop                     | idle                  | stopPipeline                         | 0       |
/// | playing          | failed(k)                | *failure rule*        |                                      |         |
/// | buffering        | bufferingStarted/Progress p<100 | buffering(p)   | –                                    | n       |
/// | buffering        | bufferingProgress p≥100, bufferingFinished | playing | resumePipeline                   | 0       |
/// | buffering        | pause                    | paused                | stopPipeline                         | 0       |
/// | buffering        | stop                     | idle                  | stopPipeline                         | 0       |
/// | buffering        | failed(k)                | *failure rule*        |                                      |         |
/// | paused           | play                     | connecting            | startPipeline                        | 0       |
/// | paused           | stop                     | idle                  | –                                    | 0       |
/// | reconnecting(a,k)| retryTimerFired          | connecting            | startPipeline                        | n       |
/// | reconnecting(a,k)| play                     | connecting            | cancelRetry, startPipeline           | 0       |
/// | reconnecting(a,k)| pause                    | paused                | cancelRetry                          | 0       |
/// | reconnecting(a,k)| stop                     | idle                  | cancelRetry                          | 0       |
/// | reconnecting(a,k)| retriesExhausted         | error(k)              | cancelRetry, giveUp                  | n       |
/// | error(k)         | play                     | connecting            | startPipeline                        | 0       |
/// | error(k)         | stop                     | idle                  | –                                    | 0       |
///
/// Failure rule (connecting, playing, buffering × failed(k)), with a = n + 1:
/// if `k.isRetryable` and `policy.shouldRetry(attempt: a, after: k)` →
/// `reconnecting(a, k)` + [stopPipeline, scheduleRetry(policy.delay(forAttempt: a))];
/// otherwise → `error(k)` + [stopPipeline, giveUp]. The count becomes a.
///
/// Notable ignored pairs: `play` while connecting/playing/buffering (already
/// on it); `streamStarted` outside connecting (duplicate PLAYING reports);
/// `bufferingFinished` outside buffering; `failed`, buffering and
/// `streamStarted` reports in idle/paused/reconnecting/error (stale bus
/// messages of a torn-down pipeline); `retryTimerFired` outside
/// reconnecting (a timer that lost a race with cancelRetry).
///
/// The count resets to 0 on entering `playing` ("successful playback") and
/// on every listener command that is accepted.
public struct PlaybackStateMachine: Sendable {
    public private(set) var state: PlaybackState
    public private(set) var consecutiveFailures: Int
    public var policy: ReconnectPolicy

    public init(policy: ReconnectPolicy = .listening, state: PlaybackState = .idle, consecutiveFailures: Int = 0) {
        self.policy = policy
        self.state = state
        self.consecutiveFailures = max(0, consecutiveFailures)
    }

    /// Feeds one event. Returns the transition whose effects the host must
    /// perform, or `nil` if the event is ignored in the current state.
    @discardableResult
    public mutating func handle(_ event: PlaybackEvent) -> PlaybackTransition? {
        guard let transition = Self.transition(from: state, on: event, failures: consecutiveFailures, policy: policy) else {
            return nil
        }
        state = transition.next
        consecutiveFailures = transition.failures
        return transition
    }

    /// The transition table. Pure; `nil` means "explicitly ignored".
    /// Every state/event combination is spelled out (no `default:`), so
    /// adding a state or event does not compile until it is decided.
    public static func transition(
        from state: PlaybackState, on event: PlaybackEvent, failures n: Int, policy: ReconnectPolicy
    ) -> PlaybackTransition? {
        func go(_ next: PlaybackState, _ effects: [PlaybackEffect] = [], failures: Int = 0) -> PlaybackTransition {
            PlaybackTransition(next: next, effects: effects, failures: failures)
        }
        func fail(_ kind: PlaybackErrorKind) -> PlaybackTransition {
            let attempt = n + 1
            if kind.isRetryable, policy.shouldRetry(attempt: attempt, after: kind) {
                return go(
                    .reconnecting(attempt: attempt, lastError: kind),
                    [.stopPipeline, .scheduleRetry(after: policy.delay(forAttempt: attempt))], failures: attempt)
            }
            return go(.error(kind), [.stopPipeline, .giveUp], failures: attempt)
        }
        func bufferingLevel(_ percent: Int) -> Int { min(max(percent, 0), 100) }

        switch state {
        case .idle:
            switch event {
            case .play: return go(.connecting, [.startPipeline])
            case .pause, .stop, .streamStarted, .bufferingStarted, .bufferingProgress,
                .bufferingFinished, .failed, .retryTimerFired, .retriesExhausted:
                return nil
            }

        case .connecting:
            switch event {
            case .streamStarted: return go(.playing)
            case .bufferingStarted(let p), .bufferingProgress(let p):
                return bufferingLevel(p) < 100 ? go(.buffering(percent: bufferingLevel(p)), [.pausePipeline], failures: n) : nil
            case .pause: return go(.paused, [.stopPipeline])
            case .stop: return go(.idle, [.stopPipeline])
            case .failed(let kind): return fail(kind)
            case .play, .bufferingFinished, .retryTimerFired, .retriesExhausted:
                return nil
            }

        case .playing:
            switch event {
            case .bufferingStarted(let p), .bufferingProgress(let p):
                return bufferingLevel(p) < 100 ? go(.buffering(percent: bufferingLevel(p)), [.pausePipeline], failures: n) : nil
            case .pause: return go(.paused, [.stopPipeline])
            case .stop: return go(.idle, [.stopPipeline])
            case .failed(let kind): return fail(kind)
            case .play, .streamStarted, .bufferingFinished, .retryTimerFired, .retriesExhausted:
                return nil
            }

        case .buffering:
            switch event {
            case .bufferingStarted(let p), .bufferingProgress(let p):
                return bufferingLevel(p) < 100
                    ? go(.buffering(percent: bufferingLevel(p)), failures: n)
                    : go(.playing, [.resumePipeline])
            case .bufferingFinished: return go(.playing, [.resumePipeline])
            case .pause: return go(.paused, [.stopPipeline])
            case .stop: return go(.idle, [.stopPipeline])
            case .failed(let kind): return fail(kind)
            case .play, .streamStarted, .retryTimerFired, .retriesExhausted:
                return nil
            }

        case .paused:
            switch event {
            case .play: return go(.connecting, [.startPipeline])
            case .stop: return go(.idle)
            case .pause, .streamStarted, .bufferingStarted, .bufferingProgress, .bufferingFinished,
                .failed, .retryTimerFired, .retriesExhausted:
                return nil
            }

        case .reconnecting(_, let lastError):
            switch event {
            case .retryTimerFired: return go(.connecting, [.startPipeline], failures: n)
            case .play: return go(.connecting, [.cancelRetry, .startPipeline])
            case .pause: return go(.paused, [.cancelRetry])
            case .stop: return go(.idle, [.cancelRetry])
            case .retriesExhausted: return go(.error(lastError), [.cancelRetry, .giveUp], failures: n)
            case .streamStarted, .bufferingStarted, .bufferingProgress, .bufferingFinished, .failed:
                return nil
            }

        case .error:
            switch event {
            case .play: return go(.connecting, [.startPipeline])
            case .stop: return go(.idle)
            case .pause, .streamStarted, .bufferingStarted, .bufferingProgress, .bufferingFinished,
                .failed, .retryTimerFired, .retriesExhausted:
                return nil
            }
        }
    }
}
