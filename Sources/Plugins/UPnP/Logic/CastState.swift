import PluginAPI

/// The `org.oton.cast.state` event (OTON_EVENT_NAME_CAST in the header): what the UPnP plugin
/// publishes whenever casting starts, moves to another station, stops or fails, for the web remote
/// and MPRIS to show. Fields: renderer (its cleaned name), state, url (the stream handed over),
/// message (why, when failed).
public enum CastState: String, Sendable, Equatable, CaseIterable {
    case casting
    case stopped
    case failed

    public static let eventName = "org.oton.cast.state"

    public static func fields(_ state: CastState, renderer: String, url: String, message: String = "") -> [(String, String)] {
        var fields = [(OTON_FIELD_RENDERER, renderer), (OTON_FIELD_STATE, state.rawValue), (OTON_FIELD_URL, url)]
        if !message.isEmpty { fields.append((OTON_FIELD_MESSAGE, message)) }
        return fields
    }
}
