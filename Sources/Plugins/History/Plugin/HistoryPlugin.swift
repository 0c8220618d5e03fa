import Foundation
import HistoryLogic
import OtonPluginKit
import PluginAPI

enum HistoryPlugin {
    static let version = "0.1.0"

    static func arguments(_ json: String) -> [String] {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String]) ?? []
    }
}

/// The History plugin's descriptor and C entry points. Nothing unwinds across
/// them: every error becomes a create() reason, a log line or a command reply.
nonisolated(unsafe) let historyDescriptor = PluginDescriptorBuilder(
    id: "org.oton.history",
    name: "Listening history",
    version: HistoryPlugin.version,
    description: "Keeps every track heard in history.sqlite and scrobbles to ListenBrainz and Last.fm",
    consumes: ["track", "state", OTON_EVENT_NAME_ARTWORK_READY],
    commands: [
        (name: "history", usage: HistoryQuery.usage, help: "show the latest tracks heard, or top artists, tracks and hours per station"),
        (name: "lastfm-login", usage: "lastfm-login start | lastfm-login finish TOKEN", help: "authorize Oton to scrobble to Last.fm (desktop auth flow)"),
    ]
).build(
    create: { host, config, errorBuffer, errorSize in
        guard let host else {
            writeCreateError("no host table", into: errorBuffer, size: errorSize)
            return nil
        }
        do {
            let settings = try HistoryConfig.parse(config.map { String(cString: $0) } ?? "{}")
            let instance = try HistoryInstance(host: HostHandle(host), config: settings)
            return Unmanaged.passRetained(instance).toOpaque()
        } catch {
            writeCreateError("\(error)", into: errorBuffer, size: errorSize)
            return nil
        }
    },
    destroy: { instance in
        guard let instance else { return }
        Unmanaged<HistoryInstance>.fromOpaque(instance).takeRetainedValue().shutdown()
    },
    onEvent: { instance, event in
        guard let instance, let event else { return }
        let wall = event.pointee.wall_us
        Unmanaged<HistoryInstance>.fromOpaque(instance).takeUnretainedValue().handle(EventView(event).snapshot, wallMicroseconds: wall)
    },
    onCommand: { instance, name, arguments, reply, replyContext in
        guard let instance, let name else { return OTON_ERR_INVALID }
        let history = Unmanaged<HistoryInstance>.fromOpaque(instance).takeUnretainedValue()
        let (ok, text) = history.command(String(cString: name), HistoryPlugin.arguments(arguments.map { String(cString: $0) } ?? "[]"))
        reply?(replyContext, text)
        return ok ? OTON_OK : OTON_ERR_FAILED
    }
)

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    historyDescriptor
}
