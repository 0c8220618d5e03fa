import FoundationEssentials
import OtonPluginKit
import PluginAPI
import RecognitionLogic

/// The song recognition plugin's descriptor; OtonPluginKit supplies the C entry points. It takes
/// the PCM tap (mono, 11025 Hz: Chromaprint's own rate) and the track events.
/// Concurrency: immutable after its one initialisation (a global's lazy init is thread-safe); the host only reads it.
nonisolated(unsafe) let recognitionDescriptor = PluginDescriptorBuilder(
    id: "org.oton.recognition",
    name: "Song recognition",
    version: "0.1.0",
    description:
        "Learns the songs heard with a title (Chromaprint fingerprints in a local index) and names them on stations that send no title, as recognised",
    consumes: ["track", "state"],
    mediaTaps: OTON_TAP_PCM,
    commands: [
        (
            name: "recognition",
            usage: "recognition [--format json]",
            help: N_("the song recognition index: songs learned, looks at titleless stations and songs recognised")
        )
    ]
).build { host, config in
    try RecognitionInstance(host: host, config: try RecognitionConfig.parse(config))
}

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    recognitionDescriptor
}
