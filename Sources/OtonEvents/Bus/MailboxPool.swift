import Foundation
import OtonSupport

/// The threads that run every mailbox (docs/architecture.md, "Threads and queues"): a fixed number,
/// whatever the number of sessions and plugin instances, so a recorder of 1000 stations does not
/// start 2000 threads. Each mailbox is still served by one worker at a time, in order, so calls
/// into one plugin instance never overlap.
///
/// A consumer stuck in a call holds its worker; a watcher adds a worker whenever every worker has
/// been inside one call for more than a second while mailboxes wait (up to `maximumWorkers`), so a
/// hung plugin never holds up the others — the same promise a thread per mailbox kept. A slow disk
/// looks the same (a track's fsync that takes a second at 1000 stations), so a worker added this way
/// leaves again once it has had nothing to do for `extraIdleSeconds`: the count comes back to the
/// base (it grew 39 → 83 threads and stayed there in a 1000-station run with short tracks, issue 37 §6).
package final class MailboxPool: @unchecked Sendable {  // `condition` guards every var
    package static let shared = MailboxPool(
        workers: ProcessInfo.processInfo.environment["OTON_MAILBOX_THREADS"].flatMap(Int.init).map { min(max($0, 1), 64) } ?? 4)

    package static let maximumWorkers = 256
    /// An added worker idle this long leaves (the base workers stay).
    package static let extraIdleSeconds = 10.0
    private let baseWorkers: Int
    private let condition = NSCondition()
    private var ready: [Mailbox] = []
    private var readyHead = 0
    private var workers = 0
    private var idle = 0
    /// Workers signalled and not yet awake: a burst of mailboxes (every station's packet of one
    /// read) wakes one worker per 16 waiting, not one per mailbox.
    private var wakeupsInFlight = 0
    /// When each busy worker began its current batch (CLOCK_MONOTONIC ns); absent while idle.
    private var busySince: [Int: Int64] = [:]
    private var nextWorker = 0

    package init(workers: Int) {
        baseWorkers = max(1, workers)
        condition.lock()
        for _ in 0..<workers { startWorker() }
        condition.unlock()
        let watcher = Thread { [self] in watch() }
        watcher.name = "oton.mailboxes.watch"
        watcher.stackSize = 256 << 10
        watcher.start()
    }

    /// Queues `mailbox` to be run (it was idle and has work).
    package func schedule(_ mailbox: Mailbox) {
        condition.lock()
        ready.append(mailbox)
        let waiting = ready.count - readyHead
        if idle > wakeupsInFlight, wakeupsInFlight * 16 < waiting {
            wakeupsInFlight += 1
            condition.signal()
        }
        condition.unlock()
    }

    /// The worker count now (tests, docs).
    package var workerCount: Int {
        condition.lock(); defer { condition.unlock() }
        return workers
    }

    /// Called with `condition` held.
    private func startWorker() {
        let id = nextWorker
        nextWorker += 1
        workers += 1
        let thread = Thread { [self] in work(id) }
        thread.name = "oton.mailboxes.\(id)"
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func work(_ id: Int) {
        while true {
            condition.lock()
            while readyHead == ready.count {
                idle += 1
                // Beyond the base count, a worker waits only so long for work, then leaves.
                let extra = workers > baseWorkers
                let woken =
                    extra
                    ? condition.wait(until: Date(timeIntervalSinceNow: Self.extraIdleSeconds))
                    : {
                        condition.wait(); return true
                    }()
                idle -= 1
                if woken, wakeupsInFlight > 0 { wakeupsInFlight -= 1 }
                // A wake-up meant for a worker whose wait had just timed out went to nobody.
                wakeupsInFlight = min(wakeupsInFlight, idle)
                if !woken, readyHead == ready.count, workers > baseWorkers {
                    workers -= 1
                    condition.unlock()
                    return
                }
            }
            let mailbox = ready[readyHead]
            readyHead += 1
            if readyHead > 1024 && readyHead * 2 > ready.count {
                ready.removeFirst(readyHead)
                readyHead = 0
            }
            busySince[id] = Clock.monotonicNanoseconds()
            condition.unlock()
            let more = mailbox.runBatch()
            condition.lock()
            busySince[id] = nil
            // Round robin: a mailbox with more work goes to the back, behind the others waiting.
            if more { ready.append(mailbox) }
            condition.unlock()
        }
    }

    /// Every 250 ms: mailboxes wait, no worker is idle, and every worker has been in one batch for
    /// over a second → one more worker.
    private func watch() {
        while true {
            usleep(250_000)
            condition.lock()
            let now = Clock.monotonicNanoseconds()
            let waiting = readyHead < ready.count
            let allStuck = idle == 0 && busySince.count == workers && busySince.values.allSatisfy { now - $0 > 1_000_000_000 }
            if waiting, allStuck, workers < Self.maximumWorkers {
                startWorker()
            } else if waiting, idle > 0, wakeupsInFlight == 0 {
                // Work waits and a worker sleeps (a lost race with a wake-up): wake it.
                wakeupsInFlight += 1
                condition.signal()
            }
            condition.unlock()
        }
    }
}
