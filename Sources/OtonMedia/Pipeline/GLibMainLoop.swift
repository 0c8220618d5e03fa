import CGStreamer
import Foundation
import OtonHTTPSource
import OtonSupport

/// GStreamer's initialisation and the one GLib main loop of the process,
/// running on its own thread. Bus watches are attached to its context, so
/// pipeline messages are handled there, never on a streaming thread.
/// Concurrency: immutable after init (the loop and its context are GLib objects, thread-safe by GLib;
/// work reaches the loop thread only through g_main_context_invoke).
public final class GLibMainLoop: @unchecked Sendable {
    public static let shared = GLibMainLoop()

    /// Starts GStreamer's initialisation (its registry, libsoup) on another thread, so it overlaps
    /// what the command does before its first pipeline (options, plugins.json, plugins): the first
    /// sound comes that much sooner. `shared` waits for it when it is still running.
    /// Then, on the same thread, it readies what the first HTTP source needs (libsoup, GIO's TLS
    /// backend and certificates, the proxy resolver; `oton_http_source_warm_up`) while the command
    /// goes on.
    public static func warmUp() {
        Thread.detachNewThread {
            _ = GLibMainLoop.shared
            oton_http_source_warm_up()
        }
    }

    package let context: OpaquePointer
    private let loop: OpaquePointer
    private let thread: Thread

    private init() {
        LargeBufferMemoryPolicy.apply()
        SoupLibraryChoice.loadPreferred()
        // A first start builds GStreamer's plugin registry: seconds to a minute of silence at `idle`, said
        // so; a quit signal meanwhile ends oton at once (it waited 10 s, then exited 143).
        if AudioPluginRegistry.isMissing() {
            FileHandle.standardError.write(Data(("oton: " + tr("preparing the audio plugins (first start only; this can take a minute)") + "\n").utf8))
        }
        audioStartIsPreparingPlugins = 1
        gst_init(nil, nil)
        audioStartIsPreparingPlugins = 0
        AdaptiveDemuxerChoice.preferClassicDemuxer()
        DASHTimelineRepair.install()
        HLSSegmentTitles.install()
        AudioSinkChoice.keepNoisySinksOut()
        AudioDecoderChoice.keepLibavOffTheFirstSoundPath()
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
        // Concurrency: the loop pointer is immutable, and g_main_loop_run is made to run on a thread of its own.
        nonisolated(unsafe) let loop = self.loop
        thread = Thread { g_main_loop_run(loop) }
        thread.name = "oton.glib-main-loop"
        thread.start()
    }

    /// Attaches a bus watch calling `handler` with `data` for each message, on the loop's thread.
    package func watch(_ bus: UnsafeMutablePointer<GstBus>, handler: GstBusFunc, data: UnsafeMutableRawPointer) -> OpaquePointer {
        let source = gst_bus_create_watch(bus)!
        g_source_set_callback(source, unsafeBitCast(handler, to: GSourceFunc.self), data, nil)
        g_source_attach(source, context)
        return OpaquePointer(source)
    }

    package func remove(_ source: OpaquePointer) {
        g_source_destroy(UnsafeMutablePointer(source))
        g_source_unref(UnsafeMutablePointer(source))
    }
}
