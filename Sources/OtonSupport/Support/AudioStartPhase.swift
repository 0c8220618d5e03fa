import Foundation

/// Whether the process is inside GStreamer's initialisation, which on a first start builds the plugin
/// registry (29–50 s on a busy machine): a quit signal then ends oton at once (`QuitSignals`), as
/// nothing else has started that needs an orderly end. `oton play`'s reading of its chain's LV2 plugins
/// (which indexes every installed bundle's manifest on a first start after an install) is such a phase
/// too, set before the thread that initialises GStreamer starts. Written by one thread at a time, read
/// by a signal handler: a plain `sig_atomic_t`, set before the phase starts and cleared after.
nonisolated(unsafe) public var audioStartIsPreparingPlugins: sig_atomic_t = 0

/// GStreamer's plugin registry, as GStreamer finds it: `GST_REGISTRY_1_0`, `GST_REGISTRY`, else
/// `registry.<arch>.bin` in the user's cache folder's `gstreamer-1.0`.
public enum AudioPluginRegistry {
    /// Whether GStreamer will have to build its registry (none is there yet): a first start.
    public static func isMissing(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        if let file = environment["GST_REGISTRY_1_0"] ?? environment["GST_REGISTRY"], !file.isEmpty {
            return !FileManager.default.fileExists(atPath: file)
        }
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.cache")
        let folder = cache + "/gstreamer-1.0"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return !names.contains { $0.hasPrefix("registry.") && $0.hasSuffix(".bin") }
    }
}
