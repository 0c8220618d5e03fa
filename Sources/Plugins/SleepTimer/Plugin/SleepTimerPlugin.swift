import OtonPluginKit
import PluginAPI
import SleepTimerLogic

/// The sleep timer's descriptor; OtonPluginKit supplies the C entry points. The logic lives in
/// SleepTimerLogic; the instance in SleepTimerInstance.
/// Concurrency: immutable after its one initialisation (a global's lazy init is thread-safe); the host only reads it.
nonisolated(unsafe) let sleepTimerDescriptor = PluginDescriptorBuilder(
    id: "org.oton.sleep-timer",
    name: "Sleep timer",
    version: "0.1.0",
    description: "Fades out and stops (or pauses) after a duration or at the end of the current track",
    consumes: ["track", "volume"],
    commands: [
        (
            name: "sleep",
            usage: "sleep [DURATION|after-track|next|cancel]",
            help: N_("set the sleep timer (90s, 30m, 1h15m, 45:00), stop after this track, cycle presets, cancel, or show what remains")
        )
    ]
).build { host, config in
    SleepTimerInstance(host: host, settings: try SleepTimerConfig.parse(config))
}

extension SleepTimerInstance: OneCommandPluginInstance {}

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    sleepTimerDescriptor
}
