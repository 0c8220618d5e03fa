import Foundation
import Logging
import OtonSupport

/// Runs a user's shell command for an event (`oton record --on-alert CMD`), bounded: at most
/// `maxRunning` at once, the next ones queued (at most `maxQueued`, in order; beyond that one is
/// dropped, counted and logged), each in a process group of its own (``GroupedCommand``) that is
/// ended after `timeout` seconds — SIGTERM to the whole group, SIGKILL `grace` seconds later —
/// and when oton ends (``stopAll()``). Its output (standard output and error together, the first
/// 4 KiB) is logged line by line at info level with the command's tag. The values go in the
/// environment, never into the command line, so no value is ever parsed by the shell. Thread
/// safe; `run` returns at once.
package final class BoundedCommands: @unchecked Sendable {  // `lock` guards `running`, `queue`, `dropped`, `stopped`, `groups`
    package let command: String
    package let maxRunning: Int
    package let maxQueued: Int
    package let timeout: Double
    package let grace: Double
    private let lock = NSLock()
    private var running = 0
    private var queue: [(environment: [String: String], tag: String)] = []
    private var dropped = 0
    private var stopped = false
    private var groups: [pid_t: GroupedCommand] = [:]
    private let logger: Logger
    private static let outputLimit = 4096

    package init(
        command: String, maxRunning: Int = 4, maxQueued: Int = 256, timeout: Double = 30, grace: Double = 5,
        logger: Logger = Logger(label: "oton.on-alert")
    ) {
        self.command = command
        self.maxRunning = max(1, maxRunning)
        self.maxQueued = max(0, maxQueued)
        self.timeout = max(0.1, timeout)
        self.grace = max(0, grace)
        self.logger = logger
    }

    /// Runs the command with `environment` added to the process's; `tag` names it in the log.
    /// While `maxRunning` commands run it waits in the queue; false when the queue is full too
    /// (this one is dropped and counted) or after ``stopAll()``.
    @discardableResult
    package func run(environment: [String: String], tag: String) -> Bool {
        lock.lock()
        guard !stopped else {
            lock.unlock()
            return false
        }
        guard running < maxRunning else {
            guard queue.count < maxQueued else {
                dropped += 1
                let count = dropped
                lock.unlock()
                logger.warning(
                    "\(tr("{tag}: not run: {running} commands are running and {queued} wait (at most that many); {count} dropped so far", ["tag": tag, "running": String(maxRunning), "queued": String(maxQueued), "count": String(count)]))"
                )
                return false
            }
            queue.append((environment, tag))
            lock.unlock()
            return true
        }
        running += 1
        lock.unlock()
        start(environment: environment, tag: tag)
        return true
    }

    /// Commands running now.
    package var runningCount: Int {
        lock.lock(); defer { lock.unlock() }
        return running
    }

    /// Commands waiting for one of the running ones to end.
    package var queuedCount: Int {
        lock.lock(); defer { lock.unlock() }
        return queue.count
    }

    /// Commands dropped because the queue was full.
    package var droppedCount: Int {
        lock.lock(); defer { lock.unlock() }
        return dropped
    }

    /// oton ends: the queue is forgotten and every running command's group ended (SIGTERM, then
    /// SIGKILL after the grace); returns when they have all been signalled.
    package func stopAll() {
        lock.lock()
        stopped = true
        queue.removeAll()
        let ending = Array(groups.values)
        lock.unlock()
        DispatchQueue.concurrentPerform(iterations: ending.count) { ending[$0].end(grace: grace) }
    }

    private func start(environment: [String: String], tag: String) {
        let group: GroupedCommand
        do {
            group = try GroupedCommand(command: command, environment: environment)
        } catch {
            logger.error("\(tr("{tag}: cannot run {command}: {reason}", ["tag": tag, "command": command, "reason": "\(error)"]))")
            finished()
            return
        }
        lock.lock()
        groups[group.pid] = group
        let late = stopped
        lock.unlock()
        if late { DispatchQueue.global().async { [grace] in group.end(grace: grace) } }
        let thread = Thread { [self] in
            let (ending, output) = group.wait(timeout: timeout, grace: grace, outputLimit: Self.outputLimit) {
                logger.warning("\(tr("{tag}: killed after {seconds} s", ["tag": tag, "seconds": String(format: "%.0f", timeout)]))")
            }
            for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
                logger.info("\(tag): \(line)")
            }
            if case let .exited(status) = ending, status != 0 {
                logger.warning("\(tr("{tag}: the command ended with status {status}", ["tag": tag, "status": String(status)]))")
            }
            lock.lock()
            groups[group.pid] = nil
            lock.unlock()
            finished()
        }
        thread.name = "oton.on-alert"
        thread.start()
    }

    /// A command ended: the next queued one starts in its place.
    private func finished() {
        lock.lock()
        guard !stopped, !queue.isEmpty else {
            running -= 1
            lock.unlock()
            return
        }
        let next = queue.removeFirst()
        lock.unlock()
        start(environment: next.environment, tag: next.tag)
    }
}
