import OtonPluginKit
import PluginAPI
import WebRemoteLogic

/// The web remote's descriptor; OtonPluginKit supplies the C entry points. The decisions live in
/// WebRemoteLogic; the server in WebServer; the page in RemotePage.
/// Concurrency: immutable after its one initialisation (a global's lazy init is thread-safe); the host only reads it.
nonisolated(unsafe) let webRemoteDescriptor = PluginDescriptorBuilder(
    id: "org.oton.web-remote",
    name: "Web remote",
    version: "0.1.0",
    description: "A now-playing page and remote for the browser, served on 127.0.0.1:8765 with a token",
    consumes: [
        "state", "track", "volume", OTON_EVENT_NAME_ARTWORK_READY, OTON_EVENT_NAME_SLEEP_SET,
        OTON_EVENT_NAME_SLEEP_CANCELLED, OTON_EVENT_NAME_SLEEP_FIRED, OTON_EVENT_NAME_SHARE, OTON_EVENT_NAME_CAST,
    ],
    commands: [
        (
            name: "web-remote",
            usage: "web-remote [url|status]",
            help: N_("print the web remote's URL with its token and a QR code of it for a phone, or its clients and drops")
        )
    ]
).build { host, config in
    try WebRemoteInstance(host: host, config: WebRemoteConfig.parse(config))
}

extension WebRemoteInstance: OneCommandPluginInstance {}

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    webRemoteDescriptor
}
