import CGio
import Foundation

/// A private GMainContext iterated by a thread of the plugin's own, so D-Bus
/// callbacks never depend on (or run on) the host's GLib loop. Work reaches
/// the thread through `invoke`; `stop` quits the loop and joins the thread.
/// Concurrency: `running` is guarded by `lock`; the GLib context is thread-safe by GLib and work reaches its
/// thread only through g_main_context_invoke.
final class GLibThread: @unchecked Sendable {
    let context: OpaquePointer
    private let loop: OpaquePointer
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var running = false

    init() {
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
    }

    deinit {
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Starts the thread; `setup` runs first on it with the context pushed as thread-default.
    /// When setup returns false the thread ends without running the loop.
    func start(name: String, setup: @escaping @Sendable () -> Bool) {
        lock.lock(); running = true; lock.unlock()
        let thread = Thread { [self] in
            g_main_context_push_thread_default(context)
            if setup() {
                g_main_loop_run(loop)
            }
            g_main_context_pop_thread_default(context)
            lock.lock(); running = false; lock.unlock()
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Runs `work` on the loop's thread. Dropped when the loop is not running.
    func invoke(_ work: @escaping () -> Void) {
        lock.lock()
        let isRunning = running
        lock.unlock()
        guard isRunning else { return }
        let box = Unmanaged.passRetained(WorkBox(work)).toOpaque()
        oton_context_invoke(context, { data in
            guard let data else { return oton_source_remove() }
            Unmanaged<WorkBox>.fromOpaque(data).takeRetainedValue().work()
            return oton_source_remove()
        }, box)
    }

    /// Runs `cleanup` on the loop's thread, quits the loop and waits for the thread to end.
    func stop(cleanup: @escaping () -> Void) {
        lock.lock()
        let wasRunning = running
        lock.unlock()
        guard wasRunning else { return }
        let loop = self.loop
        invoke {
            cleanup()
            g_main_loop_quit(loop)
        }
        finished.wait()
    }
}

private final class WorkBox {
    let work: () -> Void
    init(_ work: @escaping () -> Void) { self.work = work }
}
