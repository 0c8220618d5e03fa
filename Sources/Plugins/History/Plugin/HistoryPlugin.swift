import FoundationEssentials
import HistoryLogic
import OtonPluginKit
import PluginAPI

enum HistoryPlugin {
    static let version = "0.1.0"

}

/// The History plugin's descriptor; OtonPluginKit supplies the C entry points. Nothing unwinds across
/// them: every error becomes a create() reason, a log line or a command reply.
/// Concurrency: immutable after its one initialisation (a global's lazy init is thread-safe); the host only reads it.
nonisolated(unsafe) let historyDescriptor = PluginDescriptorBuilder(
    id: "org.oton.history",
    name: "Listening history",
    version: HistoryPlugin.version,
    description: "Keeps every track heard in history.sqlite and scrobbles to ListenBrainz and Last.fm",
    consumes: ["track", "state", OTON_EVENT_NAME_ARTWORK_READY],
    commands: [
        (name: "history", usage: HistoryQuery.usage, help: N_("show the latest tracks heard, or top artists, tracks and hours per station")),
        (name: "lastfm-login", usage: "lastfm-login start | lastfm-login finish TOKEN", help: N_("authorize Oton to scrobble to Last.fm (desktop auth flow)")),
    ]
).build { host, config in
    try HistoryInstance(host: host, config: try HistoryConfig.parse(config))
}

extension HistoryInstance: SwiftPluginInstance {
    func receive(_ event: EventView.Snapshot) { handle(event, wallMicroseconds: event.wallMicroseconds) }
}

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    historyDescriptor
}
