import OtonPluginKit
import PluginAPI
import UPnPLogic

/// The UPnP casting plugin's descriptor; OtonPluginKit supplies the C entry points. The decisions
/// live in UPnPLogic, the GUPnP glue in RendererDirectory and SoapCall, the commands in UPnPInstance.
/// GUPnP links libsoup 3, which aborts in a process that has the player's libsoup 2.4: the plugin
/// must run with "isolation": "process" (docs/casting.md).
nonisolated(unsafe) let upnpDescriptor = PluginDescriptorBuilder(
    id: "org.oton.upnp",
    name: "UPnP casting",
    version: "0.1.0",
    description: "Casts the station to a UPnP/DLNA renderer (a TV, receiver or speaker) found on the local network",
    consumes: ["track", "state"],
    commands: [(
        name: "cast",
        usage: "cast list|to NAME|stop|status",
        help: N_("list the UPnP/DLNA renderers on the network, cast the station to one (local playback pauses), stop casting, or say what is cast")
    )]
).build { host, config in
    try UPnPInstance(host: host, config: UPnPConfig.parse(config))
}

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    upnpDescriptor
}
