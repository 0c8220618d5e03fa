import OtonPluginKit
import PluginAPI

/// The sleep timer's descriptor and C entry points. The logic lives in
/// SleepTimerLogic; the instance in SleepTimerInstance.
nonisolated(unsafe) let sleepTimerDescriptor = PluginDescriptorBuilder(
    id: "org.oton.sleep-timer",
    name: "Sleep timer",
    version: "0.1.0",
    description: "Fades out and stops (or pauses) after a duration or at the end of the current track",
    consumes: ["track", "volume"],
    commands: [(
        name: "sleep",
        usage: "sleep [DURATION|after-track|next|cancel]",
        help: "set the sleep timer (90s, 30m, 1h15m, 45), stop after this track, cycle presets, cancel, or show what remains"
    )]
).build(
    create: { host, config, errorBuffer, errorSize in
        guard let host else {
            writeCreateError("no host table", into: errorBuffer, size: errorSize)
            return nil
        }
        do {
            let settings = try SleepTimerConfig.parse(config.map { String(cString: $0) } ?? "{}")
            let instance = SleepTimerInstance(host: HostHandle(host), settings: settings)
            return Unmanaged.passRetained(instance).toOpaque()
        } catch {
            writeCreateError("\(error)", into: errorBuffer, size: errorSize)
            return nil
        }
    },
    destroy: { instance in
        guard let instance else { return }
        Unmanaged<SleepTimerInstance>.fromOpaque(instance).takeRetainedValue().shutdown()
    },
    onEvent: { instance, event in
        guard let instance, let event else { return }
        Unmanaged<SleepTimerInstance>.fromOpaque(instance).takeUnretainedValue().handle(EventView(event).snapshot)
    },
    onCommand: { instance, _, arguments, reply, replyContext in
        guard let instance else { return OTON_ERR_INVALID }
        let timer = Unmanaged<SleepTimerInstance>.fromOpaque(instance).takeUnretainedValue()
        let (ok, text) = timer.command(SleepTimerConfig.arguments(arguments.map { String(cString: $0) } ?? "[]"))
        reply?(replyContext, text)
        return ok ? OTON_OK : OTON_ERR_FAILED
    }
)

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    sleepTimerDescriptor
}
