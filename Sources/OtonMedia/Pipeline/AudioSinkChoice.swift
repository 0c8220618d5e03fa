import CGStreamer

/// Which sinks `autoaudiosink` may pick.
///
/// With no sound server and no sound device, autoaudiosink tries every sink by rank and can reach
/// `openalsink`, whose OpenAL library writes "AL lib: (EE) …" straight into the terminal (the status
/// line included) before failing too. oton's own warning already says that no device could be opened
/// and what to do, so OpenAL is taken out of autoplugging for this process; `--audio-sink openalsink`
/// still names it explicitly.
///
/// Threading: called once, from GStreamer's initialisation (``GLibMainLoop``), before any pipeline.
package enum AudioSinkChoice {
    /// Sinks that never take part in autoplugging.
    package static let excluded = ["openalsink"]

    package static func keepNoisySinksOut() {
        guard let registry = gst_registry_get() else { return }
        for name in excluded {
            guard let feature = gst_registry_lookup_feature(registry, name) else { continue }
            gst_plugin_feature_set_rank(feature, guint(GST_RANK_NONE.rawValue))
            gst_object_unref(UnsafeMutableRawPointer(feature))
        }
    }
}
