import OtonPluginKit
import PluginAPI
import UPnPLogic

/// The UPnP casting plugin's real descriptor, in libOtonUPnPCore.so. The library oton loads,
/// libOtonUPnP.so (Sources/Plugins/UPnP/Plugin), is a small C forwarder without GUPnP: it loads
/// this one only in a process of its own, because GUPnP links libsoup 3, which aborts a process
/// that has (or later loads) the player's libsoup 2.4. The decisions live in UPnPLogic, the GUPnP
/// glue in RendererDirectory and SoapCall, the commands in UPnPInstance. `nonisolated(unsafe)`:
/// built once when the library loads and only read after, as every plugin's descriptor.
nonisolated(unsafe) let upnpDescriptor = PluginDescriptorBuilder(
    id: "org.oton.upnp",
    name: "UPnP casting",
    version: "0.1.0",
    description: "Casts the station to a UPnP/DLNA renderer (a TV, receiver or speaker) found on the local network",
    consumes: ["track", "state"],
    commands: [
        (
            name: "cast",
            usage: "cast list|to NAME|stop|status",
            help: N_("list the UPnP/DLNA renderers on the network, cast the station to one (local playback pauses), stop casting, or say what is cast")
        )
    ]
).build { host, config in
    try UPnPInstance(host: host, config: UPnPConfig.parse(config))
}

/// What the forwarder says when it is asked to run inside oton's own process; the C file has the
/// same English text (kept here so that the catalogues have it).
let needsIsolationMessage = N_(
    "the UPnP plugin must run in a process of its own: add \"isolation\": \"process\" to its entry in plugins.json (GUPnP's libsoup 3 cannot share oton's process with the player's libsoup 2.4)"
)

@_cdecl("oton_upnp_core_entry")
public func otonUPnPCoreEntry() -> UnsafePointer<oton_plugin_descriptor> {
    _ = needsIsolationMessage
    return upnpDescriptor
}
