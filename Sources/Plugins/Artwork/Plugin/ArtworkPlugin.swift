import ArtworkLogic
import OtonPluginKit
import PluginAPI

/// The artwork plugin's descriptor; OtonPluginKit supplies the C entry points.
/// Concurrency: immutable after its one initialisation (a global's lazy init is thread-safe); the host only reads it.
nonisolated(unsafe) let artworkDescriptor = PluginDescriptorBuilder(
    id: "org.oton.artwork",
    name: "Artwork",
    version: "0.1.0",
    description: "Finds the cover (or the station logo) for each track, caches it and publishes org.oton.artwork.ready",
    consumes: ["track"]
).build { host, config in
    try ArtworkInstance(host: host, config: try ArtworkConfig.parse(config))
}

extension ArtworkInstance: SwiftPluginInstance {
    func receive(_ event: EventView.Snapshot) { handle(event) }
}

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    artworkDescriptor
}
