import OtonEvents

/// What the player is doing, as shown to the listener.
public enum PlaybackState: Hashable, Sendable {
    /// Nothing selected or stopped by the user.
    case idle
    /// Pipeline started, waiting for audio to flow.
    case connecting
    /// Audio is flowing.
    case playing
    /// Pipeline paused to refill its buffer; `percent` is 0–99.
    case buffering(percent: Int)
    /// Stopped by the user but the station is remembered. A live stream
    /// cannot really pause, so the connection is dropped and `play`
    /// reconnects at the live point.
    case paused
    /// A retryable failure happened; a retry timer is running. `attempt` is
    /// the number of the reconnect that will be made when it fires (1-based).
    case reconnecting(attempt: Int, lastError: PlaybackErrorKind)
    /// Gave up (non-retryable failure, or retries exhausted). Stays here
    /// until the listener presses play or stop.
    case error(PlaybackErrorKind)

    /// Whether the listener should see the stop button (something is
    /// happening or about to happen).
    public var isActive: Bool {
        switch self {
        case .connecting, .playing, .buffering, .reconnecting: true
        case .idle, .paused, .error: false
        }
    }
}

/// Inputs to the state machine: listener commands, pipeline reports, timers.
public enum PlaybackEvent: Hashable, Sendable {
    // Listener commands.
    case play
    case pause
    case stop
    // Pipeline reports.
    /// The pipeline reached PLAYING: audio is flowing ("connected").
    case streamStarted
    /// A BUFFERING message below 100 % after audio had been flowing
    /// (or during connecting).
    case bufferingStarted(percent: Int)
    /// A further BUFFERING message. 100 % is treated like `bufferingFinished`.
    case bufferingProgress(percent: Int)
    /// BUFFERING reached 100 %.
    case bufferingFinished
    /// The pipeline failed (see ``PlaybackErrorClassifier``), or a host
    /// watchdog reports `.bufferingTimeout`.
    case failed(PlaybackErrorKind)
    // Timers and supervisors.
    /// The timer requested by `.scheduleRetry` fired.
    case retryTimerFired
    /// Someone decided to stop reconnecting now (a network monitor, a
    /// headless supervisor, or a "stop trying" button).
    case retriesExhausted
}

/// Side effects the host must perform after a transition, in order.
public enum PlaybackEffect: Hashable, Sendable {
    /// Build the pipeline for the current station and set it to PLAYING.
    case startPipeline
    /// Tear the pipeline down (state NULL), dropping the connection.
    case stopPipeline
    /// Set the pipeline to PAUSED while its buffer refills.
    case pausePipeline
    /// Set a paused (buffering) pipeline back to PLAYING.
    case resumePipeline
    /// Start a one-shot timer; when it fires, send `.retryTimerFired`.
    case scheduleRetry(after: Duration)
    /// Cancel a timer started by `.scheduleRetry`.
    case cancelRetry
    /// Reconnecting is over: tell the listener / log (the state is `.error`).
    case giveUp
}
