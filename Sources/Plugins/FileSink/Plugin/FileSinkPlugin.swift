import FileSinkLogic
import FoundationEssentials
import OtonPluginKit
import PluginAPI

/// The file sink's descriptor; OtonPluginKit supplies the C entry points. It may take either
/// tap; each instance selects one in create(): the stream tap for config.format "stream" (the
/// host then need not decode), the PCM tap for "wav".
/// Concurrency: immutable after its one initialisation (a global's lazy init is thread-safe); the host only reads it.
nonisolated(unsafe) let fileSinkDescriptor = PluginDescriptorBuilder(
    id: "org.oton.file-sink",
    name: "File sink",
    version: "0.1.0",
    description:
        "Records the stream as received (or WAV from PCM), one file per track, with an index, and/or archive segments at clock boundaries with a gap ledger; record-current saves the track playing now",
    consumes: ["track", "state", OTON_EVENT_NAME_ARTWORK_READY, OTON_EVENT_NAME_WISH_HEARD],
    mediaTaps: OTON_TAP_STREAM | OTON_TAP_PCM,
    commands: [
        (
            name: "record-current",
            usage: "record-current",
            help: N_("save the track playing now, from its start, and go on recording it to its end")
        )
    ]
).build { host, config in
    try FileSinkInstance(host: host, settings: try FileSinkSettings.parse(config))
}

extension FileSinkInstance: SwiftPluginInstance {
    func receive(_ event: EventView.Snapshot) { self.event(event) }
    func receive(media: UnsafePointer<oton_media_buffer>) { self.media(media) }
}

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    fileSinkDescriptor
}
