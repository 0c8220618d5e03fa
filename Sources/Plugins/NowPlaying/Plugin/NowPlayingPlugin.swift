import NowPlayingLogic
import OtonPluginKit
import PluginAPI

/// The now-playing plugin's descriptor; OtonPluginKit supplies the C entry points: MPRIS2 and desktop notifications.
/// Concurrency: immutable after its one initialisation (a global's lazy init is thread-safe); the host only reads it.
nonisolated(unsafe) let nowPlayingDescriptor = PluginDescriptorBuilder(
    id: "org.oton.now-playing",
    name: "Now playing",
    version: "0.1.0",
    description: "MPRIS2 on the session bus (playerctl, desktop media keys) and a notification per track",
    consumes: ["track", "state", "volume", OTON_EVENT_NAME_ARTWORK_READY, OTON_EVENT_NAME_WISH_HEARD, OTON_EVENT_NAME_CAST, OTON_EVENT_NAME_TIMESHIFT_MOVED]
).build { host, config in
    NowPlayingInstance(host: host, config: try NowPlayingConfig.parse(config))
}

extension NowPlayingInstance: SwiftPluginInstance {
    func receive(_ event: EventView.Snapshot) { handle(event) }
}

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    nowPlayingDescriptor
}
