import CGStreamer

/// Which of GStreamer's two HLS and two DASH demuxers (the adaptive streams) decodebin and parsebin plug.
///
/// GStreamer 1.22 has two: `hlsdemux` (gstreamer1.0-plugins-bad) and the newer
/// `hlsdemux2` (plugins-good), which ranks higher but works only inside the
/// "streams-aware" bins (decodebin3, playbin3) and reads the timed ID3 title of
/// the first segment only. oton's pipelines use decodebin and parsebin, and a
/// radio station's titles change from segment to segment, so when `hlsdemux` is
/// installed `hlsdemux2` is taken out of autoplugging for this process.
///
/// Threading: called once, from GStreamer's initialisation (``GLibMainLoop``).
package enum AdaptiveDemuxerChoice {
    /// The demuxer oton's HLS pipelines need; without it HLS is refused with an install hint.
    package static let requiredHLS = "hlsdemux"
    package static let package = "gstreamer1.0-plugins-bad"
    /// The DASH demuxer, from the same package; `dashdemux2` has the same limits as `hlsdemux2`.
    package static let requiredDASH = "dashdemux"

    package static func preferClassicDemuxer() {
        prefer(requiredHLS, over: "hlsdemux2")
        prefer(requiredDASH, over: "dashdemux2")
    }

    private static func prefer(_ classicName: String, over newerName: String) {
        guard let registry = gst_registry_get(),
            let classic = gst_registry_lookup_feature(registry, classicName)
        else { return }
        gst_object_unref(UnsafeMutableRawPointer(classic))
        guard let newer = gst_registry_lookup_feature(registry, newerName) else { return }
        gst_plugin_feature_set_rank(newer, guint(GST_RANK_NONE.rawValue))
        gst_object_unref(UnsafeMutableRawPointer(newer))
    }
}
