import CGStreamer
import Foundation

/// The state the player asks of one pipeline (PLAYING, or PAUSED while the network buffer refills),
/// applied only while no asynchronous state change is under way.
///
/// Why: a GStreamer 1.22 bin finishes an asynchronous change (a preroll, then on to PLAYING) on a
/// thread of its own. A `gst_element_set_state` that lands between the bin's ASYNC_DONE and that
/// thread aborts the continuation ("state continue aborted due to intervening change") yet leaves the
/// pipeline marked busy; a later PLAYING is then taken as "already under way" and nothing moves the
/// pipeline again: it stays PAUSED with PLAYING pending, hlsdemux fills the queue and stops fetching
/// segments, and only the watchdog's reconnect 10 s later ends the silence. Buffering messages ask
/// for PAUSED and PLAYING within a millisecond of a preroll ending, so live HLS met this in about one
/// start of four (issue 27.7). A request made while a change is under way therefore waits until the
/// pipeline settles: its own STATE_CHANGED with nothing pending (``settled()``, from the bus watch).
/// Concurrency: `wanted` and `closed` are guarded by `lock`; requests come from the player's queue,
/// ``settled()`` from the GLib main-loop thread.
package final class PipelineStateRequests: @unchecked Sendable {
    private let pipeline: UnsafeMutablePointer<GstElement>
    private let lock = NSLock()
    private var wanted: GstState?
    private var closed = false

    package init(pipeline: UnsafeMutablePointer<GstElement>) {
        self.pipeline = pipeline
    }

    /// Asks for `state` now, or as soon as the change under way is done. A newer request replaces an older one.
    package func request(_ state: GstState) {
        lock.lock(); defer { lock.unlock() }
        guard !closed else { return }
        wanted = state
        applyIfSettled()
    }

    /// The pipeline finished a state change: a request that waited is applied now.
    package func settled() {
        lock.lock(); defer { lock.unlock() }
        guard !closed else { return }
        applyIfSettled()
    }

    /// The pipeline is stopping: no request is applied any more.
    package func close() {
        lock.lock(); defer { lock.unlock() }
        closed = true
        wanted = nil
    }

    private func applyIfSettled() {
        guard let state = wanted else { return }
        var current = GST_STATE_VOID_PENDING
        var pending = GST_STATE_VOID_PENDING
        // Timeout 0: only reads whether a change is under way.
        if gst_element_get_state(pipeline, &current, &pending, 0) == GST_STATE_CHANGE_ASYNC { return }
        wanted = nil
        if current != state { _ = gst_element_set_state(pipeline, state) }
    }
}
