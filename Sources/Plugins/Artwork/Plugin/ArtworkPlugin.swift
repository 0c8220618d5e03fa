import OtonPluginKit
import PluginAPI

/// The artwork plugin's descriptor and C entry points.
nonisolated(unsafe) let artworkDescriptor = PluginDescriptorBuilder(
    id: "org.oton.artwork",
    name: "Artwork",
    version: "0.1.0",
    description: "Finds the cover (or the station logo) for each track, caches it and publishes org.oton.artwork.ready",
    consumes: ["track"]
).build(
    create: { host, config, errorBuffer, errorSize in
        guard let host else {
            writeCreateError("no host table", into: errorBuffer, size: errorSize)
            return nil
        }
        do {
            let settings = try ArtworkConfig.parse(config.map { String(cString: $0) } ?? "{}")
            let instance = try ArtworkInstance(host: HostHandle(host), config: settings)
            return Unmanaged.passRetained(instance).toOpaque()
        } catch {
            writeCreateError("\(error)", into: errorBuffer, size: errorSize)
            return nil
        }
    },
    destroy: { instance in
        guard let instance else { return }
        Unmanaged<ArtworkInstance>.fromOpaque(instance).takeRetainedValue().shutdown()
    },
    onEvent: { instance, event in
        guard let instance, let event else { return }
        Unmanaged<ArtworkInstance>.fromOpaque(instance).takeUnretainedValue().handle(EventView(event).snapshot)
    }
)

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    artworkDescriptor
}
