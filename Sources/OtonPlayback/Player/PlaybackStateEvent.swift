import OtonEvents
import PluginAPI

/// The `state` event of a playback state: what plugins, the control socket and the status line read.
package enum PlaybackStateEvent {
    /// While waiting to reconnect, the event also says when (`retry_in_ms`) and how many attempts
    /// there are in all (`retry_max`, absent when unlimited), for a countdown.
    package static func event(_ state: PlaybackState, failures: Int, retryDelay: Duration?, maxAttempts: Int?) -> BusEvent {
        var event = BusEvent.state(stateInfo(state, failures: failures))
        if case .reconnecting = state, let retryDelay {
            let (seconds, attoseconds) = retryDelay.components
            event.extraFields = [(OTON_FIELD_RETRY_IN_MS, String(seconds * 1000 + attoseconds / 1_000_000_000_000_000))]
            if let maxAttempts { event.extraFields.append((OTON_FIELD_RETRY_MAX, String(maxAttempts))) }
        }
        return event
    }

    /// Buffering progress is announced in steps of 10 %, not for every percent.
    package static func isMinorBufferingStep(from old: PlaybackState, to new: PlaybackState) -> Bool {
        guard case let .buffering(before) = old, case let .buffering(after) = new else { return false }
        return before / 10 == after / 10
    }

    package static func stateInfo(_ state: PlaybackState, failures: Int) -> StateInfo {
        /// While a reconnect is to come, the suggestion may say so; once oton has given up, it must not.
        func detail(_ kind: PlaybackErrorKind, retrying: Bool) -> StateInfo.ErrorDetail {
            .init(
                kind: kind.code, message: kind.message,
                suggestion: retrying ? kind.recoverySuggestion : kind.finalRecoverySuggestion(in: .english), playbackError: kind)
        }
        switch state {
        case .idle: return StateInfo(.idle)
        case .connecting: return StateInfo(.connecting, retryAttempt: failures)
        case .playing: return StateInfo(.playing)
        case let .buffering(percent): return StateInfo(.buffering, bufferingPercent: percent)
        case .paused: return StateInfo(.paused)
        case let .reconnecting(attempt, lastError): return StateInfo(.error, retryAttempt: attempt, error: detail(lastError, retrying: true))
        case let .error(kind): return StateInfo(.error, error: detail(kind, retrying: false))
        }
    }
}
