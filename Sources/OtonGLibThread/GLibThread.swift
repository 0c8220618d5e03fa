internal import CGio
import Foundation

/// A private GMainContext iterated by a thread of the plugin's own, for plugins that live on GLib
/// (the now-playing plugin's D-Bus, the UPnP plugin's GUPnP), so their callbacks never depend on
/// (or run on) the host's GLib loop. Work reaches the thread through `invoke`; `stop` quits the loop
/// and joins the thread. Compiled into each plugin that uses it, like OtonPluginKit.
///
/// Concurrency: `running` is guarded by `lock`; the context and loop are GLib's own thread-safe
/// objects, and work reaches the loop's thread only through g_main_context_invoke.
public final class GLibThread: @unchecked Sendable {
    private let context: OpaquePointer
    private let loop: OpaquePointer
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var running = false

    public init() {
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
    }

    deinit {
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Starts the thread; `setup` runs first on it with the context pushed as thread-default (so what
    /// it creates, a D-Bus connection or a GUPnP context, attaches here). When setup returns false
    /// the thread ends without running the loop.
    public func start(name: String, setup: @escaping @Sendable () -> Bool) {
        lock.withLock { running = true }
        let thread = Thread { [self] in
            g_main_context_push_thread_default(context)
            if setup() { g_main_loop_run(loop) }
            g_main_context_pop_thread_default(context)
            lock.withLock { running = false }
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Runs `work` on the loop's thread; false (and nothing runs) when the loop is not running.
    @discardableResult
    public func invoke(_ work: @escaping () -> Void) -> Bool {
        guard lock.withLock({ running }) else { return false }
        let box = Unmanaged.passRetained(WorkBox(work)).toOpaque()
        oton_context_invoke(
            context,
            { data in
                guard let data else { return oton_source_remove() }
                Unmanaged<WorkBox>.fromOpaque(data).takeRetainedValue().work()
                return oton_source_remove()
            }, box)
        return true
    }

    /// Runs `cleanup` on the loop's thread, quits the loop and waits for the thread to end; nothing
    /// when the loop is not running.
    public func stop(cleanup: @escaping () -> Void) {
        let loop = self.loop
        guard
            invoke({
                cleanup()
                g_main_loop_quit(loop)
            })
        else { return }
        finished.wait()
    }
}

private final class WorkBox {
    let work: () -> Void
    init(_ work: @escaping () -> Void) { self.work = work }
}
