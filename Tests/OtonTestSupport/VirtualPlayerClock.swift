import Dispatch
import Foundation
import OtonHost

/// Virtual time for the Player's logic: nothing fires until the test moves the clock, and then
/// every timer that falls due runs on its queue, in the order of its deadlines, before `advance`
/// returns. A reconnect 30 s away takes microseconds.
public final class VirtualPlayerClock: PlayerClock, @unchecked Sendable {  // `lock` guards `current` and `timers`
    private let lock = NSLock()
    private var current: Duration = .seconds(1000)
    private var timers: [Timer] = []

    public init() {}

    public var now: Duration { lock.withLock { current } }

    package func schedule(
        after delay: Duration, repeating: Duration?, leeway: Duration, on queue: DispatchQueue,
        _ work: @escaping () -> Void
    ) -> any PlayerTimer {
        let timer = Timer(due: now + max(delay, .zero), period: repeating, queue: queue, work: work)
        lock.withLock { timers.append(timer) }
        return timer
    }

    /// Timers neither fired (one-shot) nor cancelled.
    public var pendingTimers: Int { lock.withLock { timers.filter { !$0.isCancelled }.count } }

    /// Moves the clock forward by `delay`, running each timer that falls due meanwhile on its queue
    /// (waiting for it), earliest first; a timer set by one that fires runs too if it falls due in time.
    public func advance(by delay: Duration) {
        let end = now + delay
        while let timer = nextDue(before: end) {
            timer.queue.sync {
                if !timer.isCancelled { timer.work() }
            }
        }
        lock.withLock { current = end }
    }

    private func nextDue(before end: Duration) -> Timer? {
        lock.withLock {
            timers.removeAll { $0.isCancelled }
            guard let timer = timers.filter({ $0.due <= end }).min(by: { $0.due < $1.due }) else { return nil }
            current = max(current, timer.due)
            if let period = timer.period, period > .zero {
                timer.due += period
            } else {
                timers.removeAll { $0 === timer }
            }
            return timer
        }
    }

    private final class Timer: PlayerTimer, @unchecked Sendable {  // `due` is guarded by the clock's lock
        var due: Duration
        let period: Duration?
        let queue: DispatchQueue
        let work: () -> Void
        private let cancelled = NSLock()
        private var isCancelledValue = false

        init(due: Duration, period: Duration?, queue: DispatchQueue, work: @escaping () -> Void) {
            self.due = due
            self.period = period
            self.queue = queue
            self.work = work
        }

        var isCancelled: Bool { cancelled.withLock { isCancelledValue } }

        func cancel() {
            cancelled.withLock { isCancelledValue = true }
        }
    }
}
