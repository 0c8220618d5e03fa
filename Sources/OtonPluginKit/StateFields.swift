import PluginAPI

/// A `state` event read through the header's keys.
public struct StateFields: Equatable, Sendable {
    /// idle, connecting, playing, buffering, paused, stopped or error.
    public var state: String
    public var bufferingPercent: Int?
    /// 0, or the reconnect attempt under way.
    public var retryAttempt: Int
    public var errorKind: String?
    public var errorMessage: String?
    public var errorSuggestion: String?

    public init(
        state: String, bufferingPercent: Int? = nil, retryAttempt: Int = 0, errorKind: String? = nil,
        errorMessage: String? = nil, errorSuggestion: String? = nil
    ) {
        self.state = state
        self.bufferingPercent = bufferingPercent
        self.retryAttempt = retryAttempt
        self.errorKind = errorKind
        self.errorMessage = errorMessage
        self.errorSuggestion = errorSuggestion
    }

    /// A `state` event's fields; nil without a state.
    public init?(fields: [String: String]) {
        guard let state = fields[OTON_FIELD_STATE], !state.isEmpty else { return nil }
        self.init(
            state: state, bufferingPercent: fields[OTON_FIELD_BUFFERING_PERCENT].flatMap { Int($0) },
            retryAttempt: fields[OTON_FIELD_RETRY_ATTEMPT].flatMap { Int($0) } ?? 0,
            errorKind: fields[OTON_FIELD_ERROR_KIND], errorMessage: fields[OTON_FIELD_ERROR_MESSAGE],
            errorSuggestion: fields[OTON_FIELD_ERROR_SUGGESTION])
    }
}

/// A `volume` event read through the header's keys: the output volume, 0 … `maximum`.
public struct VolumeFields: Equatable, Sendable {
    /// The loudest volume (the header's OTON_VOLUME_MAX): above 1.0 amplifies.
    public static let maximum: Double = OTON_VOLUME_MAX

    public var volume: Double

    /// `volume` kept within 0 … maximum.
    public init(volume: Double) {
        self.volume = min(max(volume, 0), Self.maximum)
    }

    /// A `volume` event's fields; nil without a finite volume.
    public init?(fields: [String: String]) {
        guard let value = fields[OTON_FIELD_VOLUME].flatMap(Double.init), value.isFinite else { return nil }
        self.init(volume: value)
    }
}

/// A `dropped` event read through the header's keys.
public struct DropFields: Equatable, Sendable {
    public var pluginID: String
    public var droppedEvents: UInt64
    public var droppedBytes: UInt64

    public init?(fields: [String: String]) {
        guard let plugin = fields[OTON_FIELD_PLUGIN_ID] else { return nil }
        pluginID = plugin
        droppedEvents = fields[OTON_FIELD_DROPPED_EVENTS].flatMap { UInt64($0) } ?? 0
        droppedBytes = fields[OTON_FIELD_DROPPED_BYTES].flatMap { UInt64($0) } ?? 0
    }
}
