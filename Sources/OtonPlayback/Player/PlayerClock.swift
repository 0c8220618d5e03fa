import Dispatch
import OtonSupport

/// Time as the Player sees it: the instant now, and timers that fire on the player's queue.
/// ``SystemPlayerClock`` is the machine's monotonic clock; a test gives a virtual clock that it
/// moves itself, so reconnect schedules, stalls and alarm deadlines run in well under a second.
package protocol PlayerClock: Sendable {
    /// Monotonic time since an arbitrary origin.
    var now: Duration { get }
    /// Runs `work` on `queue` after `delay`, then every `repeating` (if given) until cancelled.
    /// `leeway` lets the system wake once for many timers (a virtual clock ignores it).
    func schedule(
        after delay: Duration, repeating: Duration?, leeway: Duration, on queue: DispatchQueue,
        _ work: @escaping () -> Void
    ) -> any PlayerTimer
}

extension PlayerClock {
    /// Runs `work` once on `queue` after `delay`.
    package func schedule(after delay: Duration, on queue: DispatchQueue, _ work: @escaping () -> Void) -> any PlayerTimer {
        schedule(after: delay, repeating: nil, leeway: .zero, on: queue, work)
    }
}

/// A timer of a ``PlayerClock``. Cancelling is final; after it returns on the timer's queue, the
/// work never runs again.
package protocol PlayerTimer: AnyObject, Sendable {
    func cancel()
}

/// The machine's clock: CLOCK_MONOTONIC and Dispatch timers.
package struct SystemPlayerClock: PlayerClock {
    package init() {}

    package var now: Duration { .nanoseconds(Clock.monotonicNanoseconds()) }

    package func schedule(
        after delay: Duration, repeating: Duration?, leeway: Duration, on queue: DispatchQueue,
        _ work: @escaping () -> Void
    ) -> any PlayerTimer {
        let source = DispatchSource.makeTimerSource(queue: queue)
        let deadline = DispatchTime.now() + Self.interval(delay)
        if let repeating {
            source.schedule(deadline: deadline, repeating: Self.interval(repeating), leeway: Self.interval(leeway))
        } else {
            source.schedule(deadline: deadline, leeway: Self.interval(leeway))
        }
        source.setEventHandler(handler: work)
        source.resume()
        return DispatchPlayerTimer(source)
    }

    private static func interval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}

/// `@unchecked Sendable`: a DispatchSourceTimer may be cancelled from any thread.
private final class DispatchPlayerTimer: PlayerTimer, @unchecked Sendable {
    private let source: any DispatchSourceTimer

    init(_ source: any DispatchSourceTimer) {
        self.source = source
    }

    func cancel() {
        source.cancel()
    }
}
