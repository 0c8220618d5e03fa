import CGtk

/// Hands work from any thread (the control socket's reader) to GTK's main loop: the default
/// GMainContext, iterated by the main thread. Nothing else may touch a widget.
enum MainThread {
    static func run(_ work: @escaping @MainActor @Sendable () -> Void) {
        let box = Unmanaged.passRetained(WorkBox(work)).toOpaque()
        g_main_context_invoke(
            nil,
            { data in
                let box = Unmanaged<WorkBox>.fromOpaque(data!).takeRetainedValue()
                MainActor.assumeIsolated { box.work() }
                return 0  // G_SOURCE_REMOVE
            }, box)
    }

    /// Calls `work` once on the main loop after `seconds`.
    @MainActor
    static func after(seconds: UInt32, _ work: @escaping @MainActor () -> Void) {
        every(seconds: seconds) {
            work()
            return false
        }
    }

    /// Calls `tick` on the main loop every `seconds` until it returns false.
    @MainActor
    static func every(seconds: UInt32, _ tick: @escaping @MainActor () -> Bool) {
        let box = Unmanaged.passRetained(TickBox(tick)).toOpaque()
        g_timeout_add_seconds_full(
            0, seconds,
            { data in
                let box = Unmanaged<TickBox>.fromOpaque(data!).takeUnretainedValue()
                return MainActor.assumeIsolated { box.tick() } ? 1 : 0
            }, box, { data in Unmanaged<TickBox>.fromOpaque(data!).release() })
    }
}

private final class WorkBox: @unchecked Sendable {
    let work: @MainActor @Sendable () -> Void
    init(_ work: @escaping @MainActor @Sendable () -> Void) { self.work = work }
}

private final class TickBox {
    let tick: @MainActor () -> Bool
    init(_ tick: @escaping @MainActor () -> Bool) { self.tick = tick }
}
