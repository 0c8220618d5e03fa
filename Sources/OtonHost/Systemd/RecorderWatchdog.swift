import Dispatch
import Foundation
import Synchronization

/// Tells systemd a recorder is alive: READY once its stations are started, then every half
/// `WatchdogSec` a WATCHDOG ping with STATUS ("812 of 1000 stations recording"). The status is
/// read from every station's player on its own queue (`probe`), off the timer: a player whose queue
/// is stuck never answers, so the pings stop and systemd restarts the process.
public final class RecorderWatchdog: @unchecked Sendable {  // `timer` is set once in init; a dispatch source is thread safe
    private let notifier: SystemdNotifier
    private let probe: @Sendable () -> String
    private let timer: DispatchSourceTimer?
    private let probing = DispatchQueue(label: "oton.watchdog-probe")
    /// A probe is running: the next tick does not start another (nor ping).
    private let busy = Mutex(false)

    /// `interval`: how often to ping (by default half of `$WATCHDOG_USEC`; without it only STATUS is sent, every 30 s).
    public init(notifier: SystemdNotifier = SystemdNotifier(), interval: Duration? = nil, probe: @escaping @Sendable () -> String) {
        self.notifier = notifier
        self.probe = probe
        guard notifier.isActive else {
            timer = nil
            return
        }
        let every = interval ?? notifier.watchdogInterval.map { $0 / 2 } ?? .seconds(30)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        let nanoseconds = Int(every.components.seconds) * 1_000_000_000 + Int(every.components.attoseconds / 1_000_000_000)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(max(nanoseconds, 1_000_000)))
        self.timer = timer
        let pings = notifier.watchdogInterval != nil
        timer.setEventHandler { [weak self] in self?.tick(ping: pings) }
    }

    /// The recorder has started its stations.
    public func ready() {
        guard notifier.isActive else { return }
        notifier.notify(["READY=1", "STATUS=" + probe(), "MAINPID=\(getpid())"])
        timer?.resume()
    }

    /// The recorder is finishing its files.
    public func stopping() {
        timer?.cancel()
        notifier.notify(["STOPPING=1", "STATUS=finishing the recordings"])
    }

    private func tick(ping: Bool) {
        let start = busy.withLock { running -> Bool in
            guard !running else { return false }
            running = true
            return true
        }
        guard start else { return }  // the last probe has not come back: a player is stuck, no ping
        probing.async { [self] in
            let status = probe()
            notifier.notify((ping ? ["WATCHDOG=1"] : []) + ["STATUS=" + status])
            busy.withLock { $0 = false }
        }
    }
}
