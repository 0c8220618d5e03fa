import OtonEvents

/// When and how often to reconnect after a playback failure.
///
/// Attempts are numbered from 1 (the first reconnect after a failure).
/// The first attempts may have delays of their own (`early`); after them the delay grows
/// linearly — `step`, 2×`step`, 3×`step`… (2 s, 4 s, 6 s…) — and never exceeds `maxDelay`.
/// The policy itself is stateless: the caller
/// (``PlaybackStateMachine``) counts consecutive failures and resets the
/// count when playback succeeds (`streamStarted`) or the user acts.
public struct ReconnectPolicy: Hashable, Sendable {
    /// Growth per attempt.
    public var step: Duration
    /// Upper bound for any single delay.
    public var maxDelay: Duration
    /// Most reconnect attempts in a row; `nil` = unlimited.
    public var maxAttempts: Int?
    /// The delays of the first attempts (then `step`, 2×`step` … as if they were not there).
    public var early: [Duration]

    public init(step: Duration = .seconds(2), maxDelay: Duration = .seconds(30), maxAttempts: Int? = 3, early: [Duration] = []) {
        self.step = max(step, .zero)
        self.maxDelay = max(maxDelay, .zero)
        self.maxAttempts = maxAttempts.map { max(0, $0) }
        self.early = early.map { max($0, .zero) }
    }

    /// Someone is listening: never give up by yourself (a station whose encoder restarts, a mount that
    /// answers 404 for a while, a network that drops, all come back), but try often while it is likely
    /// to be back soon: after 0.5 s, then every second for half a minute, every 2 s for five minutes
    /// more, then 4 s, 6 s … at most 30 s apart. A try at a mount that is gone is one small request
    /// answered at once, so sound is back within about 2 s of the station's return in the first
    /// minutes. `--retries N` gives scripts a limit again.
    public static let listening = ReconnectPolicy(
        maxAttempts: nil,
        early: [.milliseconds(500)] + Array(repeating: .seconds(1), count: 30) + Array(repeating: .seconds(2), count: 150))
    /// A limit of `attempts` in a row (`--retries N`): after them oton gives up and says so.
    public static func limited(_ attempts: Int) -> ReconnectPolicy { ReconnectPolicy(maxAttempts: attempts) }
    /// Headless/daemon mode (recording): keep trying forever, at most every 30 s. The first tries come
    /// quickly — after 0.5 s, then every second for about ten seconds, then 2 s, 4 s, 6 s … — so a
    /// server that restarts (a crash, a deploy) has the recorder back within a second of its return,
    /// as streamripper (which tries every second) is; it was 2 s and more (Benchmarks/results.md).
    /// A refused connection costs next to nothing, so ten quick tries are cheap even for 1000 stations.
    public static let headless = ReconnectPolicy(maxAttempts: nil, early: [.milliseconds(500)] + Array(repeating: .seconds(1), count: 9))

    /// Delay before attempt `attempt` (1-based): the early delay of that attempt, else
    /// min(step × (attempt − early.count), maxDelay) (… 1 s, 2 s, 4 s …). Attempts below 1 are
    /// treated as 1; huge values do not overflow.
    public func delay(forAttempt attempt: Int) -> Duration {
        var attempt = max(1, attempt)
        if attempt <= early.count { return min(early[attempt - 1], maxDelay) }
        attempt -= early.count
        guard step > .zero else { return .zero }
        // Compare in floating point first so `step * attempt` cannot overflow.
        if Double(attempt) >= maxDelay / step { return maxDelay }
        return min(step * attempt, maxDelay)
    }

    /// Whether attempt number `attempt` (1-based) may be made.
    public func shouldRetry(attempt: Int) -> Bool {
        guard attempt >= 1 else { return false }
        guard let maxAttempts else { return true }
        return attempt <= maxAttempts
    }

    /// Whether attempt number `attempt` may be made after a failure of `kind`: a limited policy
    /// (someone listens) also keeps the kind's own ``PlaybackErrorKind/retryLimit``; an unlimited one
    /// (headless, recording) keeps trying, as a station off the air for an hour comes back.
    public func shouldRetry(attempt: Int, after kind: PlaybackErrorKind) -> Bool {
        guard shouldRetry(attempt: attempt) else { return false }
        guard maxAttempts != nil, let limit = kind.retryLimit else { return true }
        return attempt <= limit
    }
}
