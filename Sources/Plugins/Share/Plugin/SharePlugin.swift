import OtonPluginKit
import PluginAPI

/// The share plugin's descriptor and C entry points.
nonisolated(unsafe) let shareDescriptor = PluginDescriptorBuilder(
    id: "org.oton.share",
    name: "Track sharing",
    version: "0.1.0",
    description: "A share text and search links for the current track, copied to the clipboard",
    consumes: ["track"],
    commands: [(
        name: "share",
        usage: "share [--format text|json]",
        help: "share the current track: text and links, copied to the clipboard when a clipboard tool is there"
    )]
).build(
    create: { host, config, errorBuffer, errorSize in
        guard let host else {
            writeCreateError("no host table", into: errorBuffer, size: errorSize)
            return nil
        }
        do {
            let settings = try ShareConfig.parse(config.map { String(cString: $0) } ?? "{}")
            return Unmanaged.passRetained(ShareInstance(host: HostHandle(host), settings: settings)).toOpaque()
        } catch {
            writeCreateError("\(error)", into: errorBuffer, size: errorSize)
            return nil
        }
    },
    destroy: { instance in
        guard let instance else { return }
        Unmanaged<ShareInstance>.fromOpaque(instance).release()
    },
    onEvent: { instance, event in
        guard let instance, let event else { return }
        Unmanaged<ShareInstance>.fromOpaque(instance).takeUnretainedValue().remember(EventView(event).snapshot)
    },
    onCommand: { instance, _, arguments, reply, replyContext in
        guard let instance else { return OTON_ERR_INVALID }
        let share = Unmanaged<ShareInstance>.fromOpaque(instance).takeUnretainedValue()
        let (ok, text) = share.command(ShareConfig.arguments(arguments.map { String(cString: $0) } ?? "[]"))
        reply?(replyContext, text)
        return ok ? OTON_OK : OTON_ERR_FAILED
    }
)

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    shareDescriptor
}
