import CGStreamer

/// Which decoders decodebin picks, and which type finders it runs, so the first sound does not
/// wait for libav.
///
/// libav's plugin (libavcodec, libavformat, libavfilter …) takes 50–110 ms to load, on the path to
/// the first sound at every start and every switch, and maps megabytes. It was loaded for every
/// stream: for MP3 because typefinding, not sure enough after the first 4 KiB, runs every type
/// finder there is, libav's 25 (`avtype_*`: AVS, NSV, SMK … video-game and legacy containers no
/// radio station sends) among them, and `avdec_mp3` then won the tie with `mpg123audiodec` by
/// name; for AAC because `avdec_aac` ranks first. So, for this process:
/// - libav's type finders are left out of the registry;
/// - `mpg123audiodec` ranks above `avdec_mp3` and `faad` (libfaad2: AAC-LC, HE-AAC, HE-AACv2,
///   loads in 2 ms) above `avdec_aac`, where they are installed; without them nothing changes.
/// Loading libav on a thread of its own instead was tried: it holds GStreamer's plugin lock while
/// the source connects, and the first sound came later, not sooner.
///
/// Threading: called once, from GStreamer's initialisation (``GLibMainLoop``), before any pipeline.
package enum AudioDecoderChoice {
    /// Decoders moved ahead of the libav decoder GStreamer would otherwise pick for the same stream.
    package static let preferred = [(decoder: "mpg123audiodec", over: "avdec_mp3"), (decoder: "faad", over: "avdec_aac")]

    package static func keepLibavOffTheFirstSoundPath() {
        guard let registry = gst_registry_get() else { return }
        leaveOutTypeFinders(ofPlugin: "libav", registry: registry)
        for choice in preferred {
            guard let decoder = gst_registry_lookup_feature(registry, choice.decoder) else { continue }
            defer { gst_object_unref(UnsafeMutableRawPointer(decoder)) }
            var rank = guint(GST_RANK_PRIMARY.rawValue)
            if let other = gst_registry_lookup_feature(registry, choice.over) {
                rank = max(rank, gst_plugin_feature_get_rank(other))
                gst_object_unref(UnsafeMutableRawPointer(other))
            }
            gst_plugin_feature_set_rank(decoder, rank + 1)
        }
    }

    private static func leaveOutTypeFinders(ofPlugin plugin: String, registry: UnsafeMutablePointer<GstRegistry>) {
        guard let list = gst_type_find_factory_get_list() else { return }
        defer { gst_plugin_feature_list_free(list) }
        var node: UnsafeMutablePointer<GList>? = list
        while let current = node {
            let feature = OpaquePointer(current.pointee.data)
            if let name = gst_plugin_feature_get_plugin_name(feature), String(cString: name) == plugin {
                gst_registry_remove_feature(registry, feature)
            }
            node = current.pointee.next
        }
    }
}
