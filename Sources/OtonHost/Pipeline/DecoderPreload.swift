import CGStreamer
import Foundation
import PluginAPI
import Synchronization

/// Loads the GStreamer plugin of a decoder the stream will need on a thread of its own while the
/// connection is being made, so the first audio is not held up by loading it when decodebin gets
/// there. Only libav (the AAC decoder) is worth it: loading it takes 50–80 ms (libavcodec and its
/// libraries), every other decoder oton meets loads in under 2 ms. Once a process; loading a
/// plugin GStreamer is loading at the same moment is safe (the registry serialises it).
enum DecoderPreload {
    private static let started = Atomic<Bool>(false)

    /// Starts the load when `description` decodes a stream that is most likely AAC: HLS (AAC in
    /// nearly every radio playlist) or a URL that names an AAC file.
    static func startIfUseful(for description: PipelineDescription) {
        guard description.decodes || description.taps & OTON_TAP_PCM != 0, likelyAAC(description) else { return }
        guard !started.exchange(true, ordering: .relaxed) else { return }
        Thread.detachNewThread {
            if let plugin = gst_plugin_load_by_name("libav") { gst_object_unref(UnsafeMutableRawPointer(plugin)) }
        }
    }

    static func likelyAAC(_ description: PipelineDescription) -> Bool {
        if description.isHLS { return true }
        let path = URL(string: description.url)?.path.lowercased() ?? description.url.lowercased()
        return ["aac", "aacp", "adts", "m4a", "mp4"].contains((path as NSString).pathExtension)
    }
}
