import CGio
import NowPlayingLogic
import PluginAPI

/// The value of each MPRIS property, from the model. nil for an unknown name.
enum MprisProperties {
    static let supportedUriSchemes = ["http", "https"]
    static let supportedMimeTypes = ["audio/mpeg", "audio/aac", "audio/aacp", "audio/ogg", "audio/opus", "audio/flac"]

    /// `position`: where timeshift playback is (µs), nil without timeshift (then Position is 0 and CanSeek false).
    /// `canRaise`: a window (`oton window`) runs for Raise to show.
    static func value(interface: String, name: String, model: NowPlayingModel, position: Int64? = nil, canRaise: Bool = false) -> OpaquePointer? {
        switch (interface, name) {
        case (MprisIntrospection.rootInterface, "CanQuit"): return Variants.bool(true)
        case (MprisIntrospection.rootInterface, "CanRaise"): return Variants.bool(canRaise)
        case (MprisIntrospection.rootInterface, "HasTrackList"): return Variants.bool(false)
        case (MprisIntrospection.rootInterface, "Identity"): return Variants.string("Oton")
        case (MprisIntrospection.rootInterface, "DesktopEntry"): return Variants.string(OTON_DESKTOP_APP_ID)  // the .desktop file's id
        case (MprisIntrospection.rootInterface, "SupportedUriSchemes"): return Variants.strings(supportedUriSchemes)
        case (MprisIntrospection.rootInterface, "SupportedMimeTypes"): return Variants.strings(supportedMimeTypes)
        case (MprisIntrospection.playerInterface, _): return player(name, model: model, position: position)
        default: return nil
        }
    }

    private static func player(_ name: String, model: NowPlayingModel, position: Int64?) -> OpaquePointer? {
        switch name {
        case "PlaybackStatus": return Variants.string(model.status.rawValue)
        case "Rate", "MinimumRate", "MaximumRate": return Variants.double(1.0)
        case "Metadata": return Variants.dictionary(model.metadata.map { ($0.key, Variants.metadata($0.value)) })
        case "Volume": return Variants.double(model.volume)
        case "Position": return Variants.int64(position ?? 0)
        case "CanGoNext", "CanGoPrevious": return Variants.bool(model.canSwitchStations)
        case "CanSeek": return Variants.bool(position != nil)
        case "CanPlay", "CanPause", "CanControl": return Variants.bool(true)
        default: return nil
        }
    }
}
