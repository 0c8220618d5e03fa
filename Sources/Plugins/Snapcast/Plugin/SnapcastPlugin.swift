import OtonPluginKit
import PluginAPI
import SnapcastLogic

/// The Snapcast sink's descriptor; OtonPluginKit supplies the C entry points. The config and the
/// control-script protocol live in SnapcastLogic, the sockets in AudioSender and MetadataListener.
nonisolated(unsafe) let snapcastDescriptor = PluginDescriptorBuilder(
    id: "org.oton.snapcast",
    name: "Snapcast",
    version: "0.1.0",
    description: "Plays the station in Snapcast's rooms: the decoded sound to a snapserver TCP source, the track to its clients",
    consumes: ["track", "state"],
    mediaTaps: OTON_TAP_PCM,
    commands: [
        (
            name: "snapcast",
            usage: "snapcast [--format json]",
            help: N_("the Snapcast sink's connection to snapserver: bytes sent and dropped, control scripts connected")
        )
    ]
).build { host, config in
    try SnapcastInstance(host: host, config: SnapcastConfig.parse(config))
}

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    snapcastDescriptor
}
