/// MPRIS PlaybackStatus values.
public enum PlaybackStatus: String, Sendable {
    case playing = "Playing"
    case paused = "Paused"
    case stopped = "Stopped"

    /// Maps a `state` event (its `state` and `retry_attempt` fields) to what a desktop shows:
    /// connecting, buffering and reconnecting mean the listener wants it playing.
    public init(state: String, retryAttempt: Int) {
        switch state {
        case "playing", "buffering", "connecting": self = .playing
        case "paused": self = .paused
        case "error" where retryAttempt > 0: self = .playing
        default: self = .stopped
        }
    }

    /// Whether the computer is kept from suspending: while playing (connecting and reconnecting
    /// included: the listener wants sound), not paused or stopped.
    public var keepsComputerAwake: Bool {
        switch self {
        case .playing: true
        case .paused, .stopped: false
        }
    }
}
