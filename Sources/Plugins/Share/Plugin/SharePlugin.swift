import OtonPluginKit
import PluginAPI
import ShareLogic

/// The share plugin's descriptor; OtonPluginKit supplies the C entry points.
/// Concurrency: immutable after its one initialisation (a global's lazy init is thread-safe); the host only reads it.
nonisolated(unsafe) let shareDescriptor = PluginDescriptorBuilder(
    id: "org.oton.share",
    name: "Track sharing",
    version: "0.1.0",
    description: "A share text and search links for the current track, copied to the clipboard",
    consumes: ["track", "state"],
    commands: [
        (
            name: "share",
            usage: "share [--format text|json]",
            help: N_("share the current track: text and links, copied to the clipboard when a clipboard tool is there")
        )
    ]
).build { host, config in
    ShareInstance(host: host, settings: try ShareConfig.parse(config))
}

extension ShareInstance: OneCommandPluginInstance {}

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    shareDescriptor
}
