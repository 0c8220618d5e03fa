import PluginAPI

/// The playback states as the contract numbers them (OTON_STATE_*).
public enum PlaybackStateCode: UInt32, Sendable, CaseIterable {
    case idle = 0, connecting, playing, buffering, paused, stopped, error

    public var name: String {
        switch self {
        case .idle: "idle"
        case .connecting: "connecting"
        case .playing: "playing"
        case .buffering: "buffering"
        case .paused: "paused"
        case .stopped: "stopped"
        case .error: "error"
        }
    }
}

/// The payload of a `state` event.
public struct StateInfo: Equatable, Sendable {
    public struct ErrorDetail: Equatable, Sendable {
        public var kind: String
        public var message: String
        public var suggestion: String
        /// The typed error when this process's Player published it, so the terminal can say it in the
        /// listener's language; the strings above stay English (events and the control socket carry them).
        public var playbackError: PlaybackErrorKind?
        public init(kind: String, message: String, suggestion: String, playbackError: PlaybackErrorKind? = nil) {
            self.kind = kind
            self.message = message
            self.suggestion = suggestion
            self.playbackError = playbackError
        }
    }

    public var state: PlaybackStateCode
    public var bufferingPercent: Int?
    public var retryAttempt: Int
    public var error: ErrorDetail?

    public init(_ state: PlaybackStateCode, bufferingPercent: Int? = nil, retryAttempt: Int = 0, error: ErrorDetail? = nil) {
        self.state = state
        self.bufferingPercent = bufferingPercent
        self.retryAttempt = retryAttempt
        self.error = error
    }
}

/// The payload of a `dropped` event: whose queue overflowed and how much it lost so far.
public struct DropInfo: Equatable, Sendable {
    public var pluginID: String
    public var mediaTap: UInt32
    public var droppedEvents: UInt64
    public var droppedBytes: UInt64

    package init(pluginID: String, mediaTap: UInt32, droppedEvents: UInt64, droppedBytes: UInt64) {
        self.pluginID = pluginID
        self.mediaTap = mediaTap
        self.droppedEvents = droppedEvents
        self.droppedBytes = droppedBytes
    }
}
