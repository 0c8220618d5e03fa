import Foundation
import HistoryLogic

/// Sends journaled listens and now-playing notices on its own thread, so the
/// plugin's mailbox never waits for the network. While a service is down it
/// retries with a growing delay (or the delay the service asked for); a listen
/// is marked sent only after the service accepted it, dropped only when the
/// service rejected it for good. Wrong credentials stop that service until the
/// next start, keeping its listens. Only one process submits at a time (a lock
/// file beside the database), so two `oton play` never send a listen twice.
final class SubmissionWorker: @unchecked Sendable {
    typealias Log = @Sendable (_ error: Bool, _ message: String) -> Void

    private final class ServiceState {
        let service: any ScrobbleService
        var schedule: RetrySchedule
        var blockedUntil: Double = 0
        var suspended = false
        var nowPlaying: Listen?
        var mayHavePending = true
        /// Bumped by every wake(): a journal read that started before a wake must not clear the flag.
        var wakes: UInt64 = 0
        var failing = false

        init(_ service: any ScrobbleService, schedule: RetrySchedule) {
            self.service = service
            self.schedule = schedule
        }
    }

    private let database: HistoryDatabase
    private let transport: HTTPTransport
    private let log: Log
    private let lockPath: String
    private let condition = NSCondition()
    private var states: [ServiceState]
    private var stopping = false
    private var lockFD: Int32 = -1
    private let exited = DispatchSemaphore(value: 0)

    init(database: HistoryDatabase, services: [any ScrobbleService], config: HistoryConfig, log: @escaping Log) {
        self.database = database
        self.log = log
        transport = HTTPTransport(timeout: config.requestTimeoutSeconds)
        lockPath = database.path + ".scrobble-lock"
        states = services.map { ServiceState($0, schedule: RetrySchedule(initial: config.retryInitialSeconds, maximum: config.retryMaximumSeconds)) }
    }

    func start() {
        let thread = Thread { [self] in
            run(); exited.signal()
        }
        thread.name = "org.oton.history.submit"
        thread.start()
    }

    /// A track started: tell the services (replacing an older notice not yet sent).
    func nowPlaying(_ listen: Listen) {
        condition.lock()
        for state in states { state.nowPlaying = listen }
        condition.signal()
        condition.unlock()
    }

    /// New listens are in the journal.
    func wake() {
        condition.lock()
        for state in states {
            state.mayHavePending = true
            state.wakes &+= 1
        }
        condition.signal()
        condition.unlock()
    }

    /// Stops within about a second: cancels the request under way.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
        transport.cancel()
        if exited.wait(timeout: .now() + 1) == .timedOut {
            log(false, "submission worker still busy at shutdown; unsent listens stay in the journal")
        }
    }

    private var isStopping: Bool {
        condition.lock(); defer { condition.unlock() }
        return stopping
    }

    private static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    private func run() {
        defer { if lockFD >= 0 { close(lockFD) } }
        while true {
            // Wait until something is due.
            condition.lock()
            while !stopping {
                let now = Self.now()
                let due = states.filter { !$0.suspended && ($0.nowPlaying != nil || $0.mayHavePending) }
                if due.contains(where: { $0.blockedUntil <= now }) { break }
                if let next = due.map(\.blockedUntil).min() {
                    _ = condition.wait(until: Date().addingTimeInterval(max(0.01, next - now)))
                } else {
                    condition.wait()
                }
            }
            if stopping { condition.unlock(); return }
            condition.unlock()

            guard acquireLock() else {
                condition.lock()
                for state in states { state.blockedUntil = Self.now() + 5 }
                condition.unlock()
                continue
            }
            for state in states where !isStopping {
                work(on: state)
            }
        }
    }

    /// Only one process submits from one journal at a time.
    private func acquireLock() -> Bool {
        if lockFD >= 0 { return true }
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return true }  // cannot lock: submit anyway rather than never
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            lockFD = fd
            return true
        }
        close(fd)
        return false
    }

    private func work(on state: ServiceState) {
        condition.lock()
        let ready = !state.suspended && state.blockedUntil <= Self.now()
        let notice = ready ? state.nowPlaying : nil
        if notice != nil { state.nowPlaying = nil }
        condition.unlock()
        guard ready else { return }
        let name = state.service.name

        if let notice {
            // A notice is worth sending only now; on failure it is not retried (the next track brings a new one).
            if handle(state.service.nowPlaying(notice, over: transport), state: state, ids: [], what: "now playing") == false { return }
        }
        condition.lock()
        let wakesBeforeRead = state.wakes
        condition.unlock()
        let batch: [HistoryDatabase.JournalEntry]
        do {
            batch = try database.pending(service: name, limit: state.service.batchLimit)
        } catch {
            log(true, "\(name): cannot read the scrobble journal: \(error)")
            block(state, after: nil)
            return
        }
        guard !batch.isEmpty else {
            // Nothing pending, unless a listen was journaled (and wake() called) while we read.
            condition.lock()
            if state.wakes == wakesBeforeRead { state.mayHavePending = false }
            condition.unlock()
            return
        }
        let (outcome, pause) = state.service.submit(batch.map(\.listen), over: transport)
        if handle(outcome, state: state, ids: batch.map(\.id), what: "\(batch.count) listen(s)") == true {
            condition.lock()
            if let pause { state.blockedUntil = Self.now() + pause }
            condition.unlock()
        }
    }

    /// Applies an outcome; returns true when accepted, false when the service must wait.
    @discardableResult
    private func handle(_ outcome: SubmissionOutcome, state: ServiceState, ids: [Int64], what: String) -> Bool? {
        let name = state.service.name
        switch outcome {
        case .accepted:
            do {
                try database.markSent(ids)
            } catch {
                log(true, "\(name): sent \(what) but could not mark them sent: \(error)")
            }
            condition.lock()
            state.schedule.reset()
            let recovered = state.failing
            state.failing = false
            condition.unlock()
            if recovered { log(false, "\(name): reachable again; sending the listens kept meanwhile") }
            return true
        case let .retry(after, reason):
            if isStopping { return false }
            try? database.recordFailure(ids, reason: reason)
            let delay = block(state, after: after)
            condition.lock()
            let first = !state.failing
            state.failing = true
            condition.unlock()
            if first { log(false, "\(name): \(reason); \(what) kept, retrying in \(String(format: "%.1f", delay)) s and later with growing delay") }
            return false
        case let .unauthorized(message):
            condition.lock(); state.suspended = true; condition.unlock()
            log(true, "\(name): \(message). Scrobbling to \(name) is stopped until oton restarts; the listens are kept.")
            return false
        case let .rejected(message):
            do {
                try database.markDropped(ids, reason: message)
            } catch {
                log(true, "\(name): cannot mark rejected listens: \(error)")
            }
            log(true, "\(name): \(message); \(ids.isEmpty ? "now-playing notice" : what) dropped")
            return nil
        }
    }

    @discardableResult
    private func block(_ state: ServiceState, after requested: Double?) -> Double {
        condition.lock(); defer { condition.unlock() }
        let delay = state.schedule.nextDelay(requested: requested)
        state.blockedUntil = Self.now() + delay
        return delay
    }
}
