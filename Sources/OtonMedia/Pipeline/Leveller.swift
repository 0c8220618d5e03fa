import CGStreamer
import OtonLeveller

/// The leveller of one connection (the C state in Sources/OtonLeveller), attached as a probe to the
/// pad before the volume element: it measures and levels what plays, after the PCM tap and before
/// the listener's volume. The probe holds a reference of its own; this object holds the other.
/// Concurrency: the C state's shared fields are atomics; the streaming thread owns the rest.
final class Leveller: @unchecked Sendable {
    private let state: OpaquePointer

    init?(_ settings: LevellingSettings) {
        guard let state = oton_leveller_new(settings.targetLUFS, settings.rememberedLUFS ?? .nan, settings.enabled ? 1 : 0) else { return nil }
        self.state = state
    }

    deinit { oton_leveller_unref(state) }

    /// Levels what passes `element`'s sink pad (the format there must be F32LE interleaved).
    func attach(before element: UnsafeMutablePointer<GstElement>) {
        guard let pad = gst_element_get_static_pad(element, "sink") else { return }
        _ = oton_leveller_attach(UnsafeMutableRawPointer(pad), state)
        gst_object_unref(UnsafeMutableRawPointer(pad))
    }

    /// From the next buffer on, the sound falls to silence over a few ms (a pause; any thread).
    func fadeOut() { oton_leveller_fade_out(state) }

    /// Ends a fade-out: the next audible frame rises from silence again (any thread).
    func fadeIn() { oton_leveller_fade_in(state) }

    /// Whether all that leaves the leveller now is silence (the fade-out is done, or nothing was heard).
    var isSilent: Bool { oton_leveller_faded_out(state) != 0 }

    /// The stream time (ns) up to which audio has left the leveller, and where its last fade-out began.
    var timing: (processed: Int64?, fadeStart: Int64?) {
        var processed: Int64 = -1
        var fadeStart: Int64 = -1
        oton_leveller_timing(state, &processed, &fadeStart)
        return (processed >= 0 ? processed : nil, fadeStart >= 0 ? fadeStart : nil)
    }

    func setEnabled(_ enabled: Bool) {
        oton_leveller_set_enabled(state, enabled ? 1 : 0)
    }

    var reading: LevellingReading {
        let raw = oton_leveller_read(state)
        return LevellingReading(
            enabled: raw.enabled != 0, targetLUFS: raw.target_lufs, gainDB: raw.gain_db,
            loudnessLUFS: raw.loudness_lufs.isFinite ? raw.loudness_lufs : nil,
            measuredSeconds: raw.measured_seconds, limiterDB: raw.limiter_db, guardedSamples: raw.guarded_samples)
    }
}
