import OtonPluginKit
import PluginAPI

/// The now-playing plugin's descriptor and C entry points: MPRIS2 and desktop notifications.
nonisolated(unsafe) let nowPlayingDescriptor = PluginDescriptorBuilder(
    id: "org.oton.now-playing",
    name: "Now playing",
    version: "0.1.0",
    description: "MPRIS2 on the session bus (playerctl, desktop media keys) and a notification per track",
    consumes: ["track", "state", "volume", OTON_EVENT_NAME_ARTWORK_READY]
).build(
    create: { host, config, errorBuffer, errorSize in
        guard let host else {
            writeCreateError("no host table", into: errorBuffer, size: errorSize)
            return nil
        }
        do {
            let settings = try NowPlayingConfig.parse(config.map { String(cString: $0) } ?? "{}")
            let instance = NowPlayingInstance(host: HostHandle(host), config: settings)
            return Unmanaged.passRetained(instance).toOpaque()
        } catch {
            writeCreateError("\(error)", into: errorBuffer, size: errorSize)
            return nil
        }
    },
    destroy: { instance in
        guard let instance else { return }
        Unmanaged<NowPlayingInstance>.fromOpaque(instance).takeRetainedValue().shutdown()
    },
    onEvent: { instance, event in
        guard let instance, let event else { return }
        Unmanaged<NowPlayingInstance>.fromOpaque(instance).takeUnretainedValue().handle(EventView(event).snapshot)
    }
)

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    nowPlayingDescriptor
}
