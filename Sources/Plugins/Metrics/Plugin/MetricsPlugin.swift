import MetricsLogic
import OtonPluginKit
import PluginAPI

/// The metrics plugin's descriptor; OtonPluginKit supplies the C entry points. The figures and
/// the text live in MetricsLogic, the listener in MetricsHTTP, the glue in MetricsInstance.
/// Concurrency: immutable after its one initialisation (a global's lazy init is thread-safe); the host only reads it.
nonisolated(unsafe) let metricsDescriptor = PluginDescriptorBuilder(
    id: "org.oton.metrics",
    name: "Metrics",
    version: MetricsRegistry.pluginVersion,
    description: "Serves Prometheus metrics (bytes, state, tracks, reconnects, drops per station; the process's own) on 127.0.0.1:9464/metrics",
    consumes: ["track", "state", "dropped", OTON_EVENT_NAME_AIR, OTON_EVENT_NAME_ALERT],
    mediaTaps: OTON_TAP_STREAM
).build { host, config in
    try MetricsInstance(host: host, config: MetricsConfig.parse(config))
}

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    metricsDescriptor
}
