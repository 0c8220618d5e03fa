import Dispatch

/// "Playing" means audio flows: in `playing`, the output must receive a buffer within the stall
/// timeout, or the connection counts as stalled (and is reconnected like any failure).
///
/// `@unchecked Sendable`: confined to the player's queue, where its timer fires too.
package final class StallWatchdog: @unchecked Sendable {
    private let clock: any PlayerClock
    private let queue: DispatchQueue
    private var timer: (any PlayerTimer)?
    private var lastOutputBuffers: UInt64 = 0
    private var lastFlowAt: Duration

    package init(clock: any PlayerClock, queue: DispatchQueue) {
        self.clock = clock
        self.queue = queue
        lastFlowAt = clock.now
    }

    /// Looks every `period` (with leeway, so the system wakes once for many stations' watchdogs).
    package func start(every period: Duration, _ check: @escaping () -> Void) {
        cancel()
        lastOutputBuffers = 0
        lastFlowAt = clock.now
        timer = clock.schedule(after: period, repeating: period, leeway: .milliseconds(500), on: queue, check)
    }

    package func cancel() {
        timer?.cancel()
        timer = nil
    }

    /// True when no buffer reached the output for `timeout` while playing; the count restarts then.
    package func isStalled(outputBuffers: UInt64, playing: Bool, timeout: Duration) -> Bool {
        guard outputBuffers == lastOutputBuffers, playing else {
            lastOutputBuffers = outputBuffers
            lastFlowAt = clock.now
            return false
        }
        guard clock.now - lastFlowAt >= timeout else { return false }
        lastFlowAt = clock.now
        return true
    }
}
